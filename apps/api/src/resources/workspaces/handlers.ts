import type { HandlerMap } from '../../contract/handler-types.js';
import { errors } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import { applyPatch, deleteInTransaction, patchInTransaction } from '../../lib/patch.js';
import { deleted } from '../../lib/wire.js';
import {
  BILLING_COLUMNS,
  BILLING_FIELD_RULES,
  checkThresholds,
  requireFieldRoles,
  requireMembership,
  requireRole,
  roleLabel,
  type WorkspaceRow,
} from '../../workspaces/access.js';
import { canChangeRole, canGrant, canRemove, type WorkspaceRole } from '../../workspaces/roles.js';
import { countsOfRow, toMember, toWorkspace } from './mapper.js';
import { personasChangedHere } from '../personas/cache.js';
import {
  deleteMember,
  deleteWorkspaceRow,
  embeddedMembers,
  findMember,
  findUserByEmail,
  insertMember,
  insertUser,
  insertWorkspace,
  listMembers,
  type NewWorkspaceRow,
  listWorkspacesOf,
  setMemberRole,
  updateWorkspaceRow,
} from './repository.js';

/** Renaming needs `workspace.rename`; the spending fields are a billing decision. */
const WORKSPACE_FIELD_RULES = { name: 'workspace.rename', image: 'workspace.rename', ...BILLING_FIELD_RULES } as const;

