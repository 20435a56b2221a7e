// Money under concurrency (issue 17): flat-priced creates, token-priced calls and one Idempotency-Key
// sent many times at once never take more than the balance, never answer for free and never charge twice.
// Runs on PGlite (requests serialise on one connection) and on PostgreSQL (they really race).
import { and, eq, sql } from 'drizzle-orm';
import { createOfflineEngine } from '@persona-api/engine';
import { beforeAll, describe, expect, it } from 'vitest';
import { accounts, creditLedger, creditReservations, personas } from '../../src/db/schema/index.js';
import { loadBundledNewsIfEmpty } from '../../src/resources/news/feeds.js';
import { errorOf, useHarness, type ApiResponse, type Tenant } from '../support/harness.js';

const h = useHarness();

// News analyses and digests need stories: the bundled ones, as a fresh server loads them.
beforeAll(async () => {
  await loadBundledNewsIfEmpty(h.db, createOfflineEngine(), h.clock.now());
});

const PERSONA_PRICE = 300;
const RESPONSE = { model: 'service-1', persona_id: 'persona_saas_cfo', input: 'What would make you switch finance tools this quarter?' };

async function money(t: Tenant) {
  const [account] = await h.db.select({ balance: accounts.creditBalance }).from(accounts).where(eq(accounts.id, t.accountId));
  const [ledger] = await h.db
    .select({
      total: sql<string>`coalesce(sum(${creditLedger.amount}), 0)`,
      charged: sql<string>`coalesce(-sum(${creditLedger.amount}) filter (where ${creditLedger.kind} = 'charge'), 0)`,
      charges: sql<string>`count(*) filter (where ${creditLedger.kind} = 'charge')`,
    })
    .from(creditLedger)
    .where(eq(creditLedger.accountId, t.accountId));
  const held = await h.db.select().from(creditReservations).where(eq(creditReservations.accountId, t.accountId));
  return {
    balance: account?.balance ?? Number.NaN,
    ledgerTotal: Number(ledger?.total),
    charged: Number(ledger?.charged),
    charges: Number(ledger?.charges),
    held: held.length,
  };
}

function statuses(responses: ApiResponse[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const r of responses) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
}

