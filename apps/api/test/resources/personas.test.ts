import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basePersonas, createOfflineEngine, type Engine } from '@persona-api/engine';
import type { FakeUpstream } from '@persona-api/engine/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedFetcher } from '../../src/lib/guarded-fetch.js';
import { fetchSourceText } from '../../src/resources/personas/sources.js';
import { files } from '../../src/db/schema/index.js';
import { newId } from '../../src/lib/ids.js';
import { balanceOf, chargesOf, fakeUpstreamEngine, SwitchableEngine } from '../support/ai.js';
import { errorOf, Harness, type Tenant } from '../support/harness.js';

// Personas: the base persona catalog; list (base + custom, filters, keyset
// pagination), read, create (300 credits), PATCH and DELETE of custom personas, base personas
// read-only, tenant isolation and roles; POST /personas/suggestions within its bounds, with URL
// sources read over the network (a loopback page here) and unreachable ones skipped.

let h: Harness;
let t: Tenant;
let fake: FakeUpstream;
let upstreamEngine: Engine;
const engine = new SwitchableEngine(createOfflineEngine());

const onUpstream = <T>(run: () => Promise<T>): Promise<T> => engine.using(upstreamEngine, run);
let pages: Server;
let pagesUrl: string;
const pageRequests: string[] = [];

beforeAll(async () => {
  ({ fake, engine: upstreamEngine } = await fakeUpstreamEngine());
  // The suggestion sources live on loopback: allowed here, refused by default (see the last test).
  h = await Harness.create({ engine, services: { fetcher: createGuardedFetcher({ allowPrivateAddresses: true, timeoutMs: 2_000 }) } });
  t = await h.tenant({ credits: 10_000 });
  pages = createServer((req, res) => {
    pageRequests.push(req.url ?? '');
    if (req.url === '/how-it-works') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        '<html><head><script>var x = 1;</script></head><body><h1>GreenBox Kitchen</h1><p>Weekly organic meal kits for busy families, with 20-minute recipes.</p></body></html>',
      );
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  pages.listen(0, '127.0.0.1');
  await once(pages, 'listening');
  pagesUrl = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await h.close();
  await fake.close();
  pages.close();
});

const createBody = (extra: Record<string, unknown> = {}) => ({
  description: 'Head of people operations at a 300-person logistics company, choosing an employee wellbeing platform.',
  ...extra,
});

async function listAll(key: string, query: string): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const res: any = await h.get(`/personas?${query ? `${query}&` : ''}limit=5${cursor ? `&cursor=${cursor}` : ''}`, key);
    expect(res.status).toBe(200);
    items.push(...res.body.data);
    cursor = res.body.next_cursor;
    expect(res.body.has_more).toBe(cursor !== null);
  } while (cursor);
  return items;
}

describe('the base catalog', () => {
  it('has at least 12 base personas, B2B and B2C, each with every details field', async () => {
    const base = await listAll(t.key, 'is_custom=false');
    expect(base.length).toBeGreaterThanOrEqual(12);
    expect(new Set(base.map((p) => p.type))).toEqual(new Set(['B2B', 'B2C']));
    expect(new Set(base.map((p) => p.category)).size).toBeGreaterThanOrEqual(8);
    for (const persona of base) {
      expect(persona).toMatchObject({ object: 'persona', is_custom: false });
      expect(persona.id).toMatch(/^persona_/);
      expect(persona.details.goals.length).toBeGreaterThan(0);
      expect(persona.details.pains.length).toBeGreaterThan(0);
    }
    const cfo = await h.get('/personas/persona_saas_cfo', t.key);
    expect(cfo.body).toMatchObject({
      object: 'persona',
      type: 'B2B',
      category: 'Finance',
      details: { role_title: 'Chief Financial Officer', life_stage: null },
    });
    // The curated system prompt is never served.
    expect(cfo.text).not.toContain('Stay in character');
  });

  it('refuses to change or delete a base persona: 400 persona_not_customizable naming id', async () => {
    expect(errorOf(await h.patch('/personas/persona_saas_cfo', t.key, { name: 'Renamed' }))).toEqual({
      type: 'invalid_request_error',
      code: 'persona_not_customizable',
      param: 'id',
    });
    expect(errorOf(await h.delete('/personas/persona_saas_cfo', t.key))).toEqual({
      type: 'invalid_request_error',
      code: 'persona_not_customizable',
      param: 'id',
    });
    expect((await h.get('/personas/persona_saas_cfo', t.key)).body.name).toBe('Dana Whitfield, SaaS CFO');
  });
});

