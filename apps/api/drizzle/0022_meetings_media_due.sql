-- Hand-edited: drizzle-kit wrote meetings_media_due_idx (the hourly media expiry's due meetings) here;
-- src/db/online-indexes.ts builds it after the migrations, CONCURRENTLY on PostgreSQL.
SELECT 1;
