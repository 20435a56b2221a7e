import { readFileSync } from 'node:fs';
import { eq, sql } from 'drizzle-orm';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../src/admin/accounts.js';
import { grantCredits } from '../../src/billing/credits.js';
import { UsageRecorder } from '../../src/billing/usage-recorder.js';
import { accounts, apiUsageDaily } from '../../src/db/schema/index.js';
import { rowsOf } from '../../src/db/sql.js';
import { insertFileRow } from '../../src/resources/files/repository.js';
import { chargedCreateAgentThread, PRICE } from '../support/charged-handler.js';
import { useHarness } from '../support/harness.js';

// GET /usage reports the billing period, credits, storage, API requests per key,
// rate limit, auto-recharge and limits, from real data.

const h = useHarness({ handlers: { createAgentThread: chargedCreateAgentThread } });

describe('GET /usage', () => {
  it('reports the figures of the current billing period from the ledger, files and request counters', async () => {
    const t = await h.tenant({ tier: 'professional', credits: 5_000 });
    const { id: secondKeyId, key: secondKey } = await createApiKey(h.db, { accountId: t.accountId, name: 'Staging' });
    await grantCredits(h.db, { accountId: t.accountId, amount: 1_000, description: 'Purchase', now: h.clock.now() });
    await h.db
      .update(accounts)
      .set({ autoRechargeEnabled: true, autoRechargeThreshold: 100, autoRechargeCredits: 2_000, budgetAlert: 4_000, usageLimit: 6_000 })
      .where(eq(accounts.id, t.accountId));
    await insertFileRow(h.db, {
      id: `file_u${Date.now()}`,
      workspaceId: t.workspaceId,
      name: 'deck.pdf',
      sizeBytes: 2_500_000_000,
      createdAt: h.clock.now(),
      updatedAt: h.clock.now(),
    });

    // Key 1: two paid calls (120 + 80 tokens each) and one 404; key 2: one call, then revoked.
    expect((await h.post('/agent/threads', t.key, { workspace_id: t.workspaceId })).status).toBe(200);
    expect((await h.post('/agent/threads', t.key, { workspace_id: t.workspaceId })).status).toBe(200);
    expect((await h.get('/projects/proj_missing', t.key)).status).toBe(404);
    expect((await h.get('/workspaces', secondKey)).status).toBe(200);
    await revokeApiKey(h.db, secondKeyId);

    const res = await h.get('/usage', t.key);
    expect(res.status).toBe(200);
    const usage = res.body;
    expect(usage.object).toBe('usage');
    expect(usage.billing_period).toEqual({ start: '2026-11-01T00:00:00.000Z', end: '2026-12-01T00:00:00.000Z' });
    expect(usage.credits).toEqual({ used: 2 * PRICE, included: 6_000, remaining: 6_000 - 2 * PRICE, percentage_used: 10 });
    expect(usage.storage).toEqual({ gb_used: 2.5, gb_included: 50, gb_remaining: 47.5, percentage_used: 5 });
    expect(usage.transcription).toMatchObject({ minutes_used: 0, minutes_included: 1_200 });
    expect(usage.rate_limit).toEqual({ tier: 'professional', requests_per_minute: 240 });
    expect(usage.auto_recharge).toEqual({ enabled: true, threshold: 100, credits_to_add: 2_000 });
    expect(usage.limits).toEqual({ budget_alert: 4_000, usage_limit: 6_000 });
    // Requests finished before this one: key 1 made 3, key 2 made 1.
    expect(usage.api_requests).toMatchObject({
      total_requests: 4,
      prompt_tokens: 240,
      completion_tokens: 160,
      total_tokens: 400,
      credits_used: 2 * PRICE,
      error_count: 1,
    });
    expect(
      usage.api_requests.by_key.map((k: { api_key_id: string; requests: number; errors: number; tokens: number }) => [
        k.api_key_id,
        k.requests,
        k.errors,
        k.tokens,
      ]),
    ).toEqual([
      [t.apiKeyId, 3, 1, 400],
      [secondKeyId, 1, 0, 0],
    ]);
    expect(usage.api_requests.by_key[1]).toMatchObject({ name: 'Staging', key_prefix: secondKey.slice(0, 13), last_used_at: h.clock.now().toISOString() });
    expect(usage.api_requests.avg_latency_ms).toBeGreaterThanOrEqual(0);
  });

  it('leaves out requests and charges of earlier periods', async () => {
    const t = await h.tenant({ credits: 5_000 });
    const start = h.clock.ms();
    try {
      h.clock.set('2026-10-20T10:00:00.000Z');
      expect((await h.post('/agent/threads', t.key, { workspace_id: t.workspaceId })).status).toBe(200);
      h.clock.set(new Date(start));
      const usage = (await h.get('/usage', t.key)).body;
      expect(usage.credits).toMatchObject({ used: 0, remaining: 5_000 - PRICE, included: 5_000 - PRICE });
      expect(usage.api_requests).toMatchObject({ total_requests: 0, credits_used: 0, by_key: [] });
      // The October request is in October's figures.
      h.clock.set('2026-10-25T10:00:00.000Z');
      const october = (await h.get('/usage', t.key)).body;
      expect(october.api_requests).toMatchObject({ total_requests: 1, credits_used: PRICE });
      expect(october.billing_period.start).toBe('2026-10-01T00:00:00.000Z');
    } finally {
      h.clock.set(new Date(start));
    }
  });

  it('shows only the caller’s account', async () => {
    const a = await h.tenant();
    const b = await h.tenant();
    await h.get('/workspaces', a.key);
    await h.get('/workspaces', b.key);
    const usage = (await h.get('/usage', b.key)).body;
    expect(usage.api_requests.by_key.map((k: { api_key_id: string }) => k.api_key_id)).toEqual([b.apiKeyId]);
  });
});

