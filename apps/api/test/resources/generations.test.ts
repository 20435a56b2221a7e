import { countTokens, createOfflineEngine, creditsForTokens, getBasePersona } from '@persona-api/engine';
import type { FakeUpstream } from '@persona-api/engine/testing';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { emptyVoice } from '../../src/resources/brand-voices/mapper.js';
import { brandVoices } from '../../src/resources/brand-voices/table.js';
import { generations } from '../../src/resources/generations/table.js';
import { balanceOf, chargesOf, events, eventually, fakeUpstreamEngine, postAndDisconnect, SwitchableEngine } from '../support/ai.js';
import { errorOf, Harness, type Tenant } from '../support/harness.js';

// Generations on both engines: input_data checked against the app's fields (codes and param paths), the
// persona and the brand voice conditioning the prompt, the voice's avoided terms never in the output
// (JSON or streamed, a term spanning deltas included), HTML apps safe as emitted, token charges and 402s,
// a client that leaves a stream (the generation is still stored and charged), lists with every filter,
// read, delete, roles.

let h: Harness;
let t: Tenant;
let fake: FakeUpstream;
let upstreamEngine: Awaited<ReturnType<typeof fakeUpstreamEngine>>['engine'];
const engine = new SwitchableEngine(createOfflineEngine());

beforeAll(async () => {
  const started = await fakeUpstreamEngine();
  fake = started.fake;
  upstreamEngine = started.engine;
  h = await Harness.create({ engine });
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  t = await h.tenant({ credits: 100_000 });
});
afterAll(async () => {
  await h.close();
  await fake.close();
});
beforeEach(() => {
  fake.setDefault(null);
});

const upstream = <T>(run: () => Promise<T>) => engine.using(upstreamEngine, run);

const TOPIC = 'Our new cold brew concentrate is slow-steeped for 18 hours from washed Colombian beans grown by the Ortega family in Huila.';
const post = (extra: Record<string, unknown> = {}, inputs: Record<string, unknown> = {}) => ({
  app_id: 'app_linkedin_post',
  input_data: { topic: TOPIC, post_length: 'long', ...inputs },
  ...extra,
});

/** A brand voice row in the workspace, as the learning job leaves it. */
async function voice(workspaceId: string, changes: Partial<typeof brandVoices.$inferInsert> = {}): Promise<string> {
  const id = newId('bv');
  const now = h.clock.now();
  await h.db.insert(brandVoices).values({
    id,
    workspaceId,
    label: 'House voice',
    usageContext: 'Marketing copy for the website.',
    status: 'completed',
    error: null,
    ...emptyVoice(),
    voiceSummary: 'Warm, concrete and short.',
    tone: { adjectives: ['warm', 'playful'], dos: ['Use concrete numbers'], donts: ['Overpromise'] },
    vocabulary: { preferred_terms: ['small-batch', 'hand-picked'], avoid_terms: ['cheap', 'world class'] },
    examplePhrases: [{ use_case: 'Tagline', example: 'Coffee that waits for you.' }],
    sources: { urls: [], documents: [] },
    creditsCharged: 100,
    createdAt: now,
    updatedAt: now,
    ...changes,
  });
  return id;
}

/** No word of `text` starts with an avoided term (the rule the server enforces). */
const AVOIDED = /(?<![\p{L}\p{N}_])(cheap|world\s+class)/iu;

const deltasOf = (body: string) =>
  events(body)
    .filter((entry) => entry.data.type === 'generation.output_text.delta')
    .map((entry) => entry.data.delta as string)
    .join('');

