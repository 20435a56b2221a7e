import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/admin/accounts.js';
import { reconcileCounts } from '../../src/billing/reconcile.js';
import { agentThreads, creditLedger, projects, workspaceMembers, workspaces } from '../../src/db/schema/index.js';
import type { AssignableRole, WorkspaceRole } from '../../src/workspaces/roles.js';
import { chargedCreateAgentThread } from '../support/charged-handler.js';
import { errorOf, useHarness, useTenant, type Tenant } from '../support/harness.js';

// (workspaces and members), with the role permissions of DECISIONS.md.

const h = useHarness({ handlers: { createAgentThread: chargedCreateAgentThread } });
const owner = useTenant(h);

/** A workspace of `owner` plus one member per role, each with their own key. */
async function teamWorkspace(roles: AssignableRole[]) {
  const created = await h.post('/workspaces', owner.key, { name: 'Team', type: 'marketing_agency' });
  const id: string = created.body.id;
  const members: Partial<Record<AssignableRole, Tenant>> = {};
  for (const role of roles) {
    const person = await h.tenant();
    h.clock.advance(1); // joined_at orders members; ties would fall back to the random user id
    expect((await h.post(`/workspaces/${id}/members`, owner.key, { email: person.email, role })).status).toBe(200);
    members[role] = person;
  }
  return { id, members };
}

