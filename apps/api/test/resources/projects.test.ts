import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { reconcileCounts } from '../../src/billing/reconcile.js';
import { agentThreads, creditLedger, projects, workspaces } from '../../src/db/schema/index.js';
import { insertGeneration } from '../../src/resources/generations/repository.js';
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
      // Stored as the generations module stores one, without its charge.
      await h.db.transaction((tx) =>
        insertGeneration(tx, {
          id: `gen_c${start}`,
          workspaceId: owner.workspaceId,
          projectId: project.id,
          createdByUserId: null,
          title: 'Post',
          ...storedGenerationFields,
          brandVoice: null,
          persona: null,
          createdAt: h.clock.now(),
          updatedAt: h.clock.now(),
        }),
      );
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

  it('counts the credits of whole UTC days: the current one and the 13 before it', async () => {
    const project = (await h.post('/projects', owner.key, { workspace_id: owner.workspaceId, name: 'Days' })).body;
    const start = h.clock.ms();
    const day0 = Date.UTC(2031, 0, 1);
    try {
      h.clock.set(new Date(day0 + 23 * 60 * 60 * 1000));
      expect((await h.post('/agent/threads', owner.key, { workspace_id: owner.workspaceId, project_id: project.id })).status).toBe(200);
      // Day 13, 22:00: day 0 is the first of the 14 days.
      h.clock.set(new Date(day0 + 13 * DAY + 22 * 60 * 60 * 1000));
      expect((await h.get(`/projects/${project.id}`, owner.key)).body.credits_used_14d).toBe(PRICE);
      // Day 14, 00:30: 13 days and 90 minutes after the charge, but day 0 has left the window.
      h.clock.set(new Date(day0 + 14 * DAY + 30 * 60 * 1000));
      expect((await h.get(`/projects/${project.id}`, owner.key)).body.credits_used_14d).toBe(0);
    } finally {
      h.clock.set(new Date(start));
    }
  });

  it('keeps its counts and those of its workspace exact as threads, generations and projects come and go', async () => {
    const t = await h.tenant({ credits: 100_000 });
    const counts = async (projectId: string) => {
      const { thread_count, agent_thread_count, generation_count } = (await h.get(`/projects/${projectId}`, t.key)).body;
      const workspace = (await h.get(`/workspaces/${t.workspaceId}`, t.key)).body;
      const listed = (await h.get(`/projects?workspace_id=${t.workspaceId}`, t.key)).body.data.find((p: { id: string }) => p.id === projectId);
      expect(listed).toMatchObject({ thread_count, agent_thread_count, generation_count });
      return { threads: agent_thread_count, generations: generation_count, inWorkspace: workspace.thread_count, projects: workspace.project_count };
    };
    const project = (await h.post('/projects', t.key, { workspace_id: t.workspaceId, name: 'Counted' })).body.id;
    const other = (await h.post('/projects', t.key, { workspace_id: t.workspaceId, name: 'Other' })).body.id;
    expect(await counts(project)).toEqual({ threads: 0, generations: 0, inWorkspace: 0, projects: 2 });

    const thread = async (projectId?: string) =>
      (await h.post('/agent/threads', t.key, { workspace_id: t.workspaceId, ...(projectId ? { project_id: projectId } : {}) })).body.id;
    const generation = async (projectId: string) => {
      const res = await h.post('/generations', t.key, {
        app_id: 'app_linkedin_post',
        input_data: { topic: 'Cold brew', post_length: 'short' },
        project_id: projectId,
      });
      expect(res.status).toBe(200);
      return res.body.id as string;
    };
    const [t1, t2] = [await thread(project), await thread(project)];
    await thread(other);
    await thread();
    const [g1] = [await generation(project), await generation(project), await generation(other)];
    expect(await counts(project)).toEqual({ threads: 2, generations: 2, inWorkspace: 4, projects: 2 });
    expect(await counts(other)).toMatchObject({ threads: 1, generations: 1 });

    expect((await h.delete(`/agent/threads/${t1}`, t.key)).status).toBe(200);
    expect((await h.delete(`/generations/${g1}`, t.key)).status).toBe(200);
    expect(await counts(project)).toEqual({ threads: 1, generations: 1, inWorkspace: 3, projects: 2 });
    // Deleting again changes nothing: the second delete is a 404.
    expect((await h.delete(`/agent/threads/${t1}`, t.key)).status).toBe(404);
    expect((await h.delete(`/generations/${g1}`, t.key)).status).toBe(404);
    expect(await counts(project)).toEqual({ threads: 1, generations: 1, inWorkspace: 3, projects: 2 });
    // A thread or generation whose project is in another workspace is refused, and counted nowhere.
    const elsewhere = (await h.post('/workspaces', t.key, { name: 'Elsewhere' })).body.id;
    expect((await h.post('/agent/threads', t.key, { workspace_id: elsewhere, project_id: project })).status).toBe(404);
    expect(await counts(project)).toEqual({ threads: 1, generations: 1, inWorkspace: 3, projects: 2 });

    // A deleted project leaves its thread and generation in the workspace, still counted there.
    expect((await h.delete(`/projects/${project}`, t.key)).status).toBe(200);
    expect((await h.delete(`/projects/${project}`, t.key)).status).toBe(404);
    expect(await counts(other)).toEqual({ threads: 1, generations: 1, inWorkspace: 3, projects: 1 });
    expect((await h.delete(`/agent/threads/${t2}`, t.key)).status).toBe(200);
    expect(await counts(other)).toEqual({ threads: 1, generations: 1, inWorkspace: 2, projects: 1 });
    const mine = (await reconcileCounts(h.db)).filter((m) => [t.workspaceId, elsewhere, project, other, t.accountId].includes(m.id));
    expect(mine).toEqual([]);
  });

  it('keeps the counts exact under concurrent creates and deletes, and a project deleted while its threads are deleted', async () => {
    const t = await h.tenant({ credits: 100_000 });
    const project = (await h.post('/projects', t.key, { workspace_id: t.workspaceId, name: 'Busy' })).body.id;
    const newThread = () => h.post('/agent/threads', t.key, { workspace_id: t.workspaceId, project_id: project });
    const created = await Promise.all(Array.from({ length: 8 }, newThread));
    expect(created.map((res) => res.status)).toEqual(Array(8).fill(200));
    // Each of four threads deleted twice at once: one delete wins, the other is a 404.
    const deletes = await Promise.all(
      created.slice(0, 4).flatMap((res) => [h.delete(`/agent/threads/${res.body.id}`, t.key), h.delete(`/agent/threads/${res.body.id}`, t.key)]),
    );
    expect(deletes.map((res) => res.status).sort()).toEqual([...Array(4).fill(200), ...Array(4).fill(404)]);
    expect((await h.get(`/projects/${project}`, t.key)).body).toMatchObject({ agent_thread_count: 4 });
    expect((await h.get(`/workspaces/${t.workspaceId}`, t.key)).body).toMatchObject({ thread_count: 4, project_count: 1 });

    // The project goes while its threads are deleted: both take the workspace's lock first, so neither
    // waits on the other's row (no deadlock) and every count lands once.
    const remaining = created.slice(4).map((res) => res.body.id as string);
    const racing = await Promise.all([...remaining.map((id) => h.delete(`/agent/threads/${id}`, t.key)), h.delete(`/projects/${project}`, t.key)]);
    expect(racing.map((res) => res.status)).toEqual(Array(5).fill(200));
    expect((await h.get(`/workspaces/${t.workspaceId}`, t.key)).body).toMatchObject({ thread_count: 0, project_count: 0 });
    expect((await reconcileCounts(h.db)).filter((m) => [t.workspaceId, project].includes(m.id))).toEqual([]);
  });

  it('leaves counters to their increments when a project or workspace is renamed', async () => {
    const t = await h.tenant({ credits: 100_000 });
    const project = (await h.post('/projects', t.key, { workspace_id: t.workspaceId, name: 'Before' })).body.id;
    await h.post('/agent/threads', t.key, { workspace_id: t.workspaceId, project_id: project });
    // A PATCH writes the fields it changes, never the counters it read (a concurrent count would be lost):
    // a counter changed behind the PATCH's back stays as it is.
    await h.db.update(projects).set({ agentThreadCount: 7 }).where(eq(projects.id, project));
    await h.db.update(workspaces).set({ agentThreadCount: 9 }).where(eq(workspaces.id, t.workspaceId));
    expect((await h.patch(`/projects/${project}`, t.key, { name: 'After' })).body).toMatchObject({ name: 'After' });
    expect((await h.patch(`/workspaces/${t.workspaceId}`, t.key, { name: 'Renamed' })).body).toMatchObject({ name: 'Renamed' });
    const [row] = await h.db.select().from(projects).where(eq(projects.id, project));
    const [workspace] = await h.db.select().from(workspaces).where(eq(workspaces.id, t.workspaceId));
    expect([row?.agentThreadCount, workspace?.agentThreadCount]).toEqual([7, 9]);
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