describe('creating a generation (offline engine)', () => {
  it('writes the app’s content, stores it, and charges its tokens', async () => {
    const before = await balanceOf(h, t.accountId);
    const res = await h.post('/generations', t.key, post());
    expect(res.status).toBe(200);
    const g = res.body;
    expect(g).toMatchObject({
      object: 'generation',
      content_type: 'markdown',
      workspace_id: t.workspaceId,
      project_id: null,
      brand_voice: null,
      persona: null,
    });
    expect(g.app).toEqual({ id: 'app_linkedin_post', name: 'LinkedIn Post', category: 'social_post' });
    expect(g.id).toMatch(/^gen_/);
    expect(g.content).toBe(g.output);
    // Computed from the input: its key sentence is quoted and its terms become hashtags.
    expect(g.output).toContain('Ortega family');
    expect(g.output).toMatch(/#\p{Lu}/u);
    expect(g.title).toMatch(/^LinkedIn Post: Our new cold brew/);
    expect(g.input_data).toEqual({ topic: TOPIC, post_length: 'long' });
    expect(g.usage.completion_tokens).toBe(countTokens(g.output));
    expect(g.usage.total_tokens).toBe(g.usage.prompt_tokens + g.usage.completion_tokens);
    expect(g.usage.credits_used).toBe(creditsForTokens(g.usage.total_tokens));
    expect(await balanceOf(h, t.accountId)).toBe(before - g.usage.credits_used);
    const read = await h.get(`/generations/${g.id}`, t.key);
    const { content: _content, usage: _usage, ...stored } = g;
    expect(read.body).toEqual(stored);
  });

  it('keeps a given title, and the same input gives the same text', async () => {
    const a = await h.post('/generations', t.key, post({ title: 'Launch teaser' }));
    const b = await h.post('/generations', t.key, post());
    expect(a.body.title).toBe('Launch teaser');
    expect(a.body.output).toBe(b.body.output);
  });

  it('replays an idempotent request without generating or charging again', async () => {
    const headers = { 'idempotency-key': `gen-${Date.now()}` };
    const before = await balanceOf(h, t.accountId);
    const first = await h.post('/generations', t.key, post(), headers);
    const again = await h.post('/generations', t.key, post(), headers);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await balanceOf(h, t.accountId)).toBe(before - first.body.usage.credits_used);
    expect((await h.db.select().from(generations).where(eq(generations.id, first.body.id))).length).toBe(1);
    expect(errorOf(await h.post('/generations', t.key, post({ title: 'Other' }), headers))).toMatchObject({ code: 'idempotency_key_reused' });
  });

  it('checks input_data against the app’s fields, with the documented codes and param paths', async () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ topic: TOPIC, mood: 'happy' }, 'unknown_parameter', 'input_data.mood'],
      [{ audience: 'Founders' }, 'missing_parameter', 'input_data.topic'],
      [{ topic: 42 }, 'invalid_parameter', 'input_data.topic'],
      [{ topic: '   ' }, 'invalid_parameter', 'input_data.topic'],
      [{ topic: 'x'.repeat(1001) }, 'invalid_parameter', 'input_data.topic'],
      [{ topic: TOPIC, audience: 'two\nlines' }, 'invalid_parameter', 'input_data.audience'],
      [{ topic: TOPIC, tone: 'sarcastic' }, 'invalid_parameter', 'input_data.tone'],
      [{ topic: TOPIC, include_hashtags: 'yes' }, 'invalid_parameter', 'input_data.include_hashtags'],
    ];
    const before = await balanceOf(h, t.accountId);
    for (const [input, code, param] of cases) {
      const res = await h.post('/generations', t.key, { app_id: 'app_linkedin_post', input_data: input });
      expect(res.status, JSON.stringify(input)).toBe(400);
      expect(errorOf(res), JSON.stringify(input)).toMatchObject({ code, param });
    }
    const ads = [
      [{ product: 'Socks', keywords: 'socks', headline_count: 2 }, 'input_data.headline_count'],
      [{ product: 'Socks', keywords: 'socks', headline_count: 'five' }, 'input_data.headline_count'],
      [{ product: 'Socks', keywords: 'socks', unique_selling_points: ['price', 'magic'] }, 'input_data.unique_selling_points'],
      [{ product: 'Socks', keywords: 'socks', unique_selling_points: 'price' }, 'input_data.unique_selling_points'],
    ] as const;
    for (const [input, param] of ads) {
      expect(errorOf(await h.post('/generations', t.key, { app_id: 'app_search_ad', input_data: input }))).toMatchObject({ code: 'invalid_parameter', param });
    }
    expect(await balanceOf(h, t.accountId)).toBe(before);
  });

  it('names what is unknown (404) or belongs elsewhere (400), and refuses a voice that is not completed (409)', async () => {
    expect(errorOf(await h.post('/generations', t.key, post({ app_id: 'app_nope' })))).toMatchObject({ code: 'resource_not_found', param: 'app_id' });
    expect(errorOf(await h.post('/generations', t.key, post({ persona_id: 'cp_nope' })))).toMatchObject({ code: 'resource_not_found', param: 'persona_id' });
    expect(errorOf(await h.post('/generations', t.key, post({ brand_voice_id: 'bv_nope' })))).toMatchObject({
      code: 'resource_not_found',
      param: 'brand_voice_id',
    });
    expect(errorOf(await h.post('/generations', t.key, post({ project_id: 'proj_nope' })))).toMatchObject({ code: 'resource_not_found', param: 'project_id' });
    expect(errorOf(await h.post('/generations', t.key, post({ workspace_id: 'ws_nope' })))).toMatchObject({
      code: 'resource_not_found',
      param: 'workspace_id',
    });

    // Created later, so the tenant's default workspace stays its first one.
    h.clock.advance(1000);
    const other = (await h.post('/workspaces', t.key, { name: 'Second brand' })).body.id;
    const elsewhere = await voice(other);
    expect(errorOf(await h.post('/generations', t.key, post({ brand_voice_id: elsewhere })))).toMatchObject({
      code: 'parameter_conflict',
      param: 'brand_voice_id',
    });
    expect((await h.post('/generations', t.key, post({ brand_voice_id: elsewhere, workspace_id: other }))).body.workspace_id).toBe(other);
    const project = (await h.post('/projects', t.key, { workspace_id: other, name: 'Elsewhere' })).body.id;
    expect(errorOf(await h.post('/generations', t.key, post({ project_id: project, workspace_id: t.workspaceId })))).toMatchObject({
      code: 'parameter_conflict',
      param: 'project_id',
    });
    // Without workspace_id, the project's workspace.
    expect((await h.post('/generations', t.key, post({ project_id: project }))).body).toMatchObject({ workspace_id: other, project_id: project });
    for (const status of ['pending', 'generating', 'failed'] as const) {
      const unfinished = await voice(t.workspaceId, { status });
      const res = await h.post('/generations', t.key, post({ brand_voice_id: unfinished }));
      expect(res.status).toBe(409);
      expect(errorOf(res)).toMatchObject({ code: 'invalid_state', param: 'brand_voice_id' });
    }
  });

  it('writes for the persona: the content is angled at the persona’s own goals and pains', async () => {
    const persona = getBasePersona('persona_saas_cfo')!;
    const topic = 'Closewise automates the month-end close for SaaS finance teams: bank reconciliations, accruals and a close checklist in one place.';
    const res = await h.post('/generations', t.key, post({ persona_id: persona.id }, { topic }));
    expect(res.body.persona).toEqual({ id: persona.id, name: persona.name });
    const angled = (output: string) =>
      [...persona.details.goals, ...persona.details.pains].some((item) =>
        output.toLowerCase().includes(
          item
            .replace(/[.!?]+$/, '')
            .toLowerCase()
            .slice(1, 40),
        ),
      );
    expect(angled(res.body.output)).toBe(true);
    expect(res.body.output).not.toBe((await h.post('/generations', t.key, post({}, { topic }))).body.output);
    // A brief that touches none of the CFO's goals or pains (cold brew) claims none of them.
    expect(angled((await h.post('/generations', t.key, post({ persona_id: persona.id }))).body.output)).toBe(false);
  });

  it('writes in the brand voice: preferred terms and its example phrase in, avoided terms out, also in the title', async () => {
    const bv = await voice(t.workspaceId);
    const topic = `A cheap, world class cold brew. ${TOPIC} Cheaper than a café and world  class in taste.`;
    const res = await h.post('/generations', t.key, post({ brand_voice_id: bv }, { topic }));
    expect(res.body.brand_voice).toEqual({ id: bv, label: 'House voice' });
    expect(res.body.output).toContain('small-batch');
    expect(res.body.output).toContain('Coffee that waits for you.');
    expect(res.body.output).not.toMatch(AVOIDED);
    expect(res.body.title).not.toMatch(AVOIDED);
    // The same brief without the voice keeps the words: it is the voice that removes them.
    expect((await h.post('/generations', t.key, post({}, { topic }))).body.output).toMatch(AVOIDED);
  });

  it('streams created, deltas and completed, then [DONE]; the deltas concatenate to the stored output', async () => {
    const bv = await voice(t.workspaceId);
    const res = await h.post('/generations', t.key, post({ stream: true, brand_voice_id: bv }, { topic: `${TOPIC} Not cheap, just world class.` }));
    expect(res.status).toBe(200);
    expect(String(res.headers['content-type'])).toMatch(/^text\/event-stream/);
    expect(res.text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    const all = events(res.text);
    expect(all.map((entry) => entry.data.sequence_number)).toEqual(all.map((_, index) => index));
    expect(all[0]!.data).toMatchObject({ type: 'generation.created', generation: { output: '', brand_voice: { id: bv } } });
    expect(all.at(-1)!.data.type).toBe('generation.completed');
    for (const entry of all) expect(entry.event).toBe(entry.data.type);
    const completed = all.at(-1)!.data.generation;
    const text = deltasOf(res.text);
    expect(text).toBe(completed.output);
    expect(text).not.toMatch(AVOIDED);
    expect(all.filter((entry) => entry.data.type === 'generation.output_text.delta').length).toBeGreaterThan(5);
    expect(completed.id).toBe(all[0]!.data.generation.id);
    expect((await h.get(`/generations/${completed.id}`, t.key)).body.output).toBe(text);
  });

  it('renders HTML apps as sanitised HTML, streamed block by block', async () => {
    const res = await h.post('/generations', t.key, {
      app_id: 'app_landing_page',
      input_data: { product: `${TOPIC} <script>alert(1)</script>`, benefits: 'Ready in seconds\nNo bitterness' },
      stream: true,
    });
    const completed = events(res.text).at(-1)!.data.generation;
    expect(completed.content_type).toBe('html');
    expect(completed.output).toMatch(/^<h1>/);
    expect(completed.output).toContain('<li>Ready in seconds</li>');
    expect(completed.output).not.toMatch(/<script/i);
    expect(deltasOf(res.text)).toBe(completed.output);
  });

  it('refuses with 402 before any work when the balance does not cover the app’s estimate', async () => {
    const poor = await h.tenant({ credits: 7 });
    const res = await h.post('/generations', poor.key, post());
    expect(res.status).toBe(402);
    expect(errorOf(res)).toMatchObject({ code: 'insufficient_credits' });
    expect(await balanceOf(h, poor.accountId)).toBe(7);
    expect(await h.db.select().from(generations).where(eq(generations.workspaceId, poor.workspaceId))).toEqual([]);
    // 8 credits cover the LinkedIn app's estimate.
    const enough = await h.tenant({ credits: 8 });
    expect((await h.post('/generations', enough.key, post())).status).toBe(200);
  });

  it('refuses when the project’s usage limit is reached', async () => {
    const project = (await h.post('/projects', t.key, { workspace_id: t.workspaceId, name: 'Capped', usage_limit: 1 })).body.id;
    expect((await h.post('/generations', t.key, post({ project_id: project }))).status).toBe(200);
    expect(errorOf(await h.post('/generations', t.key, post({ project_id: project })))).toMatchObject({ code: 'usage_limit_exceeded' });
  });
});

