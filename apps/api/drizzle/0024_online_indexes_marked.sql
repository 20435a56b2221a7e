-- Hand-edited: drizzle-kit wrote a drop and a CONCURRENTLY build of every online index here, because the
-- tables' schema now marks them `.concurrently()`. src/db/online-indexes.ts reads them from that mark and
-- builds them after the migrations, as before; nothing changes in the database.
SELECT 1;
