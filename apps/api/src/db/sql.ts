import { getTableColumns, getTableName, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';

/**
 * `"table"."column"`. Inside sql`` in a select list drizzle writes columns unqualified, which makes
 * a correlated subquery compare the inner table with itself; correlated references use this.
 */
export function qualified(column: AnyPgColumn): SQL {
  return sql`${sql.identifier(getTableName(column.table))}.${sql.identifier(column.name)}`;
}

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
