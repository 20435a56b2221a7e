import type { components } from '@persona-api/types';
import { and, desc, eq, getTableName, ilike, inArray, isNotNull, isNull, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Handler } from '../contract/handler-types.js';
import type { Executor } from '../db/client.js';
import { qualified } from '../db/sql.js';
import { agentThreads, projects, users, workspaceMembers, workspaces } from '../db/schema/index.js';
import { errors } from '../http/errors.js';
import { newId } from '../lib/ids.js';
import { containsPattern, keyset, toPage } from '../lib/pagination.js';
import { applyPatch } from '../lib/patch.js';
import { BILLING_COLUMNS, BILLING_FIELD_RULES, checkThresholds, requireFieldRoles, requireMembership, requireRole, roleLabel, type Membership, type WorkspaceRow } from '../workspaces/access.js';
import { canChangeRole, canGrant, canRemove, type WorkspaceRole } from '../workspaces/roles.js';

type Workspace = components['schemas']['Workspace'];
type WorkspaceSummary = components['schemas']['WorkspaceSummary'];
type WorkspaceMember = components['schemas']['WorkspaceMember'];

/** The 1000 newest members when a workspace is read with include_members (WorkspaceSummary.members). */
const EMBEDDED_MEMBERS = 1000;

const countIn = (column: AnyPgColumn) =>
  sql<number>`(select count(*)::int from ${sql.identifier(getTableName(column.table))} where ${qualified(column)} = ${qualified(workspaces.id)})`;
const memberCount = countIn(workspaceMembers.workspaceId);
const projectCount = countIn(projects.workspaceId);
const threadCount = countIn(agentThreads.workspaceId);

interface WorkspaceCounts {
  memberCount: number;
  projectCount: number;
  threadCount: number;
}

async function countsOf(db: Executor, workspaceId: string): Promise<WorkspaceCounts> {
  const [row] = await db.select({ memberCount, projectCount, threadCount }).from(workspaces).where(eq(workspaces.id, workspaceId));
  return row ?? { memberCount: 0, projectCount: 0, threadCount: 0 };
}