describe('custom personas', () => {
  it('generates a persona from a description for 300 credits, in the default workspace', async () => {
    const tenant = await h.tenant({ credits: 1_000 });
    const res = await h.post(
      '/personas',
      tenant.key,
      createBody({ pipeline_type: 'advanced', hints: { industry: 'Logistics', locale_value: 'de-DE', locale_scope: 'country' } }),
    );
    expect(res.status).toBe(200);
    const persona = res.body;
    expect(persona.id).toMatch(/^cp_/);
    expect(persona).toMatchObject({
      object: 'custom_persona',
      is_custom: true,
      credits_charged: 300,
      workspace_id: tenant.workspaceId,
      pipeline_type: 'advanced',
      type: 'B2B',
    });
    expect(persona.details).toMatchObject({ industry: 'Logistics', locale_value: 'de-DE', is_localized: true });
    expect(Object.keys(persona.details.mcda_weights).length).toBeGreaterThan(0);
    expect(persona.ai_generated.confidence).toBeGreaterThan(0);
    expect(persona.ai_generated.confidence).toBeLessThanOrEqual(1);
    expect(persona.ai_generated.rationale.length).toBeGreaterThan(10);
    expect(await balanceOf(h, tenant.accountId)).toBe(700);
    expect((await chargesOf(h, tenant.accountId)).map((row) => row.amount)).toEqual([-300]);
    expect((await h.get(`/personas/${persona.id}`, tenant.key)).body).toEqual(persona);
    // It can answer at once.
    expect((await h.post('/responses', tenant.key, { model: 'service-1', persona_id: persona.id, input: 'How do you pick vendors?' })).status).toBe(200);
  });

  it('on the OpenAI-compatible engine: generates the profile upstream; an upstream failure charges and creates nothing', async () => {
    const tenant = await h.tenant({ credits: 1_000 });
    const profile = await createOfflineEngine().generatePersona({ description: createBody().description, pipeline_type: 'intermediate' });
    fake.enqueue({
      content: JSON.stringify({
        name: profile.name,
        category: profile.category,
        type: profile.type,
        details: profile.details,
        ai_generated: profile.ai_generated,
      }),
    });
    const res = await onUpstream(() => h.post('/personas', tenant.key, createBody({ pipeline_type: 'intermediate' })));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: profile.name, category: profile.category, credits_charged: 300, details: { goals: profile.details.goals } });
    expect(fake.requests.at(-1)!.body.response_format.json_schema.name).toBe('persona_profile');

    fake.enqueue({ status: 500 });
    const failed = await onUpstream(() => h.post('/personas', tenant.key, createBody()));
    expect(errorOf(failed)).toEqual({ type: 'api_error', code: 'upstream_error', param: null });
    expect(await balanceOf(h, tenant.accountId)).toBe(700);
    expect(await listAll(tenant.key, 'is_custom=true')).toHaveLength(1);
  });

  it('keeps a given name, type and category, and answers 402 with nothing created below 300 credits', async () => {
    const named = await h.post('/personas', t.key, createBody({ name: 'Priya, People Ops', type: 'B2B', category: 'Human Resources' }));
    expect(named.body).toMatchObject({ name: 'Priya, People Ops', type: 'B2B', category: 'Human Resources' });
    const poor = await h.tenant({ credits: 299 });
    const refused = await h.post('/personas', poor.key, createBody());
    expect(refused.status).toBe(402);
    expect(errorOf(refused).code).toBe('insufficient_credits');
    expect(await listAll(poor.key, 'is_custom=true')).toEqual([]);
    expect(await balanceOf(h, poor.accountId)).toBe(299);
  });

  it('changes only the given fields on PATCH: arrays replace, null clears, nothing is regenerated or charged', async () => {
    const created = (await h.post('/personas', t.key, createBody({ hints: { role_title: 'Head of People' } }))).body;
    const before = await balanceOf(h, t.accountId);
    const res = await h.patch(`/personas/${created.id}`, t.key, { name: 'Priya, Head of People', pains: ['Burnout in the night shift'], role_title: null });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Priya, Head of People',
      description: created.description,
      details: { pains: ['Burnout in the night shift'], role_title: null, goals: created.details.goals },
    });
    expect(res.body.ai_generated).toEqual(created.ai_generated);
    expect(await balanceOf(h, t.accountId)).toBe(before);
    expect((await h.get(`/personas/${created.id}`, t.key)).body).toEqual(res.body);
    expect(errorOf(await h.patch(`/personas/${created.id}`, t.key, {})).code).toBe('invalid_parameter');
  });

  it('deletes a custom persona', async () => {
    const created = (await h.post('/personas', t.key, createBody())).body;
    expect((await h.delete(`/personas/${created.id}`, t.key)).body).toEqual({ id: created.id, object: 'custom_persona', deleted: true });
    expect((await h.get(`/personas/${created.id}`, t.key)).status).toBe(404);
    expect((await h.delete(`/personas/${created.id}`, t.key)).status).toBe(404);
  });

  it('hides another account’s custom personas: 404 to read, change, delete or answer with; absent from lists', async () => {
    const mine = (await h.post('/personas', t.key, createBody({ name: 'Only mine' }))).body;
    const other = await h.tenant();
    for (const res of [
      await h.get(`/personas/${mine.id}`, other.key),
      await h.patch(`/personas/${mine.id}`, other.key, { name: 'Stolen' }),
      await h.delete(`/personas/${mine.id}`, other.key),
    ]) {
      expect(errorOf(res)).toEqual({ type: 'not_found', code: 'resource_not_found', param: 'id' });
    }
    expect(errorOf(await h.post('/responses', other.key, { model: 'service-1', persona_id: mine.id, input: 'Hi' })).param).toBe('persona_id');
    expect((await listAll(other.key, 'is_custom=true')).map((p) => p.id)).not.toContain(mine.id);
    expect(errorOf(await h.get(`/personas?workspace_id=${t.workspaceId}`, other.key))).toMatchObject({ code: 'resource_not_found', param: 'workspace_id' });
  });

  it('follows the workspace roles: members read, an analyst cannot create, a creative specialist cannot delete', async () => {
    const owner = await h.tenant({ credits: 5_000 });
    const team = (await h.post('/workspaces', owner.key, { name: 'Persona team' })).body.id;
    const analyst = await h.tenant();
    const creative = await h.tenant();
    await h.post(`/workspaces/${team}/members`, owner.key, { email: analyst.email, role: 'analyst' });
    await h.post(`/workspaces/${team}/members`, owner.key, { email: creative.email, role: 'creative_specialist' });
    const shared = (await h.post('/personas', owner.key, createBody({ workspace_id: team }))).body;
    expect(shared.workspace_id).toBe(team);

    expect((await h.get(`/personas/${shared.id}`, analyst.key)).status).toBe(200);
    expect(errorOf(await h.post('/personas', analyst.key, createBody({ workspace_id: team })))).toMatchObject({ code: 'permission_denied' });
    expect((await h.patch(`/personas/${shared.id}`, creative.key, { pains: ['Too many tools'] })).status).toBe(200);
    expect(errorOf(await h.delete(`/personas/${shared.id}`, creative.key))).toMatchObject({ code: 'permission_denied' });
    expect((await h.delete(`/personas/${shared.id}`, owner.key)).status).toBe(200);
  });
});

