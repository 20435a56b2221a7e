import type { WorkspaceMember } from '@persona-api/types';
import { and, desc, eq, ilike, inArray, isNotNull, isNull, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { users } from '../../db/schema/tenancy.js';
import { CALLER, memberOf } from '../../db/scoped.js';
import { errors } from '../../http/errors.js';
import { containsPattern, listPage, type ListQuery } from '../../lib/pagination.js';
import type { WorkspaceRow } from '../../workspaces/access.js';
import type { WorkspaceRole } from '../../workspaces/roles.js';
import { deleteFilesOf } from '../files/repository.js';
import { deleteMeetingsOf } from '../meetings/repository.js';
import { announcePersonasChanged } from '../personas/cache.js';
import { countsOfRow, toMember, toSummary, type MemberRow } from './mapper.js';
import { workspaceMembers, workspaces } from './table.js';

/** The 1000 newest members when a workspace is read with include_members (WorkspaceSummary.members). */
const EMBEDDED_MEMBERS = 1000;

/**
 * Adds `by` to counters of the workspace (relative, never read-modify-write). Writers of the counted rows
 * call it before writing them: it takes the workspace row's lock, as a charge does, so writers of one
 * workspace's rows and its deletion (which cascades) are ordered and cannot deadlock. Returns false when
 * the workspace is gone.
 */
export async function addToWorkspaceCounts(
  tx: Executor,
  workspaceId: string,
  by: Partial<Record<'memberCount' | 'projectCount' | 'agentThreadCount', number>>,
): Promise<boolean> {
  const set = Object.fromEntries(Object.entries(by).map(([key, delta]) => [key, sql`${workspaces[key as keyof typeof by]} + ${delta}`]));
  const updated = await tx.update(workspaces).set(set).where(eq(workspaces.id, workspaceId)).returning({ id: workspaces.id });
  return updated.length > 0;
}

/** The caller's workspaces, newest first, with their counts (counter columns) and the caller's role. */
export function listWorkspacesOf(db: Executor, userId: string, query: ListQuery & { search?: string | undefined }) {
  return listPage(query, {
    list: 'workspaces',
    keyset: { sortKey: workspaces.createdAt, id: workspaces.id },
    prepared: { db, name: 'workspaces', values: { user_id: userId, search: query.search ? containsPattern(query.search) : undefined } },
    filters: [query.search ? ilike(workspaces.name, sql.placeholder('search')) : undefined],
    rows: (page) =>
      db
        .select({ workspace: workspaces, role: workspaceMembers.role })
        .from(workspaces)
        .innerJoin(workspaceMembers, memberOf(workspaces.id, CALLER))
        .where(page.where)
        .orderBy(...page.orderBy)
        .limit(page.fetch),
    keyOf: (row) => ({ sortKey: row.workspace.createdAt, id: row.workspace.id }),
    toItem: (row) => ({ item: toSummary(row.workspace, countsOfRow(row.workspace), userId), role: row.role as WorkspaceRole }),
  });
}

/** A new workspace counting its one member, the owner; the row's counters are set here. */
export type NewWorkspaceRow = Omit<WorkspaceRow, 'memberCount' | 'projectCount' | 'agentThreadCount'>;

/** Inserts the workspace with its owner as its one member (the API and the admin CLI). */
export async function insertWorkspace(tx: Executor, row: NewWorkspaceRow, ownerUserId: string): Promise<WorkspaceRow> {
  const stored: WorkspaceRow = { ...row, memberCount: 1, projectCount: 0, agentThreadCount: 0 };
  await tx.insert(workspaces).values(stored);
  await tx.insert(workspaceMembers).values({ workspaceId: row.id, userId: ownerUserId, role: 'owner', joinedAt: row.createdAt });
  return stored;
}

/** Writes a PATCH's fields; the counters are left to their relative increments (a concurrent one would be lost). */
export async function updateWorkspaceRow(tx: Executor, next: WorkspaceRow): Promise<void> {
  const { id, memberCount: _m, projectCount: _p, agentThreadCount: _t, ...changes } = next;
  await tx.update(workspaces).set(changes).where(eq(workspaces.id, id));
}

/**
 * Deletes the workspace; what is inside goes by ON DELETE CASCADE, except its files and meetings, deleted
 * first so that the account's stored bytes and transcription minutes give back exactly what went.
 */
export async function deleteWorkspaceRow(tx: Executor, id: string): Promise<void> {
  await deleteFilesOf(tx, id);
  await deleteMeetingsOf(tx, id);
  await tx.delete(workspaces).where(eq(workspaces.id, id));
  // Its custom personas and its members' access to them go with it.
  await announcePersonasChanged(tx);
}

const memberColumns = {
  userId: workspaceMembers.userId,
  email: users.email,
  role: workspaceMembers.role,
  joinedAt: workspaceMembers.joinedAt,
  accountId: users.accountId,
};

/** Members of several workspaces, the newest EMBEDDED_MEMBERS of each, newest first. */
export async function embeddedMembers(db: Executor, workspaceIds: string[]): Promise<Map<string, WorkspaceMember[]>> {
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

/** A workspace's members, newest first, filtered by role and by status (invited: no account yet). */
export function listMembers(db: Executor, workspaceId: string, query: ListQuery & { role?: string | undefined; status?: 'invited' | 'active' | undefined }) {
  const filters: (SQL | undefined)[] = [eq(workspaceMembers.workspaceId, sql.placeholder('workspace_id'))];
  if (query.role) filters.push(eq(workspaceMembers.role, sql.placeholder('role')));
  if (query.status === 'invited') filters.push(isNull(users.accountId));
  if (query.status === 'active') filters.push(isNotNull(users.accountId));
  return listPage(query, {
    list: `workspace_members:${workspaceId}`,
    keyset: { sortKey: workspaceMembers.joinedAt, id: workspaceMembers.userId },
    // The status is a condition with no value: a statement name each.
    prepared: { db, name: `workspace_members${query.status ? `_${query.status}` : ''}`, values: { workspace_id: workspaceId, role: query.role } },
    filters,
    rows: (page) =>
      db
        .select(memberColumns)
        .from(workspaceMembers)
        .innerJoin(users, eq(users.id, workspaceMembers.userId))
        .where(page.where)
        .orderBy(...page.orderBy)
        .limit(page.fetch),
    keyOf: (row) => ({ sortKey: row.joinedAt, id: row.userId }),
    toItem: toMember,
  });
}

/** A member of the workspace; 404 naming `user_id` when the user is none. */
export async function findMember(db: Executor, workspaceId: string, userId: string): Promise<MemberRow> {
  const [row] = await db
    .select(memberColumns)
    .from(workspaceMembers)
    .innerJoin(users, eq(users.id, workspaceMembers.userId))
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)));
  if (!row) throw errors.notFound('member of this workspace', userId, 'user_id');
  return row;
}

