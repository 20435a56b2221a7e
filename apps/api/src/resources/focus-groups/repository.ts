import { and, eq, ilike, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { memberOf, memberRowsList } from '../../db/scoped.js';
import { errors } from '../../http/errors.js';
import { containsPattern, listPage, type ListQuery } from '../../lib/pagination.js';
import { workspaceMembers } from '../workspaces/table.js';
import { toFocusGroup, type FocusGroupRow } from './mapper.js';
import { focusGroups } from './table.js';

/** A focus group of a workspace the user belongs to; another tenant's is the same 404 as a missing one. */
export async function findFocusGroup(db: Executor, userId: string, id: string): Promise<FocusGroupRow> {
  const [found] = await db
    .select({ row: focusGroups })
    .from(focusGroups)
    .innerJoin(workspaceMembers, memberOf(focusGroups.workspaceId, userId))
    .where(eq(focusGroups.id, id))
    .limit(1);
  if (!found) throw errors.notFound('focus group', id);
  return found.row;
}

export function listFocusGroupsOf(db: Executor, userId: string, query: ListQuery & { workspace_id?: string | undefined; search?: string | undefined }) {
  return listPage(query, {
    list: `focus_groups:${query.workspace_id ?? '*'}`,
    ...memberRowsList(db, focusGroups, Boolean(query.workspace_id)),
    prepared: {
      db,
      name: 'focus_groups',
      values: { user_id: userId, workspace_id: query.workspace_id, search: query.search ? containsPattern(query.search) : undefined },
    },
    filters: [
      query.workspace_id ? eq(focusGroups.workspaceId, sql.placeholder('workspace_id')) : undefined,
      query.search ? ilike(focusGroups.question, sql.placeholder('search')) : undefined,
    ],
    toItem: ({ row }) => toFocusGroup(row),
  });
}

export async function insertFocusGroup(db: Executor, row: FocusGroupRow): Promise<void> {
  await db.insert(focusGroups).values(row);
}

/** Writes the run's progress: status, answers, summary, usage. Only a running group is changed. */
export async function updateFocusGroupRun(
  db: Executor,
  id: string,
  changes: Partial<Pick<FocusGroupRow, 'status' | 'answers' | 'summary' | 'inputTokens' | 'outputTokens' | 'creditsUsed' | 'updatedAt'>>,
): Promise<void> {
  await db
    .update(focusGroups)
    .set(changes)
    .where(and(eq(focusGroups.id, id), eq(focusGroups.status, 'in_progress')));
}
