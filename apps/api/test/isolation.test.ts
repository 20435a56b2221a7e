import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listOperations, loadSpec } from '../src/contract/spec.js';
import { files, personas } from '../src/db/schema/index.js';
import { newId } from '../src/lib/ids.js';
import { handlers, notImplemented } from '../src/handlers/index.js';
import { errorOf, Harness, type ApiResponse, type Tenant } from './support/harness.js';

// Issue point 8: a caller never sees or changes another account's data; another tenant's id is a
// 404. Every implemented operation is walked with a second tenant's key; an operation implemented
// without a case here fails the first test.

let h: Harness;
let a: Tenant;
let b: Tenant;
let aProject: string;
let aMember: Tenant;
let aPersona: string;
let aFile: string;

interface Fixture {
  a: Tenant;
  b: Tenant;
  aProject: string;
  aMember: Tenant;
  /** A custom persona in A's workspace, and a file there. */
  aPersona: string;
  aFile: string;
}

type Case = (f: Fixture) => Promise<void>;

const notFound = (res: ApiResponse, param = 'id') => {
  expect(res.status).toBe(404);
  expect(errorOf(res)).toEqual({ type: 'not_found', code: 'resource_not_found', param });
};

const cases: Record<string, Case> = {
  listWorkspaces: async ({ a, b }) => {
    const res = await h.get('/workspaces?include_members=true', b.key);
    expect(res.body.data.map((w: { id: string }) => w.id)).not.toContain(a.workspaceId);
    expect(JSON.stringify(res.body)).not.toContain(a.email);
  },
  createWorkspace: async ({ a, b }) => {
    const res = await h.post('/workspaces', b.key, { name: 'B only' });
    notFound(await h.get(`/workspaces/${res.body.id}`, a.key));
  },
  getWorkspace: async ({ a, b }) => notFound(await h.get(`/workspaces/${a.workspaceId}?include_members=true`, b.key)),
  updateWorkspace: async ({ a, b }) => notFound(await h.patch(`/workspaces/${a.workspaceId}`, b.key, { name: 'Taken over' })),
  deleteWorkspace: async ({ a, b }) => notFound(await h.delete(`/workspaces/${a.workspaceId}`, b.key)),
  listWorkspaceMembers: async ({ a, b }) => notFound(await h.get(`/workspaces/${a.workspaceId}/members`, b.key)),
  addWorkspaceMember: async ({ a, b }) =>
    notFound(await h.post(`/workspaces/${a.workspaceId}/members`, b.key, { email: 'spy@b.example', role: 'manager' })),
  updateWorkspaceMember: async ({ a, b, aMember }) => {
    notFound(await h.patch(`/workspaces/${a.workspaceId}/members/${aMember.userId}`, b.key, { role: 'viewer' }));
    // A's user is no member of B's workspace either.
    notFound(await h.patch(`/workspaces/${b.workspaceId}/members/${aMember.userId}`, b.key, { role: 'viewer' }), 'user_id');
  },
  removeWorkspaceMember: async ({ a, b, aMember }) => {
    notFound(await h.delete(`/workspaces/${a.workspaceId}/members/${aMember.userId}`, b.key));
    notFound(await h.delete(`/workspaces/${b.workspaceId}/members/${a.userId}`, b.key), 'user_id');
  },
  listProjects: async ({ a, b, aProject }) => {
    notFound(await h.get(`/projects?workspace_id=${a.workspaceId}`, b.key), 'workspace_id');
    const all = await h.get('/projects', b.key);
    expect(all.body.data.map((p: { id: string }) => p.id)).not.toContain(aProject);
  },
  createProject: async ({ a, b }) => notFound(await h.post('/projects', b.key, { workspace_id: a.workspaceId, name: 'Planted' }), 'workspace_id'),
  getProject: async ({ b, aProject }) => notFound(await h.get(`/projects/${aProject}`, b.key)),
  updateProject: async ({ b, aProject }) => notFound(await h.patch(`/projects/${aProject}`, b.key, { name: 'Renamed by B' })),
  deleteProject: async ({ b, aProject }) => notFound(await h.delete(`/projects/${aProject}`, b.key)),
  // Responses and chat: another tenant's custom persona is unknown (and nothing is charged to B).
  createResponse: async ({ b, aPersona }) =>
    notFound(await h.post('/responses', b.key, { model: 'service-1', persona_id: aPersona, input: 'Hi' }), 'persona_id'),
  createChatCompletion: async ({ b, aPersona }) =>
    notFound(await h.post('/chat/completions', b.key, { model: 'service-1', persona_id: aPersona, messages: [{ role: 'user', content: 'Hi' }] }), 'persona_id'),
  // Models hold no tenant data: both tenants see the same.
  listModels: async ({ a, b }) => expect((await h.get('/models', b.key)).body).toEqual((await h.get('/models', a.key)).body),
  getModel: async ({ a, b }) => expect((await h.get('/models/service-1', b.key)).body).toEqual((await h.get('/models/service-1', a.key)).body),
  listPersonas: async ({ a, b, aPersona }) => {
    notFound(await h.get(`/personas?workspace_id=${a.workspaceId}`, b.key), 'workspace_id');
    const custom = await h.get('/personas?is_custom=true&limit=100', b.key);
    expect(custom.body.data.map((p: { id: string }) => p.id)).not.toContain(aPersona);
  },
  createPersona: async ({ a, b }) =>
    notFound(await h.post('/personas', b.key, { description: 'A persona planted in A’s workspace.', workspace_id: a.workspaceId }), 'workspace_id'),
  getPersona: async ({ b, aPersona }) => notFound(await h.get(`/personas/${aPersona}`, b.key)),
  updatePersona: async ({ b, aPersona }) => notFound(await h.patch(`/personas/${aPersona}`, b.key, { name: 'Renamed by B' })),
  deletePersona: async ({ b, aPersona }) => notFound(await h.delete(`/personas/${aPersona}`, b.key)),
  suggestPersonas: async ({ b, aFile }) =>
    notFound(
      await h.post('/personas/suggestions', b.key, { business_description: 'Meal kits for families.', target_customers: ['Parents'], goals: ['Grow'], sources: [{ type: 'file', file_id: aFile }] }),
      'sources.0.file_id',
    ),
  getUsage: async ({ a, b }) => {
    const usage = (await h.get('/usage', b.key)).body;
    expect(usage.api_requests.by_key.map((k: { api_key_id: string }) => k.api_key_id)).not.toContain(a.apiKeyId);
    expect(usage.credits.remaining).toBe(500);
  },
};

