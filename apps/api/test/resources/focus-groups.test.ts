import {
  createOfflineEngine,
  EngineError,
  focusGroupAnswer,
  type Engine,
  type Feature,
  type FocusGroupAnswerInput,
  type RunOptions,
} from '@persona-api/engine';
import type { FakeUpstream } from '@persona-api/engine/testing';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { focusGroups } from '../../src/db/schema/index.js';
import { balanceOf, chargesOf, fakeUpstreamEngine, SwitchableEngine } from '../support/ai.js';
import { errorOf, Harness, type Tenant } from '../support/harness.js';

// Focus groups: 2–10 personas answer in parallel through the engine (offline and upstream), the row is
// readable in_progress with the answers so far, the moderator summary comes after the last answer with
// the sentiment breakdown counted in code, billing by tokens, a failing persona fails the group at no
// cost, list and read, validation, 402, roles.

let h: Harness;
let t: Tenant;
let fake: FakeUpstream;
let upstreamEngine: Engine;
const engine = new SwitchableEngine(createOfflineEngine());

beforeAll(async () => {
  ({ fake, engine: upstreamEngine } = await fakeUpstreamEngine());
  h = await Harness.create({ engine });
  t = await h.tenant({ credits: 10_000 });
});
afterAll(async () => {
  await h.close();
  await fake.close();
});

const QUESTION = 'We plan to raise the Pro plan from 49 to 59 euros a month and add unlimited brand voices. How do you react, and would you stay?';
const PERSONAS = ['persona_saas_cfo', 'persona_genz_sneaker_enthusiast', 'persona_restaurant_owner'];

/** The offline engine, except that focus-group answers of the given personas wait for, or fail with, what the test decides. */
function steeredEngine(steer: (persona: string) => Promise<void> | undefined): Engine {
  const offline = createOfflineEngine();
  return new Proxy(offline, {
    get(target, property, receiver) {
      if (property !== 'run') return Reflect.get(target, property, receiver);
      return async <I, O>(feature: Feature<I, O>, input: I, options?: RunOptions) => {
        if (feature.name === focusGroupAnswer.name) await steer((input as FocusGroupAnswerInput).persona.id);
        return target.run(feature, input, options);
      };
    },
  });
}

