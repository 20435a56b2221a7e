import { sql } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { rowsOf } from '../../src/db/sql.js';
import { autovacuumMissing, DB_JOBS, runUpkeep, tablesDue, upkeepJobs } from '../../src/db/upkeep.js';
import { idempotencyKeys } from '../../src/db/schema/index.js';
import { jobDefinitions } from '../../src/jobs/registry.js';
import type { Services } from '../../src/services.js';
import { useHarness, useTenant } from '../support/harness.js';

// PGlite has no autovacuum: the upkeep job does its work there, by autovacuum's own thresholds; on PostgreSQL
// the launcher does it and the job does nothing.

const h = useHarness();
const t = useTenant(h);
const pglite = () => h.database.driver === 'pglite';

/** `count` idempotency keys written and then deleted: what a day of keyed calls and their purge leave behind. */
const churn = async (round: number, count: number) => {
  await h.db.execute(sql`insert into ${idempotencyKeys} (api_key_id, key, request_hash, state, created_at, locked_until)
    select ${t.apiKeyId}, ${`churn-${round}`} || '-' || n, 'hash', 'completed', now(), null from generate_series(1, ${count}) as n`);
  await h.db.execute(sql`delete from ${idempotencyKeys} where key like ${`churn-${round}-%`}`);
};
/** The table's statistics now: a session reports its counts at most once a second unless told to. */
const statsOf = async () => {
  await h.db.execute(sql`select pg_stat_force_next_flush()`);
  await h.db.execute(sql`select 1`);
  return rowsOf<{ dead: number; vacuumed: boolean; analysed: boolean; bytes: number }>(
    await h.db.execute(sql`select n_dead_tup::int as dead, last_vacuum is not null as vacuumed, last_analyze is not null as analysed,
      pg_relation_size(relid)::int as bytes from pg_stat_user_tables where relname = 'idempotency_keys'`),
  )[0];
};

it('is a job of its own, every five minutes', () => {
  const [job] = upkeepJobs({ db: h.db });
  expect(job).toMatchObject({ kind: DB_JOBS.upkeep, schedule: '*/5 * * * *' });
  expect(jobDefinitions({} as Services).map((definition) => definition.kind)).toContain(DB_JOBS.upkeep);
});

it('on PGlite vacuums and analyses a churning table, which then stops growing; on PostgreSQL leaves it to autovacuum or its operator', async () => {
  expect(await autovacuumMissing(h.db)).toBe(pglite());
  await churn(0, 3_000);
  if (!pglite()) {
    expect(await runUpkeep(h.db)).toEqual([]);
    return;
  }
  expect((await statsOf())?.dead).toBeGreaterThanOrEqual(3_000);
  expect(await tablesDue(h.db)).toContainEqual({ schema: 'public', table: 'idempotency_keys', vacuum: true, analyze: true });

  const done = await runUpkeep(h.db);
  expect(done).toContainEqual({ schema: 'public', table: 'idempotency_keys', vacuum: true, analyze: true });
  const after = await statsOf();
  expect(after).toMatchObject({ dead: 0, vacuumed: true, analysed: true });
  expect((await tablesDue(h.db)).map((due) => due.table)).not.toContain('idempotency_keys');

  // Four more rounds, each followed by the job: the space of the deleted keys is used again.
  for (let round = 1; round <= 4; round++) {
    await churn(round, 3_000);
    await runUpkeep(h.db);
  }
  expect((await statsOf())?.bytes).toBeLessThanOrEqual(after?.bytes ?? 0);
});

it('without it, the same churn on PGlite leaves every deleted row behind and the table grows each round', async () => {
  if (!pglite()) return;
  await runUpkeep(h.db);
  const before = (await statsOf())?.bytes ?? 0;
  for (let round = 10; round < 14; round++) await churn(round, 3_000);
  const after = await statsOf();
  expect(after?.dead).toBeGreaterThanOrEqual(4 * 3_000);
  expect(after?.bytes).toBeGreaterThan(before + 3 * 3_000 * 50);
});

it('stops between tables when its deadline aborts it', async () => {
  if (!pglite()) return;
  await churn(20, 2_000);
  const aborted = new AbortController();
  aborted.abort();
  expect(await runUpkeep(h.db, aborted.signal)).toEqual([]);
  expect((await statsOf())?.dead).toBeGreaterThanOrEqual(2_000);
});
