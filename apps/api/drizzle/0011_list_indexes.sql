-- Hand-edited: drizzle-kit wrote the list indexes of issue 23 item 2 here (personas_base_page_idx,
-- files_workspace_folder_idx, generations_workspace_project_idx, agent_threads_workspace_project_idx).
-- drizzle's migrator runs every pending migration in one transaction, where CREATE INDEX CONCURRENTLY is
-- refused, and a plain CREATE INDEX blocks writes to a large table for the whole build:
-- src/db/online-indexes.ts builds them after the migrations, CONCURRENTLY on PostgreSQL.
SELECT 1;
