-- Hand-edited: drizzle-kit wrote credit_reservations_expires_idx (the open holds the metrics scrape counts,
-- and the hourly purge of holds expired over a day ago) here; src/db/online-indexes.ts builds it after the
-- migrations, CONCURRENTLY on PostgreSQL.
SELECT 1;
