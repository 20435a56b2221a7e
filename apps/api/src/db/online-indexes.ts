import { sql, type SQL } from 'drizzle-orm';
import { rowsOf } from './sql.js';

/**
 * Indexes built after the migrations instead of inside them (DECISIONS.md, History that grows): drizzle's
 * migrator runs all pending migrations in one transaction, where PostgreSQL refuses CREATE INDEX
 * CONCURRENTLY, and a plain CREATE INDEX blocks every write to the table while it builds. Each entry is
 * declared in the table's schema too, so drizzle-kit's snapshot knows it; the migration that drizzle-kit
 * generated for it was hand-edited to leave it out. Entries are never removed: a new index is appended.
 */
const ONLINE_INDEXES: { name: string; create: string }[] = [
  { name: 'meetings_workspace_status_idx', create: 'on "meetings" using btree ("workspace_id", "status", "created_at", "id")' },
  { name: 'generations_project_page_idx', create: 'on "generations" using btree ("project_id", "created_at", "id")' },
  { name: 'generations_workspace_app_idx', create: 'on "generations" using btree ("workspace_id", "app_id", "created_at", "id")' },
  { name: 'agent_threads_project_page_idx', create: 'on "agent_threads" using btree ("project_id", "created_at", "id")' },
  // Lists per workspace of the caller with a project or folder filter, and the base personas' part (0011).
  { name: 'generations_workspace_project_idx', create: 'on "generations" using btree ("workspace_id", "project_id", "created_at", "id")' },
  { name: 'agent_threads_workspace_project_idx', create: 'on "agent_threads" using btree ("workspace_id", "project_id", "created_at", "id")' },
  { name: 'files_workspace_folder_idx', create: 'on "files" using btree ("workspace_id", "folder_id", "created_at", "id")' },
  { name: 'personas_base_page_idx', create: 'on "personas" using btree ("created_at", "id") where not "is_custom"' },
  // item_reference input items by output item id (0016), without GIN's pending list (0021).
  {
    name: 'model_responses_output_items_idx',
    create: `on "model_responses" using gin (jsonb_path_query_array(("body" -> 'output'), '$[*].id')) with (fastupdate = off)`,
  },
  // The retention job's oldest-first batches (0017).
  { name: 'model_responses_created_idx', create: 'on "model_responses" using btree ("created_at")' },
  // The account's stored chat completions, oldest or latest first (0020).
  {
    name: 'model_responses_chat_idx',
    create: `on "model_responses" using btree ("account_id", "created_at", "id") where "object" = 'chat.completion' and "status" = 'completed'`,
  },
  // The media expiry's due meetings (0022).
  { name: 'meetings_media_due_idx', create: `on "meetings" using btree ("completed_at") where "status" = 'done'` },
  // The webhook-id prune's oldest-first batches (0023).
  { name: 'meeting_bot_webhooks_received_idx', create: 'on "meeting_bot_webhooks" using btree ("received_at")' },
];

/** Indexes the ones above replace, dropped once their successor is built. */
const REPLACED_INDEXES = ['generations_project_idx', 'agent_threads_project_idx'];

/** Either driver's drizzle instance, with or without the schema. */
interface AnyDatabase {
  execute(query: SQL): PromiseLike<unknown>;
}

/**
 * Builds the missing online indexes. `concurrently` (PostgreSQL) builds without blocking writes, on a
 * connection outside any transaction; a build that failed midway leaves an INVALID index, which is
 * dropped and built again. PGlite has one connection and no concurrent writers: a plain build.
 */
export async function buildOnlineIndexes(db: AnyDatabase, concurrently: boolean): Promise<void> {
  const mode = concurrently ? sql.raw(' concurrently') : sql.raw('');
  for (const index of ONLINE_INDEXES) {
    const found = (await db.execute(sql`select i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid
      where c.relname = ${index.name} and c.relnamespace = 'public'::regnamespace`)) as unknown;
    const rows = rowsOf<{ valid: boolean }>(found);
    if (rows[0]?.valid) continue;
    if (rows[0]) await db.execute(sql`drop index${mode} if exists ${sql.identifier(index.name)}`);
    await db.execute(sql`create index${mode} if not exists ${sql.identifier(index.name)} ${sql.raw(index.create)}`);
  }
  for (const name of REPLACED_INDEXES) await db.execute(sql`drop index${mode} if exists ${sql.identifier(name)}`);
}