beforeAll(async () => {
  h = await Harness.create();
  a = await h.tenant({ credits: 9_000 });
  b = await h.tenant({ credits: 500 });
  aMember = await h.tenant();
  await h.post(`/workspaces/${a.workspaceId}/members`, a.key, { email: aMember.email, role: 'editor' });
  aProject = (await h.post('/projects', a.key, { workspace_id: a.workspaceId, name: 'A secret project' })).body.id;
  // Written directly, so that A's credits stay untouched for the last check.
  const now = h.clock.now();
  const [template] = await h.db.select().from(personas).where(eq(personas.id, 'persona_saas_cfo'));
  aPersona = newId('cp');
  await h.db.insert(personas).values({ ...template!, id: aPersona, isCustom: true, accountId: a.accountId, workspaceId: a.workspaceId, name: 'A secret persona', aiGenerated: { confidence: 0.5, rationale: 'Fixture.' }, createdAt: now, updatedAt: now });
  aFile = newId('file');
  await h.db.insert(files).values({ id: aFile, workspaceId: a.workspaceId, name: 'a-survey.pdf', sizeBytes: 10, createdAt: now, updatedAt: now });
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
    await walk?.({ a, b, aProject, aMember, aPersona, aFile });
  });

  it("leaves the first tenant's data as it was", async () => {
    const workspace = await h.get(`/workspaces/${a.workspaceId}`, a.key);
    expect(workspace.body).toMatchObject({ name: 'Home', member_count: 2, project_count: 1 });
    const members = await h.get(`/workspaces/${a.workspaceId}/members`, a.key);
    expect(members.body.data.map((m: { role: string }) => m.role).sort()).toEqual(['editor', 'owner']);
    expect((await h.get(`/projects/${aProject}`, a.key)).body.name).toBe('A secret project');
    expect((await h.get('/usage', a.key)).body.credits.remaining).toBe(9_000);
    expect((await h.get(`/personas/${aPersona}`, a.key)).body.name).toBe('A secret persona');
  });
});