export const workspaceHandlers = {
  listWorkspaces: async ({ query }, ctx) => {
    const page = await listWorkspacesOf(ctx.db, ctx.auth.userId, query);
    const result = { ...page, data: page.data.map(({ item }) => item) };
    if (query.include_members) {
      // A client_viewer does not see the staff of an agency (same rule as GET /workspaces/{id}/members).
      const visible = page.data.filter(({ role }) => role !== 'client_viewer').map(({ item }) => item.id);
      const members = await embeddedMembers(ctx.db, visible);
      for (const item of result.data) {
        const list = members.get(item.id);
        if (list) item.members = list;
      }
    }
    return result;
  },

  getWorkspace: async ({ params, query }, ctx) => {
    const membership = await requireMembership(ctx.db, params.id, ctx.auth.userId);
    const workspace = toWorkspace(membership, countsOfRow(membership.workspace), ctx.auth.userId);
    if (query.include_members) {
      requireRole(membership.role, 'members.list', 'see the members of this workspace', 'include_members');
      workspace.members = (await embeddedMembers(ctx.db, [params.id])).get(params.id) ?? [];
    }
    return workspace;
  },

  createWorkspace: async ({ body }, ctx) => {
    checkThresholds(body.budget_alert, body.usage_limit);
    const now = ctx.now();
    const row: NewWorkspaceRow = {
      id: newId('ws'),
      accountId: ctx.auth.accountId,
      ownerUserId: ctx.auth.userId,
      name: body.name,
      type: body.type ?? 'user',
      image: body.image ?? null,
      budgetAlert: body.budget_alert ?? null,
      usageLimit: body.usage_limit ?? null,
      billingEmail: body.billing_email ?? null,
      createdAt: now,
      updatedAt: now,
    };
    const stored = await ctx.db.transaction((tx) => insertWorkspace(tx, row, ctx.auth.userId));
    return toWorkspace({ workspace: stored, role: 'owner' }, countsOfRow(stored), ctx.auth.userId);
  },

  updateWorkspace: async ({ params, body }, ctx) => {
    const { found, next } = await patchInTransaction(ctx.db, {
      find: (tx) => requireMembership(tx, params.id, ctx.auth.userId),
      authorize: (membership) => requireFieldRoles(membership.role, body, WORKSPACE_FIELD_RULES, (field) => `change the ${field} of this workspace`),
      merge: (membership): WorkspaceRow => ({
        ...applyPatch(membership.workspace, body, { name: 'name', image: 'image', ...BILLING_COLUMNS }),
        updatedAt: ctx.now(),
      }),
      validate: (next) => checkThresholds(next.budgetAlert, next.usageLimit),
      save: updateWorkspaceRow,
    });
    return toWorkspace({ workspace: next, role: found.role }, countsOfRow(next), ctx.auth.userId);
  },

  deleteWorkspace: async ({ params }, ctx) => {
    const deletedWorkspace = await deleteInTransaction(ctx.db, { object: 'workspace', id: params.id }, async (tx) => {
      const membership = await requireMembership(tx, params.id, ctx.auth.userId);
      requireRole(membership.role, 'workspace.delete', 'delete this workspace; only its owner can');
      // Everything inside (projects, members, threads, generations, files…) goes with it (deleteWorkspaceRow);
      // the credit ledger keeps its rows with the workspace id cleared.
      await deleteWorkspaceRow(tx, params.id);
    });
    personasChangedHere();
    return deletedWorkspace;
  },

  listWorkspaceMembers: async ({ params, query }, ctx) => {
    const membership = await requireMembership(ctx.db, params.id, ctx.auth.userId);
    requireRole(membership.role, 'members.list', 'see the members of this workspace');
    return listMembers(ctx.db, params.id, query);
  },

  addWorkspaceMember: async ({ params, body }, ctx) => {
    const member = await ctx.db.transaction(async (tx) => {
      const membership = await requireMembership(tx, params.id, ctx.auth.userId);
      requireRole(membership.role, 'members.manage', 'add members to this workspace');
      if (!canGrant(membership.role, body.role)) {
        throw errors.permissionDenied(`Your role (${roleLabel(membership.role)}) cannot grant the ${roleLabel(body.role)} role.`, 'role');
      }
      const now = ctx.now();
      let user = await findUserByEmail(tx, body.email);
      if (!user) {
        user = { id: newId('usr'), email: body.email, accountId: null, createdAt: now };
        await insertUser(tx, user);
        ctx.log.info({ workspace_id: params.id, user_id: user.id }, 'workspace invitation e-mail queued');
      }
      if (!(await insertMember(tx, { workspaceId: params.id, userId: user.id, role: body.role, joinedAt: now }))) {
        throw errors.conflict('duplicate_resource', `${body.email} is already a member of this workspace; change the role with PATCH.`, 'email');
      }
      return { userId: user.id, email: user.email, role: body.role, joinedAt: now, accountId: user.accountId };
    });
    return toMember(member);
  },

  updateWorkspaceMember: async ({ params, body }, ctx) => {
    const member = await ctx.db.transaction(async (tx) => {
      const membership = await requireMembership(tx, params.id, ctx.auth.userId);
      requireRole(membership.role, 'members.manage', "change members' roles in this workspace");
      const target = await findMember(tx, params.id, params.user_id);
      if (target.userId === ctx.auth.userId) throw errors.permissionDenied('You cannot change your own role.', 'user_id');
      if (!canChangeRole(membership.role, target.role as WorkspaceRole, body.role)) {
        throw errors.permissionDenied(
          `Your role (${roleLabel(membership.role)}) cannot change a ${roleLabel(target.role as WorkspaceRole)} to ${roleLabel(body.role)}.`,
          target.role === 'owner' ? 'user_id' : 'role',
        );
      }
      await setMemberRole(tx, params.id, params.user_id, body.role);
      return { ...target, role: body.role };
    });
    return toMember(member);
  },

  removeWorkspaceMember: async ({ params }, ctx) => {
    await ctx.db.transaction(async (tx) => {
      const membership = await requireMembership(tx, params.id, ctx.auth.userId);
      const target = await findMember(tx, params.id, params.user_id);
      const leaving = target.userId === ctx.auth.userId;
      if (target.role === 'owner') {
        throw errors.permissionDenied('The owner cannot be removed from a workspace; delete the workspace instead.', 'user_id');
      }
      if (!leaving && !canRemove(membership.role, target.role as WorkspaceRole)) {
        throw errors.permissionDenied(
          `Your role (${roleLabel(membership.role)}) cannot remove a ${roleLabel(target.role as WorkspaceRole)} from this workspace.`,
          'user_id',
        );
      }
      await deleteMember(tx, params.id, params.user_id);
    });
    personasChangedHere();
    // A member is named by its user id (the contract's DeletedResource).
    return deleted('workspace.member', params.user_id);
  },
} satisfies Pick<
  HandlerMap,
  | 'listWorkspaces'
  | 'createWorkspace'
  | 'getWorkspace'
  | 'updateWorkspace'
  | 'deleteWorkspace'
  | 'listWorkspaceMembers'
  | 'addWorkspaceMember'
  | 'updateWorkspaceMember'
  | 'removeWorkspaceMember'
>;