function toSummary(row: WorkspaceRow, counts: WorkspaceCounts, userId: string): WorkspaceSummary {
  return {
    id: row.id,
    object: 'workspace',
    name: row.name,
    image: row.image,
    is_owner: row.ownerUserId === userId,
    member_count: counts.memberCount,
    project_count: counts.projectCount,
    thread_count: counts.threadCount,
    budget_alert: row.budgetAlert,
    usage_limit: row.usageLimit,
    billing_email: row.billingEmail,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

function toWorkspace(membership: Membership, counts: WorkspaceCounts, userId: string): Workspace {
  return {
    ...toSummary(membership.workspace, counts, userId),
    type: membership.workspace.type as Workspace['type'],
    role: membership.role,
  };
}

interface MemberRow {
  userId: string;
  email: string;
  role: string;
  joinedAt: Date;
  accountId: string | null;
}

const memberColumns = {
  userId: workspaceMembers.userId,
  email: users.email,
  role: workspaceMembers.role,
  joinedAt: workspaceMembers.joinedAt,
  accountId: users.accountId,
};

function toMember(row: MemberRow): WorkspaceMember {
  return {
    object: 'workspace.member',
    user_id: row.userId,
    email: row.email,
    role: row.role as WorkspaceRole,
    // Invited until the person has an account (signs up), active from then on.
    status: row.accountId === null ? 'invited' : 'active',
    joined_at: row.joinedAt.toISOString(),
  };
}

/** Members of several workspaces, the newest EMBEDDED_MEMBERS of each, newest first. */
async function embeddedMembers(db: Executor, workspaceIds: string[]): Promise<Map<string, WorkspaceMember[]>> {
  const byWorkspace = new Map<string, WorkspaceMember[]>(workspaceIds.map((id) => [id, []]));
  if (workspaceIds.length === 0) return byWorkspace;
  const ranked = db
    .select({
      ...memberColumns,
      workspaceId: workspaceMembers.workspaceId,
      rank: sql<number>`row_number() over (partition by ${workspaceMembers.workspaceId} order by ${workspaceMembers.joinedAt} desc, ${workspaceMembers.userId} desc)`.as(
        'rank',
      ),
    })
    .from(workspaceMembers)
    .innerJoin(users, eq(users.id, workspaceMembers.userId))
    .where(inArray(workspaceMembers.workspaceId, workspaceIds))
    .as('ranked');
  const rows = await db
    .select()
    .from(ranked)
    .where(sql`${ranked.rank} <= ${EMBEDDED_MEMBERS}`)
    .orderBy(ranked.workspaceId, desc(ranked.joinedAt), desc(ranked.userId));
  for (const row of rows) byWorkspace.get(row.workspaceId)?.push(toMember(row));
  return byWorkspace;
}

/** Renaming needs `workspace.rename`; the spending fields are a billing decision. */
const WORKSPACE_FIELD_RULES = { name: 'workspace.rename', image: 'workspace.rename', ...BILLING_FIELD_RULES } as const;

export const listWorkspaces: Handler<'listWorkspaces'> = async ({ query }, ctx) => {
  const userId = ctx.auth.userId;
  const page = { list: 'workspaces', limit: query.limit ?? 50, cursor: query.cursor };
  const { after, orderBy, fetch } = keyset(page, { sortKey: workspaces.createdAt, id: workspaces.id });
  const rows = await ctx.db
    .select({ workspace: workspaces, role: workspaceMembers.role, memberCount, projectCount, threadCount })
    .from(workspaces)
    .innerJoin(workspaceMembers, and(eq(workspaceMembers.workspaceId, workspaces.id), eq(workspaceMembers.userId, userId)))
    .where(and(query.search ? ilike(workspaces.name, containsPattern(query.search)) : undefined, after))
    .orderBy(...orderBy)
    .limit(fetch);
  const result = toPage(
    page,
    rows,
    (row) => ({ sortKey: row.workspace.createdAt, id: row.workspace.id }),
    (row) => toSummary(row.workspace, row, userId),
  );
  if (query.include_members) {
    // A client_viewer does not see the staff of an agency (same rule as GET /workspaces/{id}/members).
    const visible = rows.filter((row) => row.role !== 'client_viewer').map((row) => row.workspace.id);
    const members = await embeddedMembers(ctx.db, visible);
    for (const item of result.data) {
      const list = members.get(item.id);
      if (list) item.members = list;
    }
  }
  return result;
};

export const getWorkspace: Handler<'getWorkspace'> = async ({ params, query }, ctx) => {
  const membership = await requireMembership(ctx.db, params.id, ctx.auth.userId);
  const workspace = toWorkspace(membership, await countsOf(ctx.db, params.id), ctx.auth.userId);
  if (query.include_members) {
    requireRole(membership.role, 'members.list', 'see the members of this workspace', 'include_members');
    workspace.members = (await embeddedMembers(ctx.db, [params.id])).get(params.id) ?? [];
  }
  return workspace;
};

export const createWorkspace: Handler<'createWorkspace'> = async ({ body }, ctx) => {
  checkThresholds(body.budget_alert, body.usage_limit);
  const now = ctx.now();
  const row: WorkspaceRow = {
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
  await ctx.db.transaction(async (tx) => {
    await tx.insert(workspaces).values(row);
    await tx.insert(workspaceMembers).values({ workspaceId: row.id, userId: ctx.auth.userId, role: 'owner', joinedAt: now });
  });
  return toWorkspace({ workspace: row, role: 'owner' }, { memberCount: 1, projectCount: 0, threadCount: 0 }, ctx.auth.userId);
};

export const updateWorkspace: Handler<'updateWorkspace'> = async ({ params, body }, ctx) => {
  const updated = await ctx.db.transaction(async (tx) => {
    const membership = await requireMembership(tx, params.id, ctx.auth.userId);
    requireFieldRoles(membership.role, body, WORKSPACE_FIELD_RULES, (field) => `change the ${field} of this workspace`);
    const current = membership.workspace;
    const next: WorkspaceRow = { ...applyPatch(current, body, { name: 'name', image: 'image', ...BILLING_COLUMNS }), updatedAt: ctx.now() };
    checkThresholds(next.budgetAlert, next.usageLimit);
    const { id: _id, ...changes } = next;
    await tx.update(workspaces).set(changes).where(eq(workspaces.id, current.id));
    return { workspace: next, role: membership.role };
  });
  return toWorkspace(updated, await countsOf(ctx.db, params.id), ctx.auth.userId);
};

export const deleteWorkspace: Handler<'deleteWorkspace'> = async ({ params }, ctx) => {
  await ctx.db.transaction(async (tx) => {
    const membership = await requireMembership(tx, params.id, ctx.auth.userId);
    requireRole(membership.role, 'workspace.delete', 'delete this workspace; only its owner can');
    // Everything inside (projects, members, threads, generations, files…) goes by ON DELETE CASCADE;
    // the credit ledger keeps its rows with the workspace id cleared.
    await tx.delete(workspaces).where(eq(workspaces.id, params.id));
  });
  return { id: params.id, object: 'workspace', deleted: true };
};

export const listWorkspaceMembers: Handler<'listWorkspaceMembers'> = async ({ params, query }, ctx) => {
  const membership = await requireMembership(ctx.db, params.id, ctx.auth.userId);
  requireRole(membership.role, 'members.list', 'see the members of this workspace');
  const page = { list: `workspace_members:${params.id}`, limit: query.limit ?? 50, cursor: query.cursor };
  const { after, orderBy, fetch } = keyset(page, { sortKey: workspaceMembers.joinedAt, id: workspaceMembers.userId });
  const filters: (SQL | undefined)[] = [eq(workspaceMembers.workspaceId, params.id), after];
  if (query.role) filters.push(eq(workspaceMembers.role, query.role));
  if (query.status === 'invited') filters.push(isNull(users.accountId));
  if (query.status === 'active') filters.push(isNotNull(users.accountId));
  const rows = await ctx.db
    .select(memberColumns)
    .from(workspaceMembers)
    .innerJoin(users, eq(users.id, workspaceMembers.userId))
    .where(and(...filters))
    .orderBy(...orderBy)
    .limit(fetch);
  return toPage(page, rows, (row) => ({ sortKey: row.joinedAt, id: row.userId }), toMember);
};

async function findMember(db: Executor, workspaceId: string, userId: string): Promise<MemberRow> {
  const [row] = await db
    .select(memberColumns)
    .from(workspaceMembers)
    .innerJoin(users, eq(users.id, workspaceMembers.userId))
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)));
  if (!row) throw errors.notFound('member of this workspace', userId, 'user_id');
  return row;
}