describe('request counters', () => {
  it('are written by one statement that commits on its own without a WAL flush: the connection commits the next statements synchronously again', async () => {
    const t = await h.tenant();
    const recorder = new UsageRecorder(h.db, pino({ level: 'silent' }), 60_000);
    const at = h.clock.now();
    for (const status of [200, 201, 404])
      recorder.record({ apiKeyId: t.apiKeyId, accountId: t.accountId, at, status, latencyMs: 4, promptTokens: 10, completionTokens: 5 });
    await recorder.close();
    const [row] = await h.db.select().from(apiUsageDaily).where(eq(apiUsageDaily.apiKeyId, t.apiKeyId));
    expect(row).toMatchObject({
      accountId: t.accountId,
      requests: 3,
      errors: 1,
      latencyMsTotal: 12,
      promptTokens: 30,
      completionTokens: 15,
      lastRequestAt: at,
    });
    // set_config(…, true) lasts to the end of the counters' own transaction, as for a credit hold: the pooled
    // connections that wrote them still commit a charge synchronously.
    const settings = await Promise.all(
      Array.from(
        { length: 5 },
        async () => rowsOf<{ value: string }>(await h.db.execute(sql`select current_setting('synchronous_commit') as value`))[0]?.value,
      ),
    );
    expect(settings).toEqual(Array(5).fill('on'));
  });
});

// Last in the file: it takes the database back to before migration 0025 (and its index) and runs 0025.
describe('migration 0025', () => {
  it('names each usage row’s account from its key, and GET /usage reads the same requests per key after it', async () => {
    const a = await h.tenant();
    const b = await h.tenant();
    const { key: second } = await createApiKey(h.db, { accountId: a.accountId, name: 'Second', now: h.clock.now() });
    for (const key of [a.key, a.key, second, b.key]) expect((await h.get('/workspaces', key)).status).toBe(200);
    await h.app.usageRecorder.flush();
    const byKeyOf = async (key: string) => (await h.get('/usage', key)).body.api_requests.by_key;
    const before = await byKeyOf(a.key);
    expect(before.map((row: { requests: number }) => row.requests)).toEqual([2, 1]);
    // That read is counted as its response ends: written now, before the column goes, so the recorder's
    // one-second flush has nothing to write, and drop on the missing column, while the migration runs.
    await new Promise((resolve) => setImmediate(resolve));
    await h.app.usageRecorder.flush();

    await h.db.execute(sql.raw('alter table api_usage_daily drop column account_id'));
    const migration = readFileSync(new URL('../../drizzle/0025_usage_by_account_and_console_keys.sql', import.meta.url), 'utf8');
    for (const statement of migration.split('--> statement-breakpoint')) await h.db.execute(sql.raw(statement));

    const rows = rowsOf<{ key_account: string; row_account: string }>(
      await h.db.execute(sql`select k.account_id as key_account, u.account_id as row_account from api_usage_daily u join api_keys k on k.id = u.api_key_id`),
    );
    expect(rows.length).toBeGreaterThanOrEqual(4);
    expect(rows.filter((row) => row.row_account !== row.key_account)).toEqual([]);
    const [column] = rowsOf<{ is_nullable: string }>(
      await h.db.execute(sql`select is_nullable from information_schema.columns where table_name = 'api_usage_daily' and column_name = 'account_id'`),
    );
    expect(column?.is_nullable).toBe('NO');
    // Minus the request that read it the first time.
    const after = await byKeyOf(a.key);
    expect(after.map((row: { api_key_id: string; requests: number }) => [row.api_key_id, row.requests])).toEqual([
      [before[0].api_key_id, 3],
      [before[1].api_key_id, 1],
    ]);
  });
});
