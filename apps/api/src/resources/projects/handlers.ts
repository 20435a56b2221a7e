import type { components } from '@persona-api/types';
import { and, eq, ilike, sql } from 'drizzle-orm';
import type { Handler } from '../contract/handler-types.js';
import type { Executor } from '../db/client.js';
import { qualified } from '../db/sql.js';
import { agentThreads, creditLedger, generations, projects, workspaceMembers, workspaces } from '../db/schema/index.js';
import { errors } from '../http/errors.js';
import type { RequestContext } from '../http/context.js';
import { newId } from '../lib/ids.js';
import { containsPattern, keyset, toPage } from '../lib/pagination.js';
import { applyPatch } from '../lib/patch.js';
import { BILLING_COLUMNS, BILLING_FIELD_RULES, checkThresholds, requireFieldRoles, requireMembership, requireRole } from '../workspaces/access.js';
import type { WorkspaceRole } from '../workspaces/roles.js';

type Project = components['schemas']['Project'];
type ProjectRow = typeof projects.$inferSelect;

const DAY_MS = 24 * 60 * 60 * 1000;

// Counts per project as correlated subqueries, so a page of projects is one query.
const agentThreadCount = sql<number>`(select count(*)::int from ${agentThreads} where ${qualified(agentThreads.projectId)} = ${qualified(projects.id)})`;
const generationCount = sql<number>`(select count(*)::int from ${generations} where ${qualified(generations.projectId)} = ${qualified(projects.id)})`;
const creditsUsed14d = (now: Date) =>
  sql<string>`(select coalesce(-sum(${qualified(creditLedger.amount)}), 0) from ${creditLedger}
    where ${qualified(creditLedger.projectId)} = ${qualified(projects.id)} and ${qualified(creditLedger.kind)} in ('charge', 'refund')
    and ${qualified(creditLedger.createdAt)} >= ${new Date(now.getTime() - 14 * DAY_MS).toISOString()})`;

const projectColumns = (now: Date) => ({
  project: projects,
  workspaceName: workspaces.name,
  role: workspaceMembers.role,
  agentThreadCount,
  generationCount,
  creditsUsed14d: creditsUsed14d(now),
});

interface ProjectView {
  project: ProjectRow;
  workspaceName: string;
  agentThreadCount: number;
  generationCount: number;
  creditsUsed14d: string | number;
}

function toProject(row: ProjectView): Project {
  const p = row.project;
  return {
    id: p.id,
    object: 'project',
    name: p.name,
    goal: p.goal,
    workspace_id: p.workspaceId,
    workspace_name: row.workspaceName,
    // Research-agent threads are the only kind of thread stored so far.
    thread_count: row.agentThreadCount,
    agent_thread_count: row.agentThreadCount,
    generation_count: row.generationCount,
    credits_used_14d: Math.max(0, Number(row.creditsUsed14d)),
    budget_alert: p.budgetAlert,
    usage_limit: p.usageLimit,
    billing_email: p.billingEmail,
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}

/** The project with the caller's role in its workspace; another tenant's project is a 404. */
async function findProject(db: Executor, ctx: RequestContext, projectId: string): Promise<ProjectView & { role: WorkspaceRole }> {
  const [row] = await db
    .select(projectColumns(ctx.now()))
    .from(projects)
    .innerJoin(workspaces, eq(workspaces.id, projects.workspaceId))
    .innerJoin(workspaceMembers, and(eq(workspaceMembers.workspaceId, projects.workspaceId), eq(workspaceMembers.userId, ctx.auth.userId)))
    .where(eq(projects.id, projectId))
    .limit(1);
  if (!row) throw errors.notFound('project', projectId);
  return { ...row, role: row.role as WorkspaceRole };
}

/** 403 naming the first billing field of a project the role may not set. */
const requireBillingRole = (role: WorkspaceRole, body: object, isSet?: (value: unknown) => boolean) =>
  requireFieldRoles(role, body, BILLING_FIELD_RULES, (field) => `set the ${field} of a project`, isSet);

export const listProjects: Handler<'listProjects'> = async ({ query }, ctx) => {
  if (query.workspace_id) await requireMembership(ctx.db, query.workspace_id, ctx.auth.userId, 'workspace_id');
  const page = { list: `projects:${query.workspace_id ?? '*'}`, limit: query.limit ?? 50, cursor: query.cursor };
  const { after, orderBy, fetch } = keyset(page, { sortKey: projects.createdAt, id: projects.id });
  const rows = await ctx.db
    .select(projectColumns(ctx.now()))
    .from(projects)
    .innerJoin(workspaces, eq(workspaces.id, projects.workspaceId))
    .innerJoin(workspaceMembers, and(eq(workspaceMembers.workspaceId, projects.workspaceId), eq(workspaceMembers.userId, ctx.auth.userId)))
    .where(
      and(
        query.workspace_id ? eq(projects.workspaceId, query.workspace_id) : undefined,
        query.search ? ilike(projects.name, containsPattern(query.search)) : undefined,
        after,
      ),
    )
    .orderBy(...orderBy)
    .limit(fetch);
  return toPage(page, rows, (row) => ({ sortKey: row.project.createdAt, id: row.project.id }), toProject);
};

export const getProject: Handler<'getProject'> = async ({ params }, ctx) => toProject(await findProject(ctx.db, ctx, params.id));

export const createProject: Handler<'createProject'> = async ({ body }, ctx) => {
  const membership = await requireMembership(ctx.db, body.workspace_id, ctx.auth.userId, 'workspace_id');
  requireRole(membership.role, 'content.create', 'create projects in this workspace');
  // The create body defaults these to null, which is the same as not setting them.
  requireBillingRole(membership.role, body, (value) => value !== null);
  checkThresholds(body.budget_alert, body.usage_limit);
  const now = ctx.now();
  const row: ProjectRow = {
    id: newId('proj'),
    workspaceId: body.workspace_id,
    name: body.name,
    goal: body.goal ?? null,
    budgetAlert: body.budget_alert ?? null,
    usageLimit: body.usage_limit ?? null,
    billingEmail: body.billing_email ?? null,
    createdAt: now,
    updatedAt: now,
  };
  await ctx.db.insert(projects).values(row);
  return toProject({ project: row, workspaceName: membership.workspace.name, agentThreadCount: 0, generationCount: 0, creditsUsed14d: 0 });
};

export const updateProject: Handler<'updateProject'> = async ({ params, body }, ctx) => {
  return ctx.db.transaction(async (tx) => {
    const current = await findProject(tx, ctx, params.id);
    requireRole(current.role, 'content.update', 'update projects in this workspace');
    requireBillingRole(current.role, body);
    const p = current.project;
    const next: ProjectRow = { ...applyPatch(p, body, { name: 'name', goal: 'goal', ...BILLING_COLUMNS }), updatedAt: ctx.now() };
    checkThresholds(next.budgetAlert, next.usageLimit);
    const { id: _id, ...changes } = next;
    await tx.update(projects).set(changes).where(eq(projects.id, p.id));
    return toProject({ ...current, project: next });
  });
};

export const deleteProject: Handler<'deleteProject'> = async ({ params }, ctx) => {
  await ctx.db.transaction(async (tx) => {
    const current = await findProject(tx, ctx, params.id);
    requireRole(current.role, 'content.delete', 'delete projects in this workspace');
    // Threads and generations stay in the workspace with project_id null (ON DELETE SET NULL).
    await tx.delete(projects).where(eq(projects.id, params.id));
  });
  return { id: params.id, object: 'project', deleted: true };
};