describe('create, read, list', () => {
  it('creates a workspace owned by the caller, who becomes its owner member', async () => {
    const res = await h.post('/workspaces', owner.key, {
      name: 'Northwind',
      type: 'marketing_agency',
      budget_alert: 400,
      usage_limit: 500,
      billing_email: 'finance@northwind.example',
      image: 'https://cdn.example/logo.png',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      object: 'workspace',
      name: 'Northwind',
      type: 'marketing_agency',
      role: 'owner',
      is_owner: true,
      member_count: 1,
      project_count: 0,
      thread_count: 0,
      budget_alert: 400,
      usage_limit: 500,
      billing_email: 'finance@northwind.example',
      image: 'https://cdn.example/logo.png',
    });
    expect(res.body.id).toMatch(/^ws_/);
    const read = await h.get(`/workspaces/${res.body.id}`, owner.key);
    expect(read.body).toEqual(res.body);
  });

  it('defaults the type to user and refuses a budget alert above the usage limit', async () => {
    expect((await h.post('/workspaces', owner.key, { name: 'Plain' })).body.type).toBe('user');
    const conflict = await h.post('/workspaces', owner.key, { name: 'Bad', budget_alert: 10, usage_limit: 5 });
    expect(conflict.status).toBe(400);
    expect(errorOf(conflict)).toEqual({ type: 'invalid_request_error', code: 'parameter_conflict', param: 'budget_alert' });
  });

  it('lists the workspaces the caller owns or belongs to, without type and role', async () => {
    const me = await h.tenant();
    const other = await h.tenant();
    await h.post(`/workspaces/${other.workspaceId}/members`, other.key, { email: me.email, role: 'viewer' });
    const list = await h.get('/workspaces', me.key);
    expect(list.body.data.map((w: { id: string }) => w.id).sort()).toEqual([me.workspaceId, other.workspaceId].sort());
    const shared = list.body.data.find((w: { id: string }) => w.id === other.workspaceId);
    expect(shared).toMatchObject({ is_owner: false, member_count: 2 });
    expect(shared).not.toHaveProperty('type');
    expect(shared).not.toHaveProperty('role');
    expect(shared).not.toHaveProperty('members');
  });

  it('searches names case-insensitively, with % and _ taken literally', async () => {
    const me = await h.tenant();
    for (const name of ['Alpha Team', 'alphabet soup', 'Beta', '100% Alpha_ish']) await h.post('/workspaces', me.key, { name });
    const names = async (search: string) =>
      (await h.get(`/workspaces?search=${encodeURIComponent(search)}`, me.key)).body.data.map((w: { name: string }) => w.name).sort();
    expect(await names('ALPHA')).toEqual(['100% Alpha_ish', 'Alpha Team', 'alphabet soup']);
    expect(await names('%')).toEqual(['100% Alpha_ish']);
    expect(await names('a_i')).toEqual(['100% Alpha_ish']);
  });

  it('embeds the members with include_members, in the list and on a read', async () => {
    const { id } = await teamWorkspace(['editor']);
    const list = await h.get('/workspaces?include_members=true&search=Team', owner.key);
    const team = list.body.data.find((w: { id: string }) => w.id === id);
    expect(team.members.map((m: { role: string }) => m.role)).toEqual(['editor', 'owner']);
    const read = await h.get(`/workspaces/${id}?include_members=true`, owner.key);
    expect(read.body.members).toHaveLength(2);
    expect(read.body.members[1]).toMatchObject({ object: 'workspace.member', email: owner.email, role: 'owner', status: 'active' });
  });

  it('counts members, projects and threads', async () => {
    const t = await h.tenant();
    await h.post('/projects', t.key, { workspace_id: t.workspaceId, name: 'P1' });
    await h.post('/projects', t.key, { workspace_id: t.workspaceId, name: 'P2' });
    expect((await h.post('/agent/threads', t.key, { workspace_id: t.workspaceId })).status).toBe(200);
    await h.post(`/workspaces/${t.workspaceId}/members`, t.key, { email: 'new.person@invite.example', role: 'viewer' });
    const res = await h.get(`/workspaces/${t.workspaceId}`, t.key);
    expect(res.body).toMatchObject({ member_count: 2, project_count: 2, thread_count: 1 });
  });

  it('keeps the counts exact as members, projects and threads come and go', async () => {
    const t = await h.tenant();
    const counts = async () => {
      const read = (await h.get(`/workspaces/${t.workspaceId}`, t.key)).body;
      const listed = (await h.get('/workspaces?limit=100', t.key)).body.data.find((w: { id: string }) => w.id === t.workspaceId);
      const figures = { members: read.member_count, projects: read.project_count, threads: read.thread_count };
      expect({ members: listed.member_count, projects: listed.project_count, threads: listed.thread_count }).toEqual(figures);
      return figures;
    };
    expect(await counts()).toEqual({ members: 1, projects: 0, threads: 0 });
    const joiner = await h.tenant();
    expect((await h.post(`/workspaces/${t.workspaceId}/members`, t.key, { email: joiner.email, role: 'editor' })).status).toBe(200);
    expect((await h.post(`/workspaces/${t.workspaceId}/members`, t.key, { email: 'invited@count.example', role: 'viewer' })).status).toBe(200);
    // An existing member is refused (409) and not counted twice.
    expect((await h.post(`/workspaces/${t.workspaceId}/members`, t.key, { email: joiner.email, role: 'viewer' })).status).toBe(409);
    const project = (await h.post('/projects', t.key, { workspace_id: t.workspaceId, name: 'P' })).body.id;
    const thread = (await h.post('/agent/threads', t.key, { workspace_id: t.workspaceId, project_id: project })).body.id;
    await h.post('/agent/threads', t.key, { workspace_id: t.workspaceId });
    expect(await counts()).toEqual({ members: 3, projects: 1, threads: 2 });

    // One member leaves, the owner removes the other; removing again is a 404 and counts nothing.
    expect((await h.delete(`/workspaces/${t.workspaceId}/members/${joiner.userId}`, joiner.key)).status).toBe(200);
    const invited = (await h.get(`/workspaces/${t.workspaceId}/members?status=invited`, t.key)).body.data[0].user_id;
    expect((await h.delete(`/workspaces/${t.workspaceId}/members/${invited}`, t.key)).status).toBe(200);
    expect((await h.delete(`/workspaces/${t.workspaceId}/members/${invited}`, t.key)).status).toBe(404);
    expect((await h.delete(`/projects/${project}`, t.key)).status).toBe(200);
    expect(await counts()).toEqual({ members: 1, projects: 0, threads: 2 });
    expect((await h.delete(`/agent/threads/${thread}`, t.key)).status).toBe(200);
    expect(await counts()).toEqual({ members: 1, projects: 0, threads: 1 });
    expect((await reconcileCounts(h.db)).filter((m) => m.id === t.workspaceId)).toEqual([]);
  });
});

