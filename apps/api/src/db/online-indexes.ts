import { is, SQL, sql } from 'drizzle-orm';
import { getTableConfig, type IndexedColumn, PgDialect, PgTable } from 'drizzle-orm/pg-core';
import * as schema from './schema/index.js';
import { rowsOf } from './sql.js';

/**
 * Indexes built after the migrations instead of inside them (DECISIONS.md, History that grows): drizzle's
 * migrator runs all pending migrations in one transaction, where PostgreSQL refuses CREATE INDEX
 * CONCURRENTLY, and a plain CREATE INDEX blocks every write to the table while it builds. Such an index is
 * declared once, in its table's schema with `.concurrently()`; drizzle-kit's snapshot knows it, and the
 * migration drizzle-kit generated for it was hand-edited to leave it out. An online index is never removed.
 */
export interface OnlineIndex {
  name: string;
  unique: boolean;
  /** What follows `CREATE INDEX "name"`, written as drizzle-kit writes it: `ON "table" USING … (…) [WITH (…)] [WHERE …]`. */
  definition: string;
}

const dialect = new PgDialect();
type IndexConfig = ReturnType<typeof getTableConfig>['indexes'][number]['config'];

/** DDL takes no bind parameters: an expression must be written inline (sql.raw or literal text). */
function inline(config: IndexConfig, query: { sql: string; params: unknown[] }): string {
  if (query.params.length > 0) throw new Error(`online index ${config.name}: its expression has bind parameters`);
  return query.sql;
}

/** The index's definition as drizzle-kit writes it in a migration (its CreatePgIndexConvertor), checked by a test. */
function definitionOf(table: PgTable, config: IndexConfig): string {
  const columns = config.columns.map((column) => {
    if (is(column, SQL)) return inline(config, dialect.sqlToQuery(column, 'indexes'));
    const indexed = column as IndexedColumn;
    const descending = indexed.indexConfig?.order === 'desc';
    // PostgreSQL's default: nulls last ascending, first descending; only a departure from it is written.
    const nulls = indexed.indexConfig?.nulls ?? (descending ? 'first' : 'last');
    const opclass = indexed.indexConfig?.opClass ? ` ${indexed.indexConfig.opClass}` : '';
    return `"${indexed.name}"${opclass}${descending ? ' DESC' : ''}${nulls !== (descending ? 'first' : 'last') ? ` NULLS ${nulls.toUpperCase()}` : ''}`;
  });
  const options = Object.entries(config.with ?? {}).map(([key, value]) => `${key}=${String(value)}`);
  const where = config.where ? ` WHERE ${inline(config, dialect.sqlToQuery(config.where))}` : '';
  return `ON "${getTableConfig(table).name}" USING ${config.method ?? 'btree'} (${columns.join(',')})${options.length > 0 ? ` WITH (${options.join(',')})` : ''}${where}`;
}

/** Every index of the schema marked `.concurrently()`, in the order of its tables and its declarations. */
export function onlineIndexes(): OnlineIndex[] {
  const found: OnlineIndex[] = [];
  for (const table of Object.values(schema)) {
    if (!is(table, PgTable)) continue;
    for (const { config } of getTableConfig(table).indexes) {
      if (!config.concurrently) continue;
      found.push({ name: config.name as string, unique: config.unique, definition: definitionOf(table, config) });
    }
  }
  return found;
}

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
  for (const index of onlineIndexes()) {
    const found = (await db.execute(sql`select i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid
      where c.relname = ${index.name} and c.relnamespace = 'public'::regnamespace`)) as unknown;
    const rows = rowsOf<{ valid: boolean }>(found);
    if (rows[0]?.valid) continue;
    if (rows[0]) await db.execute(sql`drop index${mode} if exists ${sql.identifier(index.name)}`);
    await db.execute(
      sql`create ${sql.raw(index.unique ? 'unique ' : '')}index${mode} if not exists ${sql.identifier(index.name)} ${sql.raw(index.definition)}`,
    );
  }
  for (const name of REPLACED_INDEXES) await db.execute(sql`drop index${mode} if exists ${sql.identifier(name)}`);
}
