import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../src/admin/accounts.js';
import { grantCredits } from '../../src/billing/credits.js';
import { accounts } from '../../src/db/schema/index.js';
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