export async function findUserByEmail(db: Executor, email: string) {
  const [user] = await db
    .select()
    .from(users)
    .where(eq(sql`lower(${users.email})`, email.toLowerCase()));
  return user;
}

export async function insertUser(db: Executor, user: typeof users.$inferInsert & { accountId: string | null; createdAt: Date }) {
  await db.insert(users).values(user);
}

/** Adds the member, counted on the workspace; false (nothing changed) when the user is a member already. */
export async function insertMember(tx: Executor, member: typeof workspaceMembers.$inferInsert): Promise<boolean> {
  if (!(await addToWorkspaceCounts(tx, member.workspaceId, { memberCount: 1 }))) throw errors.notFound('workspace', member.workspaceId);
  const inserted = await tx.insert(workspaceMembers).values(member).onConflictDoNothing().returning({ userId: workspaceMembers.userId });
  if (inserted.length === 0) await addToWorkspaceCounts(tx, member.workspaceId, { memberCount: -1 });
  return inserted.length > 0;
}

export async function setMemberRole(db: Executor, workspaceId: string, userId: string, role: WorkspaceRole): Promise<void> {
  await db
    .update(workspaceMembers)
    .set({ role })
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)));
}

/** Removes the member, counted on the workspace; 404 naming `user_id` when they are no member (any more). */
export async function deleteMember(tx: Executor, workspaceId: string, userId: string): Promise<void> {
  await addToWorkspaceCounts(tx, workspaceId, { memberCount: -1 });
  const removed = await tx
    .delete(workspaceMembers)
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)))
    .returning({ userId: workspaceMembers.userId });
  // Removed meanwhile by another request: the 404 rolls the count back with the transaction.
  if (removed.length === 0) throw errors.notFound('member of this workspace', userId, 'user_id');
  // The removed member may no longer answer as the workspace's custom personas.
  await announcePersonasChanged(tx);
}
