import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listOperations, loadSpec } from '../src/contract/spec.js';
import { handlers, notImplemented, resourceModules } from '../src/resources/index.js';
import type { IsolationCase, IsolationClient, IsolationFixture, IsolationKit, ResourceModule } from '../src/resources/module.js';
import { errorOf, Harness, type ApiResponse, type Tenant } from './support/harness.js';

// A caller never sees or changes another account's data; another tenant's id is a 404. Every
// implemented operation is walked with a second tenant's key, by the case its resource module exports
// (src/resources/<tag>/); an operation implemented without a case fails the first test.

let h: Harness;
let a: Tenant;
let b: Tenant;
let aMember: Tenant;
let ids: Record<string, string> = {};

const notFound = (res: ApiResponse, param = 'id') => {
  expect(res.status).toBe(404);
  expect(errorOf(res)).toEqual({ type: 'not_found', code: 'resource_not_found', param });
};

const cases: Record<string, IsolationCase> = Object.assign({}, ...resourceModules.map((module) => module.isolation));

const api = (): IsolationClient => ({
  get: (path, key) => h.get(path, key),
  post: (path, key, body) => h.post(path, key, body),
  patch: (path, key, body) => h.patch(path, key, body),
  delete: (path, key) => h.delete(path, key),
  put: (path, body, headers) => h.request('PUT', path, { rawBody: body, headers }),
});

beforeAll(async () => {
  h = await Harness.create();
  a = await h.tenant({ credits: 9_000 });
  b = await h.tenant({ credits: 500 });
  aMember = await h.tenant();
  await h.post(`/workspaces/${a.workspaceId}/members`, a.key, { email: aMember.email, role: 'editor' });
  // Each module puts what its cases aim at into A's workspace.
  for (const module of resourceModules as readonly ResourceModule<any>[]) {
    if (module.isolationSeed) ids = { ...ids, ...(await module.isolationSeed({ api: api(), db: h.db, a, now: h.clock.now() })) };
  }
});
afterAll(() => h.close());

describe('tenant isolation', () => {
  const implemented = listOperations(loadSpec())
    .map((op) => op.operationId)
    .filter((id) => (handlers as Record<string, unknown>)[id] !== notImplemented);

  it('has a case for every implemented operation', () => {
    expect(Object.keys(cases).sort()).toEqual([...implemented].sort());
  });

  it.each(implemented)('%s with another tenant’s key sees and changes nothing of theirs', async (operationId) => {
    const walk = cases[operationId];
    expect(walk, `no isolation case for ${operationId}`).toBeDefined();
    const kit: IsolationKit = { api: api(), expect, notFound };
    const fixture: IsolationFixture = { a, b, aMember, ids };
    await walk?.(kit, fixture);
  });

  it("leaves the first tenant's data as it was", async () => {
    const workspace = await h.get(`/workspaces/${a.workspaceId}`, a.key);
    expect(workspace.body).toMatchObject({ name: 'Home', member_count: 2, project_count: 1 });
    const members = await h.get(`/workspaces/${a.workspaceId}/members`, a.key);
    expect(members.body.data.map((m: { role: string }) => m.role).sort()).toEqual(['editor', 'owner']);
    expect((await h.get(`/projects/${ids.aProject}`, a.key)).body.name).toBe('A secret project');
    expect((await h.get('/usage', a.key)).body.credits.remaining).toBe(9_000);
    expect((await h.get(`/personas/${ids.aPersona}`, a.key)).body.name).toBe('A secret persona');
  });
});
