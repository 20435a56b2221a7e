import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { agentThreads, creditLedger, generations } from '../../src/db/schema/index.js';
import type { AssignableRole, WorkspaceRole } from '../../src/workspaces/roles.js';
import { chargedCreateAgentThread, PRICE } from '../support/charged-handler.js';
import { errorOf, useHarness, useTenant, type Tenant } from '../support/harness.js';

// The columns of a stored generation besides its place, title and times (built by the generations module).
const storedGenerationFields = {
  output: 'Text.',
  contentType: 'markdown' as const,
  appId: 'app_linkedin_post',
  app: { id: 'app_linkedin_post', name: 'LinkedIn Post', category: 'social_post' as const },
  inputData: { topic: 'A post' },
  promptTokens: 1,
  completionTokens: 1,
  creditsUsed: 1,
};

// Projects: list/read/create/update/delete with their counts and credits_used_14d.

const h = useHarness({ handlers: { createAgentThread: chargedCreateAgentThread } });
const owner = useTenant(h, { credits: 100_000 });

const DAY = 24 * 60 * 60 * 1000;

describe('projects', () => {
  it('creates a project with defaults and reads it back', async () => {
    const res = await h.post('/projects', owner.key, { workspace_id: owner.workspaceId, name: 'Launch' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      object: 'project',
      name: 'Launch',
      goal: null,
      workspace_id: owner.workspaceId,
      workspace_name: 'Home',
      thread_count: 0,
      agent_thread_count: 0,
      generation_count: 0,
      credits_used_14d: 0,
      budget_alert: null,
      usage_limit: null,
      billing_email: null,
    });
    expect(res.body.id).toMatch(/^proj_/);
    expect((await h.get(`/projects/${res.body.id}`, owner.key)).body).toEqual(res.body);
  });

  it('counts its threads and generations and the credits of the last 14 days', async () => {
    const project = (await h.post('/projects', owner.key, { workspace_id: owner.workspaceId, name: 'Counted' })).body;
    const start = h.clock.ms();
    try {
      expect((await h.post('/agent/threads', owner.key, { workspace_id: owner.workspaceId, project_id: project.id })).status).toBe(200);
      h.clock.advance(10 * DAY);
      expect((await h.post('/agent/threads', owner.key, { workspace_id: owner.workspaceId, project_id: project.id })).status).toBe(200);
      await h.db.insert(generations).values({
        id: `gen_c${start}`,
        workspaceId: owner.workspaceId,
        projectId: project.id,
        title: 'Post',
        ...storedGenerationFields,
        createdAt: h.clock.now(),
        updatedAt: h.clock.now(),
      });
      let read = await h.get(`/projects/${project.id}`, owner.key);
      expect(read.body).toMatchObject({ thread_count: 2, agent_thread_count: 2, generation_count: 1, credits_used_14d: 2 * PRICE });
      // Rolling: 15 days after the first charge only the second counts.
      h.clock.advance(5 * DAY);
      read = await h.get(`/projects/${project.id}`, owner.key);
      expect(read.body.credits_used_14d).toBe(PRICE);
      const list = await h.get(`/projects?workspace_id=${owner.workspaceId}&search=counted`, owner.key);
      expect(list.body.data[0]).toMatchObject({ id: project.id, credits_used_14d: PRICE, agent_thread_count: 2 });
    } finally {
      h.clock.set(new Date(start));
    }
  });

  it('lists projects of every workspace of the caller, newest first, or of one workspace', async () => {
    const t = await h.tenant();
    const second = (await h.post('/workspaces', t.key, { name: 'Second' })).body.id;
    const names: string[] = [];
    for (const [workspace, name] of [
      [t.workspaceId, 'A'],
      [second, 'B'],
      [t.workspaceId, 'C'],
    ] as const) {
      h.clock.advance(1_000);
      await h.post('/projects', t.key, { workspace_id: workspace, name });
      names.unshift(name);
    }
    expect((await h.get('/projects', t.key)).body.data.map((p: { name: string }) => p.name)).toEqual(names);
    const onlyHome = await h.get(`/projects?workspace_id=${t.workspaceId}`, t.key);
    expect(onlyHome.body.data.map((p: { name: string }) => p.name)).toEqual(['C', 'A']);
  });

  it('answers 404 on workspace_id for a workspace the caller does not belong to', async () => {
    const stranger = await h.tenant();
    const list = await h.get(`/projects?workspace_id=${stranger.workspaceId}`, owner.key);
    expect(errorOf(list)).toEqual({ type: 'not_found', code: 'resource_not_found', param: 'workspace_id' });
    const create = await h.post('/projects', owner.key, { workspace_id: stranger.workspaceId, name: 'Intruder' });
    expect(errorOf(create)).toEqual({ type: 'not_found', code: 'resource_not_found', param: 'workspace_id' });
  });

  it('updates only the fields given; null clears; checks thresholds against stored values', async () => {
    const project = (await h.post('/projects', owner.key, { workspace_id: owner.workspaceId, name: 'Edit me', goal: 'Grow', usage_limit: 100 })).body;
    const res = await h.patch(`/projects/${project.id}`, owner.key, { goal: null, name: 'Edited' });
    expect(res.body).toMatchObject({ name: 'Edited', goal: null, usage_limit: 100, credits_used_14d: 0 });
    const conflict = await h.patch(`/projects/${project.id}`, owner.key, { budget_alert: 101 });
    expect(errorOf(conflict)).toEqual({ type: 'invalid_request_error', code: 'parameter_conflict', param: 'budget_alert' });
    const moved = await h.patch(`/projects/${project.id}`, owner.key, { workspace_id: 'ws_other' });
    expect(errorOf(moved)).toMatchObject({ code: 'unknown_parameter', param: 'workspace_id' });
  });

  it('deletes a project and keeps its threads and generations in the workspace', async () => {
    const project = (await h.post('/projects', owner.key, { workspace_id: owner.workspaceId, name: 'Short-lived' })).body;
    const threadResponse = await h.post('/agent/threads', owner.key, { workspace_id: owner.workspaceId, project_id: project.id });
    const thread = threadResponse.body;
    const res = await h.delete(`/projects/${project.id}`, owner.key);
    expect(res.body).toEqual({ id: project.id, object: 'project', deleted: true });
    expect((await h.get(`/projects/${project.id}`, owner.key)).status).toBe(404);
    const [kept] = await h.db.select().from(agentThreads).where(eq(agentThreads.id, thread.id));
    expect(kept?.projectId).toBeNull();
    // The thread's charge stays in the ledger, no longer attributed to the deleted project.
    const [charge] = await h.db
      .select()
      .from(creditLedger)
      .where(eq(creditLedger.requestId, String(threadResponse.headers['x-request-id'])));
    expect(charge).toMatchObject({ kind: 'charge', projectId: null, workspaceId: owner.workspaceId });
  });
});