describe('running a focus group', () => {
  it('asks every persona, in request order, summarises, counts the sentiments and bills the tokens', async () => {
    const before = await balanceOf(h, t.accountId);
    const custom = (
      await h.post('/personas', t.key, { description: 'Owner of a two-person bakery selling online, careful with every euro of software spend.' })
    ).body;
    const afterPersona = await balanceOf(h, t.accountId);
    expect(afterPersona).toBe(before - 300);
    const ids = [custom.id, ...PERSONAS];
    const res = await h.post('/focus-groups', t.key, { question: QUESTION, persona_ids: ids, instructions: 'Mention what would make you cancel.' });
    expect(res.status).toBe(200);
    const group = res.body;
    expect(group).toMatchObject({
      object: 'focus_group',
      status: 'completed',
      question: QUESTION,
      persona_ids: ids,
      workspace_id: t.workspaceId,
      instructions: 'Mention what would make you cancel.',
    });
    expect(group.id).toMatch(/^fg_/);
    expect(group.answers.map((answer: any) => answer.persona.id)).toEqual(ids);
    expect(group.answers[0].persona).toEqual({ id: custom.id, name: custom.name, category: custom.category });
    // Each persona answers from its own profile: four different answers.
    expect(new Set(group.answers.map((answer: any) => answer.answer)).size).toBe(4);
    const counted = { positive: 0, neutral: 0, negative: 0, mixed: 0 } as Record<string, number>;
    for (const answer of group.answers) counted[answer.sentiment]! += 1;
    expect(group.summary.sentiment_breakdown).toEqual(counted);
    expect(group.summary.consensus.length).toBeGreaterThan(0);
    // Disagreements name personas of the group.
    for (const line of group.summary.disagreements) expect(group.answers.some((answer: any) => line.startsWith(answer.persona.name))).toBe(true);

    const { usage } = group;
    expect(usage.total_tokens).toBe(usage.input_tokens + usage.output_tokens);
    expect(usage.credits_used).toBe(Math.ceil(usage.total_tokens / 100));
    expect(await balanceOf(h, t.accountId)).toBe(afterPersona - usage.credits_used);
    const charges = await chargesOf(h, t.accountId);
    expect(charges.at(-1)).toMatchObject({ amount: -usage.credits_used, workspaceId: t.workspaceId });

    const read = await h.get(`/focus-groups/${group.id}`, t.key);
    expect(read.body).toEqual(group);
  });

  it('is readable in_progress with the answers so far, and summarised only after the last answer', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const slow = PERSONAS[1]!;
    const pending = engine.using(
      steeredEngine((persona) => (persona === slow ? held : undefined)),
      () => h.post('/focus-groups', t.key, { question: 'Would you try a meal-kit subscription that costs 10 percent less?', persona_ids: PERSONAS }),
    );
    let during: any;
    // The slow persona's answer is held, so the two-answer state lasts until release(): wait for it by time
    // (10 s), not by a count of loop turns, which a loaded machine used up before the two answers were stored.
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
      const [row] = await h.db.select().from(focusGroups).where(eq(focusGroups.question, 'Would you try a meal-kit subscription that costs 10 percent less?'));
      if (row && row.answers.filter((answer) => answer !== null).length === 2) {
        during = (await h.get(`/focus-groups/${row.id}`, t.key)).body;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(during).toMatchObject({ status: 'in_progress', summary: null, usage: { credits_used: 0 } });
    expect(during.answers.map((answer: any) => answer.persona.id)).toEqual([PERSONAS[0], PERSONAS[2]]);
    expect(during.usage.input_tokens).toBeGreaterThan(0);
    release();
    const done = (await pending).body;
    expect(done.id).toBe(during.id);
    expect(done.status).toBe('completed');
    expect(done.answers.map((answer: any) => answer.persona.id)).toEqual(PERSONAS);
    expect(done.summary).not.toBeNull();
  });

  it('fails as a whole, at no cost, when one persona cannot answer; the answers already in stay readable', async () => {
    const tenant = await h.tenant({ credits: 5_000 });
    const res = await engine.using(
      steeredEngine((persona) => (persona === PERSONAS[2] ? Promise.reject(new EngineError('upstream_error', 'The model provider failed.')) : undefined)),
      () => h.post('/focus-groups', tenant.key, { question: 'How do you feel about paying yearly instead of monthly?', persona_ids: PERSONAS }),
    );
    expect(res.status).toBe(502);
    expect(errorOf(res)).toMatchObject({ code: 'upstream_error' });
    expect(await balanceOf(h, tenant.accountId)).toBe(5_000);
    expect(await chargesOf(h, tenant.accountId)).toEqual([]);
    const [listed] = (await h.get('/focus-groups', tenant.key)).body.data;
    expect(listed).toMatchObject({ status: 'failed', summary: null, usage: { credits_used: 0 } });
    expect(listed.answers.every((answer: any) => answer.persona.id !== PERSONAS[2])).toBe(true);
  });

  it('runs through an upstream model: one call per persona with its own system prompt, then the moderator', async () => {
    const answer = (text: string, sentiment: string) => ({ content: JSON.stringify({ answer: text, sentiment, key_points: [text], confidence: 0.8 }) });
    fake.enqueue(answer('I would stay.', 'positive'), answer('I would leave.', 'negative'));
    fake.enqueue({
      content: JSON.stringify({
        consensus: 'They split.',
        disagreements: ['One stays, one leaves.'],
        key_themes: ['price'],
        recommendations: ['Lock prices.'],
      }),
      usage: { prompt_tokens: 400, completion_tokens: 50 },
    });
    const seen = fake.requests.length;
    const res = await engine.using(upstreamEngine, () => h.post('/focus-groups', t.key, { question: QUESTION, persona_ids: PERSONAS.slice(0, 2) }));
    expect(res.status).toBe(200);
    const requests = fake.requests.slice(seen);
    expect(requests.map((request) => request.body.response_format.json_schema.name)).toEqual([
      'focus_group_answer',
      'focus_group_answer',
      'focus_group_summary',
    ]);
    expect(new Set(requests.slice(0, 2).map((request) => request.body.messages[0].content)).size).toBe(2);
    const group = res.body;
    expect(group.summary).toMatchObject({ consensus: 'They split.', recommendations: ['Lock prices.'] });
    // The breakdown is counted from the answers, whatever the model says.
    const sentiments = group.answers.map((entry: any) => entry.sentiment).sort();
    expect(sentiments).toEqual(['negative', 'positive']);
    expect(group.summary.sentiment_breakdown).toEqual({ positive: 1, neutral: 0, negative: 1, mixed: 0 });
    expect(group.usage.input_tokens).toBeGreaterThanOrEqual(400);
    expect(group.usage.credits_used).toBe(Math.ceil(group.usage.total_tokens / 100));
  });
});

