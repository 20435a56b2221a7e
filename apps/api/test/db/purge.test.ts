import { sql } from 'drizzle-orm';
import { pino } from 'pino';
import { expect, it } from 'vitest';
import { deleteOlderThan } from '../../src/db/purge.js';
import { rowsOf } from '../../src/db/sql.js';
import { idempotencyKeys } from '../../src/db/schema/index.js';
import { IDEMPOTENCY_JOBS, IDEMPOTENCY_TTL_MS, idempotencyJobs } from '../../src/http/idempotency.js';
import { BOT_JOBS, botJobs } from '../../src/resources/meetings/bot-sync.js';
import type { MeetingJobDeps } from '../../src/resources/meetings/jobs.js';
import { meetingBotWebhooks } from '../../src/resources/meetings/table.js';
import { useHarness, useTenant } from '../support/harness.js';

// Purges of what expires (idempotency keys, webhook ids, stored responses past their retention) delete a batch per statement,
// oldest first: however much a busy hour left, no statement is longer than a batch (on PGlite, which runs in the
// server's thread, requests are served between batches). The idempotency purge is a scheduled job, once for the
// whole cluster.

const h = useHarness();
const t = useTenant(h);
const HOUR = 60 * 60 * 1000;

/** `count` keys of the tenant's API key, created `ageMs` before the harness's clock, named `prefix-n`. */
const seedKeys = async (prefix: string, count: number, ageMs: number) => {
  const createdAt = new Date(h.clock.now().getTime() - ageMs);
  await h.db.execute(sql`insert into ${idempotencyKeys} (api_key_id, key, request_hash, state, created_at, locked_until)
    select ${t.apiKeyId}, ${prefix} || '-' || n, 'hash', 'completed', ${createdAt.toISOString()}::timestamptz - n * interval '1 millisecond', null
    from generate_series(1, ${count}) as n`);
};
const keysNamed = async (prefix: string) =>
  rowsOf<{ count: number }>(await h.db.execute(sql`select count(*)::int as count from ${idempotencyKeys} where key like ${`${prefix}-%`}`))[0]?.count;
const jobContext = (signal = new AbortController().signal) => ({ jobId: 'job_1', attempt: 0, signal, log: pino({ level: 'silent' }) });

it('the hourly job deletes every key past its 24 h in batches and keeps the rest', async () => {
  await seedKeys('expired', 4_500, IDEMPOTENCY_TTL_MS + HOUR);
  await seedKeys('live', 20, IDEMPOTENCY_TTL_MS - HOUR);
  const [job] = idempotencyJobs({ db: h.db, clock: h.clock });
  expect(job).toMatchObject({ kind: IDEMPOTENCY_JOBS.purge, schedule: '53 * * * *' });
  await job!.run({}, jobContext());
  expect(await keysNamed('expired')).toBe(0);
  expect(await keysNamed('live')).toBe(20);
});

it('deletes oldest first, at most a batch per statement, and stops between batches when its signal aborts', async () => {
  await seedKeys('old', 250, IDEMPOTENCY_TTL_MS + 2 * HOUR);
  await seedKeys('older', 250, IDEMPOTENCY_TTL_MS + 3 * HOUR);
  const cutoff = new Date(h.clock.now().getTime() - IDEMPOTENCY_TTL_MS);
  const stop = new AbortController();
  stop.abort();
  expect(await deleteOlderThan(h.db, idempotencyKeys, idempotencyKeys.createdAt, cutoff, { batch: 100, signal: stop.signal })).toBe(100);
  expect(await keysNamed('older')).toBe(150);
  expect(await keysNamed('old')).toBe(250);
  expect(await deleteOlderThan(h.db, idempotencyKeys, idempotencyKeys.createdAt, cutoff, { batch: 100 })).toBe(400);
  expect(await keysNamed('older')).toBe(0);
  expect(await keysNamed('old')).toBe(0);
});

it('the hourly webhook-id prune forgets ids past the provider’s retry window (25 h) and keeps the rest', async () => {
  const at = (ageMs: number) => new Date(h.clock.now().getTime() - ageMs).toISOString();
  await h.db.execute(sql`insert into ${meetingBotWebhooks} (message_id, received_at)
    select 'old-' || n, ${at(26 * HOUR)}::timestamptz - n * interval '1 second' from generate_series(1, 2500) as n
    union all select 'recent-' || n, ${at(HOUR)}::timestamptz from generate_series(1, 5) as n`);
  const job = botJobs({ db: h.db, clock: h.clock } as unknown as MeetingJobDeps).find((definition) => definition.kind === BOT_JOBS.prune);
  expect(job?.schedule).toBe('41 * * * *');
  await job!.run({}, jobContext());
  const left = rowsOf<{ message_id: string }>(await h.db.execute(sql`select message_id from ${meetingBotWebhooks} order by message_id`));
  expect(left.map((row) => row.message_id)).toEqual(['recent-1', 'recent-2', 'recent-3', 'recent-4', 'recent-5']);
});
