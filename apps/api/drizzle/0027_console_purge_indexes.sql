-- Hand-edited: drizzle-kit wrote console_sessions_expires_idx and console_setup_tokens_expires_idx here, for the
-- daily purge of sessions and setup links long expired (resources/console/purge.ts); src/db/online-indexes.ts
-- builds them after the migrations, CONCURRENTLY on PostgreSQL.
SELECT 1;
