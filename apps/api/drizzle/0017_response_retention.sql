-- Hand-edited: drizzle-kit wrote model_responses_created_idx (the retention job's oldest-first batches)
-- here; src/db/online-indexes.ts builds it after the migrations, CONCURRENTLY on PostgreSQL.
SELECT 1;
