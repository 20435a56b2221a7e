import { getTableColumns, getTableName, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';
import { errorChain } from '../lib/error-chain.js';

/**
 * `"table"."column"`. Inside sql`` in a select list drizzle writes columns unqualified, which makes
 * a correlated subquery compare the inner table with itself; correlated references use this.
 */
export function qualified(column: AnyPgColumn): SQL {
  return sql`${sql.identifier(getTableName(column.table))}.${sql.identifier(column.name)}`;
}

/**
 * Evaluated anywhere in a statement that is its own transaction, makes it commit without waiting for its WAL
 * flush (`synchronous_commit = off`): for writes whose last few a database crash may lose (a credit hold, the
 * request counters; DECISIONS.md). `true` keeps the setting to that transaction, so the pooled connection
 * commits its next statement, a charge say, synchronously again.
 */
export const COMMIT_WITHOUT_FLUSH: SQL = sql`set_config('synchronous_commit', 'off', true)`;

/**
 * The `set` of an upsert that takes the proposed row's values (`excluded.column`) for `keys`, so a
 * catalog written on every start updates existing rows without naming each column twice.
 */
export function fromExcluded<Table extends PgTable, Key extends keyof Table['_']['columns'] & string>(table: Table, keys: readonly Key[]): Record<Key, SQL> {
  const columns = getTableColumns(table) as Record<string, AnyPgColumn>;
  return Object.fromEntries(keys.map((key) => [key, sql`excluded.${sql.identifier(columns[key]!.name)}`])) as Record<Key, SQL>;
}

/** The rows of a raw statement (db.execute), whichever driver ran it: postgres.js answers an array, PGlite `{ rows }`. */
export function rowsOf<Row>(result: unknown): Row[] {
  return (Array.isArray(result) ? result : (result as { rows: Row[] }).rows) as Row[];
}

/**
 * The constraint a foreign-key violation (SQLSTATE 23503) names, from either driver's error or the error
 * Drizzle wraps it in; null for any other error.
 */
export function foreignKeyViolation(error: unknown): string | null {
  for (const wrapped of errorChain(error)) {
    if (wrapped.code !== '23503') continue;
    // postgres.js names it constraint_name, PGlite constraint.
    const name = wrapped.constraint_name ?? wrapped.constraint;
    return typeof name === 'string' ? name : '';
  }
  return null;
}