describe('money under concurrency', () => {
  it('100 concurrent flat-priced creates on a balance for 10: exactly 10, never negative, ledger equals usage', async () => {
    const t = await h.tenant({ credits: 10 * PERSONA_PRICE });
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        h.post('/personas', t.key, { description: `A logistics buyer number ${i} who compares fleet software.`, workspace_id: t.workspaceId }),
      ),
    );
    expect(statuses(responses)).toEqual({ 200: 10, 402: 90 });
    for (const refused of responses.filter((r) => r.status === 402)) expect(errorOf(refused).code).toBe('insufficient_credits');
    const after = await money(t);
    expect(after).toEqual({ balance: 0, ledgerTotal: 0, charged: 10 * PERSONA_PRICE, charges: 10, held: 0 });
    const stored = await h.db
      .select({ id: personas.id })
      .from(personas)
      .where(and(eq(personas.workspaceId, t.workspaceId), eq(personas.isCustom, true)));
    expect(stored).toHaveLength(10);
    const usage = await h.get('/usage', t.key);
    expect(usage.body.credits.used).toBe(after.charged);
  });

  it('40 concurrent token-priced calls on a balance for 8: at most 8 answered, each paid in full', async () => {
    // What one call costs, measured on another account.
    const probe = await h.tenant();
    const one = await h.post('/responses', probe.key, RESPONSE);
    expect(one.status).toBe(200);
    const price = one.body.usage.credits_used as number;
    expect(price).toBeGreaterThan(0);

    const t = await h.tenant({ credits: 8 * price });
    const responses = await Promise.all(Array.from({ length: 40 }, () => h.post('/responses', t.key, RESPONSE)));
    const answered = responses.filter((r) => r.status === 200);
    expect(answered.length).toBeGreaterThan(0);
    expect(answered.length).toBeLessThanOrEqual(8);
    expect(answered.length + responses.filter((r) => r.status === 402).length).toBe(40);
    // No free answers: every answer was charged its full price.
    for (const r of answered) expect(r.body.usage.credits_used).toBe(price);
    const after = await money(t);
    expect(after.balance).toBeGreaterThanOrEqual(0);
    expect(after.charged).toBe(answered.length * price);
    expect(after.charges).toBe(answered.length);
    expect(after.ledgerTotal).toBe(after.balance);
    expect(after.held).toBe(0);
    // The credits left still serve calls one at a time until they run out: at most 8 in all.
    let total = answered.length;
    for (let i = 0; i < 10; i++) if ((await h.post('/responses', t.key, RESPONSE)).status === 200) total++;
    expect(total).toBe(8);
    expect((await money(t)).balance).toBe(0);
  });

  // Every other token-priced feature holds credits the same way (billing/credits.ts, holdCredits).
  const STORY_QUERY = '/news/stories?limit=1';
  const tokenPriced: [string, (t: Tenant) => Promise<() => Promise<ApiResponse>>][] = [
    [
      'generations',
      async (t) => () =>
        h.post('/generations', t.key, {
          app_id: 'app_linkedin_post',
          workspace_id: t.workspaceId,
          input_data: { topic: 'Our cold brew concentrate is slow-steeped for 18 hours from washed Colombian beans.', post_length: 'long' },
        }),
    ],
    [
      'research-agent answers',
      async (t) => () =>
        h
          .post('/agent/threads', t.key, { workspace_id: t.workspaceId })
          .then((thread) => h.post(`/agent/threads/${thread.body.id}/messages`, t.key, { content: 'How much are software companies raising prices?' })),
    ],
    [
      'news analyses',
      async (t) => {
        const story = (await h.get(STORY_QUERY, t.key)).body.data[0];
        return () => h.post(`/news/stories/${story.id}/analyze`, t.key, { persona_id: 'persona_saas_cfo' });
      },
    ],
    ['news digests', async (t) => () => h.post('/news/digests', t.key, { persona_id: 'persona_saas_cfo', period: 'last_30_days', max_stories: 3 })],
    [
      'focus groups',
      async (t) => () =>
        h.post('/focus-groups', t.key, {
          question: 'Would you pay 10 percent more for same-day support?',
          persona_ids: ['persona_saas_cfo', 'persona_restaurant_owner'],
        }),
    ],
  ];
  it.each(tokenPriced)('%s: 16 concurrent calls on a balance for 4 answer at most 4, none for free, no hold left', async (_name, prepare) => {
    const probe = await h.tenant();
    const single = await (await prepare(probe))();
    expect(single.status).toBe(200);
    const price = (await money(probe)).charged;
    expect(price).toBeGreaterThan(0);

    const t = await h.tenant({ credits: 4 * price });
    const call = await prepare(t);
    const responses = await Promise.all(Array.from({ length: 16 }, () => call()));
    const answered = responses.filter((r) => r.status === 200);
    const refused = responses.filter((r) => r.status === 402);
    expect(answered.length).toBeGreaterThan(0);
    expect(answered.length).toBeLessThanOrEqual(4);
    expect(answered.length + refused.length).toBe(16);
    for (const r of refused) expect(errorOf(r).code).toBe('insufficient_credits');
    const after = await money(t);
    // Never for free: every answer was charged. An answer can cost a little more than the probe's (the agent's
    // search results vary with what ran beside it); then only the last charge can fall short, when the balance
    // ran out (the bounded overshoot of DECISIONS.md). The ledger and the balance agree; no hold outlives its call.
    expect(after.charged).toBeGreaterThan((answered.length - 1) * price);
    expect(after.charged).toBeLessThanOrEqual(4 * price);
    expect(after.charges).toBe(answered.length);
    expect(after.balance).toBeGreaterThanOrEqual(0);
    expect(after.ledgerTotal).toBe(after.balance);
    expect(after.held).toBe(0);
  });

  it('20 concurrent requests with one Idempotency-Key: one execution, one charge', async () => {
    const t = await h.tenant({ credits: 10 * PERSONA_PRICE });
    const body = { description: 'A procurement manager who buys fleet telematics.', workspace_id: t.workspaceId };
    const responses = await Promise.all(Array.from({ length: 20 }, () => h.post('/personas', t.key, body, { 'Idempotency-Key': 'one-key-twenty-times' })));
    const ok = responses.filter((r) => r.status === 200);
    const executed = ok.filter((r) => r.headers['idempotent-replayed'] !== 'true');
    expect(executed).toHaveLength(1);
    // The rest replayed the same persona, or were told the first was still running.
    for (const r of ok) expect(r.body.id).toBe(executed[0]?.body.id);
    for (const r of responses.filter((r) => r.status !== 200)) expect(errorOf(r)).toMatchObject({ code: 'idempotency_key_in_use' });
    expect(await money(t)).toMatchObject({ charged: PERSONA_PRICE, charges: 1, balance: 9 * PERSONA_PRICE });
    const again = await h.post('/personas', t.key, body, { 'Idempotency-Key': 'one-key-twenty-times' });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(executed[0]?.body.id);
    expect((await money(t)).charges).toBe(1);
  });
});