describe('update', () => {
  it('changes only the fields given, and null clears a nullable field', async () => {
    const created = await h.post('/workspaces', owner.key, { name: 'Before', billing_email: 'a@b.example', image: 'https://x.example/i.png' });
    const res = await h.patch(`/workspaces/${created.body.id}`, owner.key, { name: 'After', image: null });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'After', image: null, billing_email: 'a@b.example', type: 'user' });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.body.updated_at));
  });

  it('checks budget_alert against the stored usage_limit', async () => {
    const created = await h.post('/workspaces', owner.key, { name: 'Limits', usage_limit: 100 });
    const res = await h.patch(`/workspaces/${created.body.id}`, owner.key, { budget_alert: 101 });
    expect(errorOf(res)).toEqual({ type: 'invalid_request_error', code: 'parameter_conflict', param: 'budget_alert' });
    expect((await h.patch(`/workspaces/${created.body.id}`, owner.key, { budget_alert: 100 })).status).toBe(200);
  });

  it('refuses the type: it is fixed at creation', async () => {
    const res = await h.patch(`/workspaces/${owner.workspaceId}`, owner.key, { type: 'enterprise' });
    expect(errorOf(res)).toEqual({ type: 'invalid_request_error', code: 'unknown_parameter', param: 'type' });
  });
});

describe('role permissions', () => {
  const roles: AssignableRole[] = ['department_admin', 'manager', 'editor', 'creative_specialist', 'analyst', 'viewer', 'client_viewer'];
  let team: Awaited<ReturnType<typeof teamWorkspace>>;
  beforeAll(async () => {
    team = await teamWorkspace(roles);
  });
  const keyOf = (role: WorkspaceRole) => (role === 'owner' ? owner.key : (team.members[role as AssignableRole] as Tenant).key);

  it.each([
    ['owner', true, true],
    ['department_admin', true, true],
    ['manager', true, false],
    ['editor', false, false],
    ['creative_specialist', false, false],
    ['analyst', false, false],
    ['viewer', false, false],
    ['client_viewer', false, false],
  ] as const)('%s: rename %s, set billing %s', async (role, rename, billing) => {
    const renamed = await h.patch(`/workspaces/${team.id}`, keyOf(role), { name: `Renamed by ${role}` });
    expect(renamed.status).toBe(rename ? 200 : 403);
    if (!rename) expect(errorOf(renamed)).toEqual({ type: 'invalid_request_error', code: 'permission_denied', param: 'name' });
    const limited = await h.patch(`/workspaces/${team.id}`, keyOf(role), { usage_limit: 1_000_000 });
    expect(limited.status).toBe(billing ? 200 : 403);
    if (!billing) expect(errorOf(limited).param).toBe('usage_limit');
  });

  it('names the first forbidden field of a mixed update', async () => {
    const res = await h.patch(`/workspaces/${team.id}`, keyOf('manager'), { name: 'Fine', billing_email: 'x@y.example' });
    expect(errorOf(res)).toEqual({ type: 'invalid_request_error', code: 'permission_denied', param: 'billing_email' });
  });

  it('lets every role read, and hides the member list from a client_viewer only', async () => {
    for (const role of ['owner', ...roles] as WorkspaceRole[]) {
      const read = await h.get(`/workspaces/${team.id}`, keyOf(role));
      expect(read.status).toBe(200);
      expect(read.body.role).toBe(role);
      const members = await h.get(`/workspaces/${team.id}/members`, keyOf(role));
      const embedded = await h.get(`/workspaces/${team.id}?include_members=true`, keyOf(role));
      const allowed = role !== 'client_viewer';
      expect(members.status).toBe(allowed ? 200 : 403);
      expect(embedded.status).toBe(allowed ? 200 : 403);
    }
    const clientList = await h.get('/workspaces?include_members=true', keyOf('client_viewer'));
    expect(clientList.body.data.find((w: { id: string }) => w.id === team.id)).not.toHaveProperty('members');
  });

  it('lets only the owner delete the workspace', async () => {
    for (const role of roles) {
      const res = await h.delete(`/workspaces/${team.id}`, keyOf(role));
      expect(res.status).toBe(403);
      expect(errorOf(res).code).toBe('permission_denied');
    }
  });
});

