import { sql } from 'drizzle-orm';
import { pino } from 'pino';
import { expect, it } from 'vitest';
import { deleteOlderThan } from '../../src/db/purge.js';
import { rowsOf } from '../../src/db/sql.js';
import { BILLING_JOBS, billingJobs, EXPIRED_HOLD_KEPT_MS } from '../../src/billing/holds-purge.js';
import { apiKeys, creditReservations, idempotencyKeys } from '../../src/db/schema/index.js';
import { CONSOLE_JOBS, consoleJobs } from '../../src/resources/console/purge.js';
import { consoleSessions, consoleSetupTokens } from '../../src/resources/console/table.js';
import { IDEMPOTENCY_JOBS, IDEMPOTENCY_TTL_MS, idempotencyJobs } from '../../src/http/idempotency.js';
import { BOT_JOBS, botJobs } from '../../src/resources/meetings/bot-sync.js';
import type { MeetingJobDeps } from '../../src/resources/meetings/jobs.js';
import { meetingBotWebhooks } from '../../src/resources/meetings/table.js';
import { useHarness, useTenant } from '../support/harness.js';

// Purges of what expires (idempotency keys, webhook ids, stored responses past their retention, console sessions, credit holds) delete a batch per statement,
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

it('the daily console purge deletes sessions and setup links expired over 30 days ago, keeps the rest, and a browser key keeps its row', async () => {
  const DAY = 24 * HOUR;
  const at = (ageMs: number) => new Date(h.clock.now().getTime() - ageMs).toISOString();
  // 2 500 sign-ins long expired (more than a batch), one expired last week, one live; setup links likewise.
  await h.db.execute(sql`insert into ${consoleSessions} (id, user_id, account_id, token_hash, csrf_token, created_at, expires_at, ended_at)
    select 'csn_old_' || n, ${t.userId}, ${t.accountId}, md5('old' || n), 'csrf', ${at(40 * DAY)}::timestamptz, ${at(31 * DAY)}::timestamptz - n * interval '1 minute', null
    from generate_series(1, 2500) as n
    union all select 'csn_last_week', ${t.userId}, ${t.accountId}, md5('last week'), 'csrf', ${at(8 * DAY)}::timestamptz, ${at(7 * DAY)}::timestamptz, ${at(7 * DAY)}::timestamptz
    union all select 'csn_live', ${t.userId}, ${t.accountId}, md5('live'), 'csrf', ${at(HOUR)}::timestamptz, ${at(-11 * HOUR)}::timestamptz, null`);
  await h.db.execute(sql`insert into ${consoleSetupTokens} (token_hash, user_id, created_at, expires_at, used_at)
    values (md5('setup old'), ${t.userId}, ${at(35 * DAY)}::timestamptz, ${at(32 * DAY)}::timestamptz, ${at(34 * DAY)}::timestamptz),
      (md5('setup recent'), ${t.userId}, ${at(5 * DAY)}::timestamptz, ${at(2 * DAY)}::timestamptz, null)`);
  // A browser key of one of the old sessions, revoked long ago: usage and the ledger may name it.
  await h.db.execute(sql`insert into ${apiKeys} (id, account_id, user_id, name, key_hash, key_prefix, created_at, revoked_at, console_session_id, expires_at)
    values ('key_purge_browser', ${t.accountId}, ${t.userId}, 'Console (browser)', md5('purge browser'), 'svc_live_old', ${at(40 * DAY)}::timestamptz,
      ${at(39 * DAY)}::timestamptz, 'csn_old_1', ${at(31 * DAY)}::timestamptz)`);
  const [job] = consoleJobs({ db: h.db, clock: h.clock });
  expect(job).toMatchObject({ kind: CONSOLE_JOBS.purge, schedule: '41 4 * * *' });
  await job!.run({}, jobContext());

  const sessions = rowsOf<{ id: string }>(await h.db.execute(sql`select id from ${consoleSessions} where user_id = ${t.userId} order by id`));
  expect(sessions.map((row) => row.id)).toEqual(['csn_last_week', 'csn_live']);
  const links = rowsOf<{ count: number }>(await h.db.execute(sql`select count(*)::int as count from ${consoleSetupTokens} where user_id = ${t.userId}`));
  expect(links[0]?.count).toBe(1);
  const key = rowsOf<{ console_session_id: string }>(await h.db.execute(sql`select console_session_id from ${apiKeys} where id = 'key_purge_browser'`));
  expect(key).toEqual([{ console_session_id: 'csn_old_1' }]);
});

it('the hourly hold purge deletes holds expired over a day ago (left by crashed processes) and keeps the rest, which still count', async () => {
  const at = (ageMs: number) => new Date(h.clock.now().getTime() - ageMs).toISOString();
  // 2 500 holds of calls whose process died long ago (more than a batch), one expired an hour ago, one running.
  await h.db.execute(sql`insert into ${creditReservations} (id, account_id, credits, created_at, expires_at)
    select 'hold_old_' || n, ${t.accountId}, 5, ${at(3 * 24 * HOUR)}::timestamptz, ${at(2 * 24 * HOUR)}::timestamptz - n * interval '1 second'
    from generate_series(1, 2500) as n
    union all select 'hold_recent', ${t.accountId}, 5, ${at(2 * HOUR)}::timestamptz, ${at(HOUR)}::timestamptz
    union all select 'hold_running', ${t.accountId}, 7, ${at(0)}::timestamptz, ${at(-15 * 60 * 1000)}::timestamptz`);
  const [job] = billingJobs({ db: h.db, clock: h.clock });
  expect(job).toMatchObject({ kind: BILLING_JOBS.purgeHolds, schedule: '47 * * * *' });
  await job!.run({}, jobContext());
  const left = rowsOf<{ id: string }>(await h.db.execute(sql`select id from ${creditReservations} where account_id = ${t.accountId} order by id`));
  expect(left.map((row) => row.id)).toEqual(['hold_recent', 'hold_running']);
  expect(EXPIRED_HOLD_KEPT_MS).toBe(24 * HOUR);
});