describe('the persona list', () => {
  it('pages base and custom personas together, newest first, with opaque cursors', async () => {
    const tenant = await h.tenant({ credits: 2_000 });
    const created: string[] = [];
    for (let i = 0; i < 3; i++) {
      h.clock.advance(1_000);
      created.push((await h.post('/personas', tenant.key, createBody({ name: `Custom ${i}` }))).body.id);
    }
    const all = await listAll(tenant.key, '');
    const whole = (await h.get('/personas?limit=100', tenant.key)).body.data;
    expect(all.map((p) => p.id)).toEqual(whole.map((p: any) => p.id));
    expect(new Set(all.map((p) => p.id)).size).toBe(all.length);
    // Custom personas are newer than the catalog, newest first; then the base personas.
    expect(all.slice(0, 3).map((p) => p.id)).toEqual([...created].reverse());
    expect(all.slice(3).every((p) => p.object === 'persona')).toBe(true);
    const keys = all.map((p) => [p.created_at, p.id] as const);
    for (let i = 1; i < keys.length; i++) {
      const [prev, cur] = [keys[i - 1]!, keys[i]!];
      expect(prev[0] > cur[0] || (prev[0] === cur[0] && prev[1] > cur[1])).toBe(true);
    }
    const page = (await h.get('/personas?limit=2', tenant.key)).body;
    expect(errorOf(await h.get(`/personas?limit=2&workspace_id=${tenant.workspaceId}&cursor=${page.next_cursor}`, tenant.key)).code).toBe('invalid_cursor');
  });

  it('filters by type, category (any case), is_custom, name search and workspace', async () => {
    const tenant = await h.tenant({ credits: 2_000 });
    h.clock.advance(1_000); // the default workspace is the oldest one the caller owns
    const second = (await h.post('/workspaces', tenant.key, { name: 'Second' })).body.id;
    const inDefault = (await h.post('/personas', tenant.key, createBody({ name: 'Finance Fiona', category: 'Finance', type: 'B2B' }))).body;
    const inSecond = (await h.post('/personas', tenant.key, createBody({ name: 'Second Sam', category: 'People', workspace_id: second }))).body;

    const b2c = await listAll(tenant.key, 'type=B2C');
    expect(b2c.length).toBeGreaterThan(0);
    expect(b2c.every((p) => p.type === 'B2C')).toBe(true);
    const finance = await listAll(tenant.key, 'category=fInAnCe');
    const baseFinance = basePersonas.filter((p) => p.category.toLowerCase() === 'finance').map((p) => p.id);
    expect(baseFinance).toContain('persona_saas_cfo');
    expect(finance.map((p) => p.id).sort()).toEqual([inDefault.id, ...baseFinance].sort());
    expect((await listAll(tenant.key, 'is_custom=true')).map((p) => p.id).sort()).toEqual([inDefault.id, inSecond.id].sort());
    expect((await listAll(tenant.key, 'search=whitfield')).map((p) => p.id)).toEqual(['persona_saas_cfo']);
    expect((await listAll(tenant.key, 'search=100%25')).length).toBe(0); // % is taken literally
    const scoped = await listAll(tenant.key, `workspace_id=${second}`);
    expect(scoped.filter((p) => p.is_custom).map((p) => p.id)).toEqual([inSecond.id]);
    expect(scoped.filter((p) => !p.is_custom).length).toBeGreaterThanOrEqual(12);
  });
});

