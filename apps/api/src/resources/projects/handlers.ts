import type { HandlerMap } from '../../contract/handler-types.js';
import { newId } from '../../lib/ids.js';
import { applyPatch, deleteInTransaction, patchInTransaction } from '../../lib/patch.js';
import { BILLING_COLUMNS, BILLING_FIELD_RULES, checkThresholds, requireFieldRoles, requireMembership, requireRole } from '../../workspaces/access.js';
import type { WorkspaceRole } from '../../workspaces/roles.js';
import { toProject, type ProjectRow } from './mapper.js';
import { deleteProjectRow, findProject, insertProject, listProjectsOf, updateProjectRow } from './repository.js';

/** 403 naming the first billing field of a project the role may not set. */
const requireBillingRole = (role: WorkspaceRole, body: object, isSet?: (value: unknown) => boolean) =>
  requireFieldRoles(role, body, BILLING_FIELD_RULES, (field) => `set the ${field} of a project`, isSet);

export const projectHandlers = {
  listProjects: async ({ query }, ctx) => {
    if (query.workspace_id) await requireMembership(ctx.db, query.workspace_id, ctx.auth.userId, 'workspace_id');
    return listProjectsOf(ctx.db, ctx.auth.userId, ctx.now(), query);
  },

  getProject: async ({ params }, ctx) => toProject(await findProject(ctx.db, ctx.auth.userId, params.id, ctx.now())),

  createProject: async ({ body }, ctx) => {
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
      agentThreadCount: 0,
      generationCount: 0,
      createdAt: now,
      updatedAt: now,
    };
    await ctx.db.transaction((tx) => insertProject(tx, row));
    return toProject({ project: row, workspaceName: membership.workspace.name, creditsUsed14d: 0 });
  },

  updateProject: async ({ params, body }, ctx) => {
    const { found, next } = await patchInTransaction(ctx.db, {
      find: (tx) => findProject(tx, ctx.auth.userId, params.id, ctx.now()),
      authorize: (current) => {
        requireRole(current.role, 'content.update', 'update projects in this workspace');
        requireBillingRole(current.role, body);
      },
      merge: (current): ProjectRow => ({ ...applyPatch(current.project, body, { name: 'name', goal: 'goal', ...BILLING_COLUMNS }), updatedAt: ctx.now() }),
      validate: (next) => checkThresholds(next.budgetAlert, next.usageLimit),
      save: updateProjectRow,
    });
    return toProject({ ...found, project: next });
  },

  deleteProject: async ({ params }, ctx) =>
    deleteInTransaction(ctx.db, { object: 'project', id: params.id }, async (tx) => {
      const current = await findProject(tx, ctx.auth.userId, params.id, ctx.now());
      requireRole(current.role, 'content.delete', 'delete projects in this workspace');
      // Threads and generations stay in the workspace with project_id null (ON DELETE SET NULL).
      await deleteProjectRow(tx, current.project);
    }),
} satisfies Pick<HandlerMap, 'listProjects' | 'createProject' | 'getProject' | 'updateProject' | 'deleteProject'>;
