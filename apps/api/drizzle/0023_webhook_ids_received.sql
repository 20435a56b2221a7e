-- Hand-edited: drizzle-kit wrote meeting_bot_webhooks_received_idx (the webhook-id prune's oldest-first
-- batches) here; src/db/online-indexes.ts builds it after the migrations, CONCURRENTLY on PostgreSQL.
SELECT 1;