describe('persona suggestions', () => {
  const request = (extra: Record<string, unknown> = {}) => ({
    business_description: 'Berlin start-up delivering weekly meal kits with 20-minute recipes and organic regional ingredients.',
    target_customers: ['Young urban professionals', 'Families with small children'],
    goals: ['Increase trial-to-subscription conversion'],
    ...extra,
  });

  it('suggests 3 to 6 personas, best first, with the input summarised; free of charge', async () => {
    const before = await balanceOf(h, t.accountId);
    const res = await h.post('/personas/suggestions', t.key, request());
    expect(res.status).toBe(200);
    expect(res.body.object).toBe('list');
    expect(res.body.data.length).toBeGreaterThanOrEqual(3);
    expect(res.body.data.length).toBeLessThanOrEqual(6);
    for (const suggestion of res.body.data) {
      expect(suggestion.id).toMatch(/^psug_/);
      expect(suggestion.object).toBe('persona_suggestion');
    }
    const confidences = res.body.data.map((s: any) => s.confidence);
    expect(confidences).toEqual([...confidences].sort((a, b) => b - a));
    expect(res.body.input_summary).toEqual({
      business_description: request().business_description,
      target_customers: request().target_customers,
      goals: request().goals,
      sources_count: 0,
    });
    expect(await balanceOf(h, t.accountId)).toBe(before);
  });

  it('reads URL sources and counts only those it could read', async () => {
    const res = await h.post(
      '/personas/suggestions',
      t.key,
      request({
        sources: [
          { type: 'url', url: `${pagesUrl}/how-it-works`, name: 'How it works' },
          { type: 'url', url: `${pagesUrl}/missing` },
          { type: 'url', url: 'http://127.0.0.1:9/closed-port' },
        ],
      }),
    );
    expect(res.status).toBe(200);
    expect(res.body.input_summary.sources_count).toBe(1);
    expect(pageRequests).toContain('/how-it-works');
  });

  it('answers 404 naming the source for an unknown file, and skips a stored file without readable content', async () => {
    const missing = await h.post(
      '/personas/suggestions',
      t.key,
      request({
        sources: [
          { type: 'url', url: `${pagesUrl}/how-it-works` },
          { type: 'file', file_id: 'file_nothing' },
        ],
      }),
    );
    expect(errorOf(missing)).toEqual({ type: 'not_found', code: 'resource_not_found', param: 'sources.1.file_id' });
    const id = newId('file');
    await h.db.insert(files).values({ id, workspaceId: t.workspaceId, name: 'survey.pdf', sizeBytes: 10, createdAt: h.clock.now(), updatedAt: h.clock.now() });
    const stored = await h.post('/personas/suggestions', t.key, request({ sources: [{ type: 'file', file_id: id }] }));
    expect(stored.status).toBe(200);
    expect(stored.body.input_summary.sources_count).toBe(0);
    const other = await h.tenant();
    expect(errorOf(await h.post('/personas/suggestions', other.key, request({ sources: [{ type: 'file', file_id: id }] }))).param).toBe('sources.0.file_id');
  });

  it('enforces the seed’s bounds', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ business_description: 'Too short' }, 'business_description'],
      [{ business_description: 'x'.repeat(501) }, 'business_description'],
      [{ target_customers: [] }, 'target_customers'],
      [{ target_customers: Array(11).fill('Someone') }, 'target_customers'],
      [{ goals: [] }, 'goals'],
      [{ goals: Array(11).fill('Grow') }, 'goals'],
      [{ sources: Array(11).fill({ type: 'url', url: 'https://example.com' }) }, 'sources'],
    ];
    for (const [extra, param] of cases) {
      const res = await h.post('/personas/suggestions', t.key, request(extra));
      expect(errorOf(res), param).toEqual({ type: 'invalid_request_error', code: 'invalid_parameter', param });
    }
  });

  it('on the OpenAI-compatible engine: sends the sources read to the model and returns its suggestions', async () => {
    const offline = await createOfflineEngine().suggestPersonas({
      business_description: request().business_description,
      target_customers: request().target_customers,
      goals: request().goals,
    });
    fake.enqueue({ content: JSON.stringify({ suggestions: offline.data.map(({ id: _id, object: _object, ...rest }) => rest) }) });
    const res = await onUpstream(() =>
      h.post('/personas/suggestions', t.key, request({ sources: [{ type: 'url', url: `${pagesUrl}/how-it-works`, name: 'How it works' }] })),
    );
    expect(res.status).toBe(200);
    expect(res.body.data.map((s: any) => s.name).sort()).toEqual(offline.data.map((s) => s.name).sort());
    expect(res.body.input_summary.sources_count).toBe(1);
    const sent = fake.requests.at(-1)!.body;
    expect(sent.response_format.json_schema.name).toBe('persona_suggestions');
    expect(sent.messages.at(-1).content).toContain('Weekly organic meal kits for busy families');
  });

  it('does not fetch private or loopback addresses unless allowed', async () => {
    const before = pageRequests.length;
    expect(await fetchSourceText(`${pagesUrl}/how-it-works`, createGuardedFetcher())).toBeNull();
    expect(await fetchSourceText(`http://localhost:${new URL(pagesUrl).port}/how-it-works`, createGuardedFetcher())).toBeNull();
    expect(pageRequests.length).toBe(before);
    expect(await fetchSourceText(`${pagesUrl}/how-it-works`, createGuardedFetcher({ allowPrivateAddresses: true }))).toMatch(
      /GREENBOX KITCHEN[\s\S]*Weekly organic meal kits/,
    );
  });
});
