// On PostgreSQL every Drizzle statement is a named prepared statement of its connection (db/client.ts):
// one round trip per statement and no re-planning. Transactions get the same client. With
// DATABASE_PREPARED_STATEMENTS=false (a pooler in transaction mode) nothing is prepared.
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/db/client.js';
import { workspaces } from '../../src/db/schema/index.js';
import { openTestDatabase } from '../support/database.js';

let database: DatabaseHandle;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(() => database.close());

/** Statements prepared on the connection of a transaction, after running a parameterised select twice in it. */
async function preparedIn(handle: DatabaseHandle, marker: string): Promise<string[]> {
  return handle.db.transaction(async (tx) => {
    for (let i = 0; i < 2; i++) await tx.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.name, marker));
    // postgres.js returns the rows as an array (the Database type is the union of both drivers').
    const rows = (await tx.execute(sql`select statement from pg_prepared_statements`)) as unknown as { statement: string }[];
    return rows.map((row) => row.statement).filter((statement) => statement.includes('"workspaces"'));
  });
}

it('prepares each statement once per PostgreSQL connection, in transactions too, unless turned off', async () => {
  const connection = database.connection;
  if (connection.driver === 'pglite') {
    // PGlite has no connections to keep statements on: the same select simply runs.
    expect(await database.db.select().from(workspaces).where(eq(workspaces.name, 'none'))).toEqual([]);
    return;
  }
  const prepared = await preparedIn(database, 'prepared marker');
  expect(prepared).toHaveLength(1);
  expect(prepared[0]).toContain('where "workspaces"."name" = $1');

  const unprepared = await openDatabase({ driver: 'postgres', url: connection.url, poolSize: 1, preparedStatements: false });
  try {
    expect(await preparedIn(unprepared, 'unprepared marker')).toEqual([]);
  } finally {
    await unprepared.close();
  }
});