describe('members', () => {
  it('adds an address with an account as active and any other as invited, newest first', async () => {
    const t = await h.tenant();
    const colleague = await h.tenant();
    h.clock.advance(1_000);
    const active = await h.post(`/workspaces/${t.workspaceId}/members`, t.key, { email: colleague.email.toUpperCase(), role: 'editor' });
    expect(active.body).toMatchObject({ object: 'workspace.member', user_id: colleague.userId, role: 'editor', status: 'active' });
    h.clock.advance(1_000);
    const invited = await h.post(`/workspaces/${t.workspaceId}/members`, t.key, { email: 'client@harborlight.example', role: 'client_viewer' });
    expect(invited.body).toMatchObject({ email: 'client@harborlight.example', role: 'client_viewer', status: 'invited' });
    const list = await h.get(`/workspaces/${t.workspaceId}/members`, t.key);
    expect(list.body.data.map((m: { role: string }) => m.role)).toEqual(['client_viewer', 'editor', 'owner']);
    const onlyInvited = await h.get(`/workspaces/${t.workspaceId}/members?status=invited`, t.key);
    expect(onlyInvited.body.data.map((m: { email: string }) => m.email)).toEqual(['client@harborlight.example']);
    const editors = await h.get(`/workspaces/${t.workspaceId}/members?role=editor`, t.key);
    expect(editors.body.data).toHaveLength(1);
  });

  it('turns an invited member active when the address signs up', async () => {
    const t = await h.tenant();
    const email = `later.${Date.now()}@signup.example`;
    await h.post(`/workspaces/${t.workspaceId}/members`, t.key, { email, role: 'viewer' });
    await createAccount(h.db, { name: 'Later', email, tier: 'starter', credits: 0 });
    const list = await h.get(`/workspaces/${t.workspaceId}/members?role=viewer`, t.key);
    expect(list.body.data[0]).toMatchObject({ email, status: 'active' });
  });

  it('refuses an existing member: 409 duplicate_resource on email', async () => {
    const t = await h.tenant();
    await h.post(`/workspaces/${t.workspaceId}/members`, t.key, { email: 'dup@x.example', role: 'viewer' });
    const again = await h.post(`/workspaces/${t.workspaceId}/members`, t.key, { email: 'DUP@x.example', role: 'editor' });
    expect(again.status).toBe(409);
    expect(errorOf(again)).toEqual({ type: 'invalid_request_error', code: 'duplicate_resource', param: 'email' });
  });

  it('refuses owner as an assignable role', async () => {
    const res = await h.post(`/workspaces/${owner.workspaceId}/members`, owner.key, { email: 'o@x.example', role: 'owner' });
    expect(errorOf(res)).toMatchObject({ code: 'invalid_parameter', param: 'role' });
  });

  it('lets a manager grant and change only roles below manager', async () => {
    const { id, members } = await teamWorkspace(['manager', 'department_admin', 'analyst']);
    const manager = members.manager as Tenant;
    expect((await h.post(`/workspaces/${id}/members`, manager.key, { email: 'm1@x.example', role: 'editor' })).status).toBe(200);
    const grantManager = await h.post(`/workspaces/${id}/members`, manager.key, { email: 'm2@x.example', role: 'manager' });
    expect(errorOf(grantManager)).toEqual({ type: 'invalid_request_error', code: 'permission_denied', param: 'role' });
    const analyst = members.analyst as Tenant;
    expect((await h.patch(`/workspaces/${id}/members/${analyst.userId}`, manager.key, { role: 'viewer' })).body.role).toBe('viewer');
    expect((await h.patch(`/workspaces/${id}/members/${analyst.userId}`, manager.key, { role: 'department_admin' })).status).toBe(403);
    const admin = members.department_admin as Tenant;
    expect((await h.patch(`/workspaces/${id}/members/${admin.userId}`, manager.key, { role: 'viewer' })).status).toBe(403);
    expect((await h.delete(`/workspaces/${id}/members/${admin.userId}`, manager.key)).status).toBe(403);
    // The department admin may do all of it.
    expect((await h.patch(`/workspaces/${id}/members/${manager.userId}`, admin.key, { role: 'editor' })).body.role).toBe('editor');
  });

  it('refuses adding members to roles that do not manage them', async () => {
    const { id, members } = await teamWorkspace(['editor']);
    const res = await h.post(`/workspaces/${id}/members`, (members.editor as Tenant).key, { email: 'z@x.example', role: 'viewer' });
    expect(errorOf(res).code).toBe('permission_denied');
  });

  it("never changes the owner's role or one's own", async () => {
    const { id, members } = await teamWorkspace(['department_admin']);
    const admin = members.department_admin as Tenant;
    const onOwner = await h.patch(`/workspaces/${id}/members/${owner.userId}`, admin.key, { role: 'viewer' });
    expect(errorOf(onOwner)).toMatchObject({ code: 'permission_denied', param: 'user_id' });
    const onSelf = await h.patch(`/workspaces/${id}/members/${admin.userId}`, admin.key, { role: 'manager' });
    expect(errorOf(onSelf)).toMatchObject({ code: 'permission_denied', param: 'user_id' });
  });

  it('lets a member leave, never removes the owner, and keeps their content', async () => {
    const { id, members } = await teamWorkspace(['viewer', 'department_admin']);
    const viewer = members.viewer as Tenant;
    await h.db
      .insert(agentThreads)
      .values({ id: `thr_kept${Date.now()}`, workspaceId: id, title: 'By the viewer', createdAt: h.clock.now(), updatedAt: h.clock.now() });
    const left = await h.delete(`/workspaces/${id}/members/${viewer.userId}`, viewer.key);
    expect(left.body).toEqual({ id: viewer.userId, object: 'workspace.member', deleted: true });
    expect((await h.get(`/workspaces/${id}`, viewer.key)).status).toBe(404);
    expect((await h.db.select().from(agentThreads).where(eq(agentThreads.workspaceId, id))).length).toBe(1);
    const admin = members.department_admin as Tenant;
    expect(errorOf(await h.delete(`/workspaces/${id}/members/${owner.userId}`, admin.key)).code).toBe('permission_denied');
    expect(errorOf(await h.delete(`/workspaces/${id}/members/${owner.userId}`, owner.key)).code).toBe('permission_denied');
  });

  it('answers 404 on user_id for someone who is not a member', async () => {
    const stranger = await h.tenant();
    const res = await h.patch(`/workspaces/${owner.workspaceId}/members/${stranger.userId}`, owner.key, { role: 'viewer' });
    expect(errorOf(res)).toEqual({ type: 'not_found', code: 'resource_not_found', param: 'user_id' });
  });
});