describe('project permissions', () => {
  const roles: AssignableRole[] = ['department_admin', 'manager', 'editor', 'creative_specialist', 'analyst', 'viewer', 'client_viewer'];
  let workspaceId: string;
  const members: Partial<Record<WorkspaceRole, Tenant>> = {};

  beforeAll(async () => {
    workspaceId = (await h.post('/workspaces', owner.key, { name: 'Roles' })).body.id;
    members.owner = owner;
    for (const role of roles) {
      const person = await h.tenant();
      await h.post(`/workspaces/${workspaceId}/members`, owner.key, { email: person.email, role });
      members[role] = person;
    }
  });

  it.each([
    ['owner', true, true, true],
    ['department_admin', true, true, true],
    ['manager', true, false, true],
    ['editor', true, false, true],
    ['creative_specialist', true, false, false],
    ['analyst', false, false, false],
    ['viewer', false, false, false],
    ['client_viewer', false, false, false],
  ] as const)('%s: create/update %s, set billing %s, delete %s', async (role, write, billing, remove) => {
    const key = (members[role] as Tenant).key;
    const created = await h.post('/projects', key, { workspace_id: workspaceId, name: `By ${role}` });
    expect(created.status).toBe(write ? 200 : 403);
    const target = write ? created.body.id : (await h.post('/projects', owner.key, { workspace_id: workspaceId, name: 'Target' })).body.id;
    expect((await h.get(`/projects/${target}`, key)).status).toBe(200);
    expect((await h.patch(`/projects/${target}`, key, { goal: 'New goal' })).status).toBe(write ? 200 : 403);
    const withBudget = await h.post('/projects', key, { workspace_id: workspaceId, name: 'Budgeted', budget_alert: 10 });
    expect(withBudget.status).toBe(billing ? 200 : 403);
    if (!billing) expect(errorOf(withBudget).param).toBe(write ? 'budget_alert' : null);
    const limited = await h.patch(`/projects/${target}`, key, { usage_limit: 50 });
    expect(limited.status).toBe(billing ? 200 : 403);
    expect((await h.delete(`/projects/${target}`, key)).status).toBe(remove ? 200 : 403);
  });
});
