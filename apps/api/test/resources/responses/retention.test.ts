import { eq, sql } from 'drizzle-orm';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { modelResponses } from '../../../src/db/schema/index.js';
import { expireResponses, RESPONSE_JOBS, responseJobs } from '../../../src/resources/responses/retention.js';
import type { Services } from '../../../src/services.js';
import { chargesOf, storedResponsesOf } from '../../support/ai.js';
import { useHarness, useTenant } from '../../support/harness.js';

// RESPONSE_RETENTION_DAYS (DECISIONS.md, Responses): an hourly job deletes stored responses past it, in
// batches, oldest first; the ledger keeps their charges, and a conversation continues from what is kept.

const h = useHarness();
const t = useTenant(h, { credits: 100_000 });
const DAY = 24 * 60 * 60 * 1000;
const context = { jobId: 'job_1', attempt: 0, signal: new AbortController().signal, log: pino({ level: 'silent' }) };
/** What the job reads of the services: the database, the clock and the setting. */
const services = (responseRetentionDays?: number) => ({ db: h.db, clock: h.clock, responseRetentionDays }) as unknown as Services;
const ask = (input: string, previous?: string) =>
  h.post('/responses', t.key, { model: 'service-1', persona_id: 'persona_saas_cfo', input, ...(previous ? { previous_response_id: previous } : {}) });

describe('the retention setting', () => {
  it('is off unless RESPONSE_RETENTION_DAYS is set, and then a whole number of days', () => {
    expect(loadConfig({}).RESPONSE_RETENTION_DAYS).toBeUndefined();
    expect(loadConfig({ RESPONSE_RETENTION_DAYS: '30' }).RESPONSE_RETENTION_DAYS).toBe(30);
    expect(() => loadConfig({ RESPONSE_RETENTION_DAYS: '0' })).toThrow(/RESPONSE_RETENTION_DAYS/);
    expect(() => loadConfig({ RESPONSE_RETENTION_DAYS: 'forever' })).toThrow(/RESPONSE_RETENTION_DAYS/);
  });

  it('schedules no job without it, an hourly one with it', () => {
    expect(responseJobs(services())).toEqual([]);
    const [job] = responseJobs(services(30));
    expect(job).toMatchObject({ kind: RESPONSE_JOBS.expire, schedule: '29 * * * *' });
  });
});

describe('the expiry job', () => {
  it('deletes the responses older than the retention, keeps their charges, and a conversation continues from what is kept', async () => {
    const start = h.clock.now();
    const opening = await ask('My renewal date is March 3.');
    h.clock.advance(20 * DAY);
    const middle = await ask('Our warehouse is in Rotterdam.', opening.body.id);
    h.clock.advance(15 * DAY);
    const recent = await ask('Our accounting system is NetSuite.', middle.body.id);
    const charges = (await chargesOf(h, t.accountId)).length;

    const [job] = responseJobs(services(30));
    await job!.run({}, context);
    const kept = (await storedResponsesOf(h, t.accountId)).map((row) => row.id);
    expect(kept).not.toContain(opening.body.id);
    expect(kept).toEqual(expect.arrayContaining([middle.body.id, recent.body.id]));
    expect((await chargesOf(h, t.accountId)).length).toBe(charges);
    expect((await h.get(`/responses/${opening.body.id}`, t.key)).status).toBe(404);

    // The chain now starts at the middle turn: its words are recalled, the expired ones are not.
    const warehouse = await ask('What is my warehouse location?', recent.body.id);
    expect(warehouse.body.output[0].content[0].text).toBe('You said: “Our warehouse is in Rotterdam.”');
    const renewal = await ask('What is my renewal date?', recent.body.id);
    expect(renewal.body.output[0].content[0].text).not.toContain('March 3');
    h.clock.set(start);
  });

  it('works in batches, oldest first, until nothing past the cutoff is left', async () => {
    const template = await ask('Template?');
    const old = new Date(h.clock.now().getTime() - 90 * DAY);
    // 4 500 copies, older than the cutoff: three statements of the job's batch of 2 000.
    await h.db.execute(sql`insert into ${modelResponses} (id, object, account_id, workspace_id, api_key_id, request_id, persona_id, status, stream, engine,
        upstream_model, request, body, input_tokens, output_tokens, credits_used, turn_chars, created_at)
      select id || '_' || g, object, account_id, workspace_id, api_key_id, request_id, persona_id, status, stream, engine, upstream_model,
        request, body, input_tokens, output_tokens, credits_used, turn_chars, ${old.toISOString()}::timestamptz - g * interval '1 minute'
      from ${modelResponses}, generate_series(1, 4500) g where id = ${template.body.id}`);
    const deleted = await expireResponses(h.db, new Date(h.clock.now().getTime() - 30 * DAY));
    expect(deleted).toBe(4_500);
    expect(await h.db.select({ id: modelResponses.id }).from(modelResponses).where(eq(modelResponses.id, template.body.id))).toHaveLength(1);
    expect(await expireResponses(h.db, new Date(h.clock.now().getTime() - 30 * DAY))).toBe(0);
  });
});