describe('requests the API refuses', () => {
  it('names the unknown persona, refuses duplicates and too few personas, and a 402 stores nothing', async () => {
    expect(errorOf(await h.post('/focus-groups', t.key, { question: QUESTION, persona_ids: [PERSONAS[0], 'persona_nobody'] }))).toMatchObject({
      code: 'resource_not_found',
      param: 'persona_ids.1',
    });
    expect((await h.post('/focus-groups', t.key, { question: QUESTION, persona_ids: [PERSONAS[0], PERSONAS[0]] })).status).toBe(400);
    expect((await h.post('/focus-groups', t.key, { question: QUESTION, persona_ids: [PERSONAS[0]] })).status).toBe(400);
    const poor = await h.tenant({ credits: 1 });
    expect(errorOf(await h.post('/focus-groups', poor.key, { question: QUESTION, persona_ids: PERSONAS }))).toMatchObject({ code: 'insufficient_credits' });
    expect((await h.get('/focus-groups', poor.key)).body.data).toEqual([]);
    expect(await balanceOf(h, poor.accountId)).toBe(1);
  });

  it('follows the workspace roles: a viewer reads, only roles with paid AI calls run groups', async () => {
    const owner = await h.tenant({ credits: 5_000 });
    const team = (await h.post('/workspaces', owner.key, { name: 'Research' })).body.id;
    const viewer = await h.tenant();
    const analyst = await h.tenant();
    await h.post(`/workspaces/${team}/members`, owner.key, { email: viewer.email, role: 'viewer' });
    await h.post(`/workspaces/${team}/members`, owner.key, { email: analyst.email, role: 'analyst' });
    expect(errorOf(await h.post('/focus-groups', viewer.key, { question: QUESTION, persona_ids: PERSONAS.slice(0, 2), workspace_id: team }))).toMatchObject({
      code: 'permission_denied',
    });
    const made = await h.post('/focus-groups', analyst.key, { question: QUESTION, persona_ids: PERSONAS.slice(0, 2), workspace_id: team });
    expect(made.status).toBe(200);
    expect((await h.get(`/focus-groups/${made.body.id}`, viewer.key)).body.id).toBe(made.body.id);
    expect((await h.get(`/focus-groups?workspace_id=${team}`, viewer.key)).body.data.map((group: any) => group.id)).toEqual([made.body.id]);
  });
});

describe('the focus group list', () => {
  it('pages newest first, filters by workspace and by words of the question', async () => {
    const tenant = await h.tenant({ credits: 5_000 });
    const made: string[] = [];
    for (const topic of ['pricing', 'packaging', 'pricing tiers']) {
      h.clock.advance(1_000);
      made.push((await h.post('/focus-groups', tenant.key, { question: `What do you think of our ${topic}?`, persona_ids: PERSONAS.slice(0, 2) })).body.id);
    }
    const first = await h.get('/focus-groups?limit=2', tenant.key);
    expect(first.body.data.map((group: any) => group.id)).toEqual([made[2], made[1]]);
    expect(first.body.has_more).toBe(true);
    const second = await h.get(`/focus-groups?limit=2&cursor=${first.body.next_cursor}`, tenant.key);
    expect(second.body.data.map((group: any) => group.id)).toEqual([made[0]]);
    expect((await h.get('/focus-groups?search=PRICING', tenant.key)).body.data.map((group: any) => group.id)).toEqual([made[2], made[0]]);
    expect((await h.get(`/focus-groups?workspace_id=${tenant.workspaceId}&search=packaging`, tenant.key)).body.data.map((group: any) => group.id)).toEqual([
      made[1],
    ]);
    expect(errorOf(await h.get('/focus-groups/fg_doesNotExist1234', tenant.key))).toMatchObject({ code: 'resource_not_found' });
  });
});