export const addWorkspaceMember: Handler<'addWorkspaceMember'> = async ({ params, body }, ctx) => {
  const member = await ctx.db.transaction(async (tx) => {
    const membership = await requireMembership(tx, params.id, ctx.auth.userId);
    requireRole(membership.role, 'members.manage', 'add members to this workspace');
    if (!canGrant(membership.role, body.role)) {
      throw errors.permissionDenied(`Your role (${roleLabel(membership.role)}) cannot grant the ${roleLabel(body.role)} role.`, 'role');
    }
    const now = ctx.now();
    let [user] = await tx.select().from(users).where(eq(sql`lower(${users.email})`, body.email.toLowerCase()));
    if (!user) {
      user = { id: newId('usr'), email: body.email, accountId: null, createdAt: now };
      await tx.insert(users).values(user);
      ctx.log.info({ workspace_id: params.id, user_id: user.id }, 'workspace invitation e-mail queued');
    }
    const inserted = await tx
      .insert(workspaceMembers)
      .values({ workspaceId: params.id, userId: user.id, role: body.role, joinedAt: now })
      .onConflictDoNothing()
      .returning({ userId: workspaceMembers.userId });
    if (inserted.length === 0) {
      throw errors.conflict('duplicate_resource', `${body.email} is already a member of this workspace; change the role with PATCH.`, 'email');
    }
    return { userId: user.id, email: user.email, role: body.role, joinedAt: now, accountId: user.accountId };
  });
  return toMember(member);
};

export const updateWorkspaceMember: Handler<'updateWorkspaceMember'> = async ({ params, body }, ctx) => {
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
    await tx
      .update(workspaceMembers)
      .set({ role: body.role })
      .where(and(eq(workspaceMembers.workspaceId, params.id), eq(workspaceMembers.userId, params.user_id)));
    return { ...target, role: body.role };
  });
  return toMember(member);
};

export const removeWorkspaceMember: Handler<'removeWorkspaceMember'> = async ({ params }, ctx) => {
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
    await tx.delete(workspaceMembers).where(and(eq(workspaceMembers.workspaceId, params.id), eq(workspaceMembers.userId, params.user_id)));
  });
  return { id: params.user_id, object: 'workspace.member', deleted: true };
};