describe('creating a generation (OpenAI-compatible engine)', () => {
  it('sends the template, the persona as the audience and the voice as rules; charges the upstream’s tokens', async () => {
    const bv = await voice(t.workspaceId);
    fake.enqueue({ content: 'Small-batch cold brew, hand-picked beans. Try it today.', usage: { prompt_tokens: 250, completion_tokens: 120 } });
    const before = await balanceOf(h, t.accountId);
    const res = await upstream(() =>
      h.post('/generations', t.key, post({ brand_voice_id: bv, persona_id: 'persona_saas_cfo' }, { audience: 'Remote workers' })),
    );
    expect(res.status).toBe(200);
    expect(res.body.output).toBe('Small-batch cold brew, hand-picked beans. Try it today.');
    expect(res.body.usage).toEqual({ prompt_tokens: 250, completion_tokens: 120, total_tokens: 370, credits_used: 4 });
    expect(await balanceOf(h, t.accountId)).toBe(before - 4);
    const sent = fake.requests.at(-1)!.body;
    const system = sent.messages.find((message: any) => message.role === 'system').content as string;
    const user = sent.messages.find((message: any) => message.role === 'user').content as string;
    expect(system).toContain(getBasePersona('persona_saas_cfo')!.name);
    expect(system).toContain('House voice');
    expect(system).toContain('Never use these terms, in any form: cheap, world class.');
    expect(system).toContain('small-batch, hand-picked');
    expect(user).toContain(TOPIC);
    expect(user).toContain('It is for Remote workers.');
    expect(user).toContain('long LinkedIn post');
    expect(sent.max_tokens ?? sent.max_completion_tokens).toBe(600);
  });

  it('removes avoided terms the model writes, also when a term spans two deltas', async () => {
    const bv = await voice(t.workspaceId);
    const content = 'Our world class brew is never cheap. It is world\nclass, CHEAP-looking only in price, and cheaply made? No. World class!';
    fake.enqueue({ content }, { content });
    const plain = await upstream(() => h.post('/generations', t.key, post({ brand_voice_id: bv })));
    expect(plain.body.output).not.toMatch(AVOIDED);
    expect(plain.body.output).toContain('Our brew is never');
    const streamed = await upstream(() => h.post('/generations', t.key, post({ brand_voice_id: bv, stream: true })));
    const completed = events(streamed.text).at(-1)!.data.generation;
    expect(deltasOf(streamed.text)).toBe(completed.output);
    expect(completed.output).toBe(plain.body.output);
    expect(completed.output).not.toMatch(AVOIDED);
  });

  it('never lets HTML from the model through: raw tags escaped, unsafe links dropped', async () => {
    const content =
      '# Cold brew\n\nSlow-steeped <script>alert("x")</script> for 18 hours.\n\n<img src=x onerror=alert(1)>\n\n- [Order](javascript:alert(1))\n- [Read more](https://example.com/brew)\n';
    fake.enqueue({ content }, { content });
    const plain = await upstream(() => h.post('/generations', t.key, { app_id: 'app_landing_page', input_data: { product: TOPIC } }));
    const streamed = await upstream(() => h.post('/generations', t.key, { app_id: 'app_landing_page', input_data: { product: TOPIC }, stream: true }));
    for (const output of [plain.body.output as string, deltasOf(streamed.text)]) {
      expect(output).toContain('<h1>Cold brew</h1>');
      // No tag but the allowlisted ones, no handler attribute, no script link; raw HTML shows as text.
      expect(output).not.toMatch(/<script|<img|<[^>]*\son\w+=|href="javascript:/i);
      expect(output).toContain('&lt;script&gt;');
      expect(output).toContain('<li><a>Order</a></li>');
      expect(output).toContain('<a href="https://example.com/brew">Read more</a>');
    }
    expect(deltasOf(streamed.text)).toBe(plain.body.output);
  });

  it('answers 502 when the model fails before writing, and an error event when it fails midway: nothing stored or charged', async () => {
    const before = await balanceOf(h, t.accountId);
    const count = (await h.db.select().from(generations)).length;
    fake.enqueue({ status: 500 });
    expect(errorOf(await upstream(() => h.post('/generations', t.key, post())))).toMatchObject({ code: 'upstream_error' });
    fake.enqueue({ content: 'one two three four five six seven', cutAfterChunks: 3 });
    const res = await upstream(() => h.post('/generations', t.key, post({ stream: true })));
    const all = events(res.text);
    expect(all.at(-1)!.data).toMatchObject({ type: 'error', code: 'upstream_error' });
    expect(res.text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect((await h.get(`/generations/${all[0]!.data.generation.id}`, t.key)).status).toBe(404);
    expect(await balanceOf(h, t.accountId)).toBe(before);
    expect((await h.db.select().from(generations)).length).toBe(count);
  });

  it('keeps going when the client leaves mid-stream: stored in full and charged', async () => {
    const words = Array.from({ length: 60 }, (_, index) => `word${index}`).join(' ');
    fake.enqueue({ content: words, tokenDelayMs: 15, usage: { prompt_tokens: 300, completion_tokens: 60 } });
    const before = await balanceOf(h, t.accountId);
    const received = await upstream(async () => {
      const got = await postAndDisconnect(h, '/generations', t.key, post({ stream: true }), (text) => text.includes('generation.output_text.delta'));
      const id = /"id":"(gen_[A-Za-z0-9_-]+)"/.exec(got)![1]!;
      // The upstream finishes and the generation is stored while the engine still serves it.
      const stored = await eventually(async () => {
        const res = await h.get(`/generations/${id}`, t.key);
        return res.status === 200 ? res.body : null;
      });
      return { got, stored };
    });
    expect(received.got).not.toContain('generation.completed');
    expect(received.stored.output).toBe(words);
    expect(await balanceOf(h, t.accountId)).toBe(before - 4);
    const charges = await chargesOf(h, t.accountId);
    expect(charges.at(-1)!.description).toContain(received.stored.id);
  });
});

describe('listing, reading and deleting generations', () => {
  it('lists newest first with every filter and pages', async () => {
    const owner = await h.tenant();
    const project = (await h.post('/projects', owner.key, { workspace_id: owner.workspaceId, name: 'Launch' })).body.id;
    const made: string[] = [];
    for (const [extra, app] of [
      [{ project_id: project, title: 'Alpha teaser' }, 'app_linkedin_post'],
      [{ title: 'Beta teaser' }, 'app_linkedin_post'],
      [{ project_id: project, title: 'Gamma ad' }, 'app_search_ad'],
    ] as const) {
      h.clock.advance(1000);
      const input = app === 'app_search_ad' ? { product: TOPIC, keywords: 'cold brew' } : { topic: TOPIC };
      made.push((await h.post('/generations', owner.key, { app_id: app, input_data: input, ...extra })).body.id);
    }
    const ids = async (query: string) => (await h.get(`/generations${query}`, owner.key)).body.data.map((g: any) => g.id);
    expect(await ids('')).toEqual([...made].reverse());
    expect(await ids(`?workspace_id=${owner.workspaceId}`)).toEqual([...made].reverse());
    expect(await ids(`?project_id=${project}`)).toEqual([made[2], made[0]]);
    expect(await ids('?app_id=app_search_ad')).toEqual([made[2]]);
    expect(await ids('?search=TEASER')).toEqual([made[1], made[0]]);
    expect(await ids(`?search=teaser&project_id=${project}&app_id=app_linkedin_post`)).toEqual([made[0]]);
    const first = await h.get('/generations?limit=2', owner.key);
    expect(first.body).toMatchObject({ has_more: true });
    expect((await h.get(`/generations?limit=2&cursor=${first.body.next_cursor}`, owner.key)).body.data.map((g: any) => g.id)).toEqual([made[0]]);
    expect(errorOf(await h.get(`/generations?workspace_id=${t.workspaceId}`, owner.key))).toMatchObject({ code: 'resource_not_found', param: 'workspace_id' });
    expect(errorOf(await h.get('/generations?project_id=proj_nope', owner.key))).toMatchObject({ code: 'resource_not_found', param: 'project_id' });
  });

  it('deletes for good, without a refund', async () => {
    const g = (await h.post('/generations', t.key, post())).body;
    const before = await balanceOf(h, t.accountId);
    expect((await h.delete(`/generations/${g.id}`, t.key)).body).toEqual({ id: g.id, object: 'generation', deleted: true });
    expect((await h.get(`/generations/${g.id}`, t.key)).status).toBe(404);
    expect((await h.delete(`/generations/${g.id}`, t.key)).status).toBe(404);
    expect(await balanceOf(h, t.accountId)).toBe(before);
  });

  it('follows the workspace roles', async () => {
    const owner = await h.tenant();
    const roles = ['viewer', 'client_viewer', 'analyst', 'creative_specialist', 'editor'] as const;
    const members = Object.fromEntries(await Promise.all(roles.map(async (role) => [role, await h.tenant()] as const)));
    for (const role of roles) await h.post(`/workspaces/${owner.workspaceId}/members`, owner.key, { email: members[role]!.email, role });
    const create = (key: string) => h.post('/generations', key, post({ workspace_id: owner.workspaceId }));
    for (const role of ['viewer', 'client_viewer', 'analyst'] as const)
      expect(errorOf(await create(members[role]!.key))).toMatchObject({ code: 'permission_denied' });
    const g = (await create(members.creative_specialist!.key)).body;
    expect(g.workspace_id).toBe(owner.workspaceId);
    for (const role of roles) {
      expect((await h.get(`/generations/${g.id}`, members[role]!.key)).status).toBe(200);
      expect((await h.get(`/generations?workspace_id=${owner.workspaceId}`, members[role]!.key)).body.data.map((x: any) => x.id)).toContain(g.id);
    }
    expect(errorOf(await h.delete(`/generations/${g.id}`, members.creative_specialist!.key))).toMatchObject({ code: 'permission_denied' });
    expect((await h.delete(`/generations/${g.id}`, members.editor!.key)).status).toBe(200);
  });

  it('is invisible to other tenants', async () => {
    const other = await h.tenant();
    const g = (await h.post('/generations', t.key, post())).body;
    expect(errorOf(await h.get(`/generations/${g.id}`, other.key))).toMatchObject({ code: 'resource_not_found' });
    expect(errorOf(await h.delete(`/generations/${g.id}`, other.key))).toMatchObject({ code: 'resource_not_found' });
    expect((await h.get('/generations', other.key)).body.data).toEqual([]);
    // A voice of another tenant is unknown, not a conflict.
    const theirs = await voice(other.workspaceId);
    expect(errorOf(await h.post('/generations', t.key, post({ brand_voice_id: theirs })))).toMatchObject({
      code: 'resource_not_found',
      param: 'brand_voice_id',
    });
  });
});