describe('delete', () => {
  it('deletes the workspace and everything in it, keeping the credit history', async () => {
    const t = await h.tenant({ credits: 10_000 });
    const project = await h.post('/projects', t.key, { workspace_id: t.workspaceId, name: 'Doomed' });
    await h.post('/agent/threads', t.key, { workspace_id: t.workspaceId, project_id: project.body.id });
    await h.post(`/workspaces/${t.workspaceId}/members`, t.key, { email: 'gone@x.example', role: 'viewer' });
    const res = await h.delete(`/workspaces/${t.workspaceId}`, t.key);
    expect(res.body).toEqual({ id: t.workspaceId, object: 'workspace', deleted: true });
    expect((await h.get(`/workspaces/${t.workspaceId}`, t.key)).status).toBe(404);
    expect((await h.get(`/projects/${project.body.id}`, t.key)).status).toBe(404);
    expect(await h.db.select().from(workspaces).where(eq(workspaces.id, t.workspaceId))).toHaveLength(0);
    expect(await h.db.select().from(workspaceMembers).where(eq(workspaceMembers.workspaceId, t.workspaceId))).toHaveLength(0);
    expect(await h.db.select().from(projects).where(eq(projects.workspaceId, t.workspaceId))).toHaveLength(0);
    expect(await h.db.select().from(agentThreads).where(eq(agentThreads.workspaceId, t.workspaceId))).toHaveLength(0);
    const ledger = await h.db.select().from(creditLedger).where(eq(creditLedger.accountId, t.accountId));
    expect(ledger.filter((row) => row.kind === 'charge')).toHaveLength(1);
    expect(ledger.every((row) => row.workspaceId === null)).toBe(true);
  });
});
