import { and, eq, sql, type Placeholder, type SQL } from 'drizzle-orm';
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { PageQuery } from '../lib/pagination.js';
import { workspaceMembers } from '../resources/workspaces/table.js';
import { qualified } from './sql.js';

/**
 * Rows visible to the caller through their workspace membership: the join condition on
 * `workspace_members` for a table's workspace column. With `innerJoin` another tenant's row is simply
 * absent (the same 404 as a missing id, so ids cannot be probed); with `leftJoin` the member's role is
 * null where the row belongs to no workspace of theirs (e.g. base personas). Select
 * `workspaceMembers.role` to get the caller's role with the row.
 *
 *     db.select({ row: projects, role: workspaceMembers.role })
 *       .from(projects)
 *       .innerJoin(workspaceMembers, memberOf(projects.workspaceId, userId))
 */
export const memberOf = (workspaceId: AnyPgColumn, userId: string | Placeholder): SQL =>
  and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)) as SQL;

/** Which rows `pageAcrossWorkspaces` pages through besides the table's own filters. */
export interface AcrossWorkspaces {
  /** Only this workspace of the user's (a list's `workspace_id` filter); still only if the user is a member. */
  workspaceId?: string | Placeholder | undefined;
  /**
   * Rows of no workspace that every caller sees (base personas), paged beside the workspaces' rows. Give it an
   * index of its own (a partial one) so that part too is a range scan of at most a page.
   */
  outside?: SQL | undefined;
}

/**
 * A list page across every workspace the user belongs to, as a keyset page per workspace: `id in (the
 * first page.fetch ids of each workspace, by the page's own filters and order)` through a lateral join
 * on workspace_members. The cost is workspaces × page whatever the history (wave3-facts.md, History
 * that grows) as long as each workspace's part is an index range scan: give the table an index
 * (workspace_id, <each equality filter of the list>, created_at, id) per filter combination. Then the
 * planner walks it in order and stops at the page whatever it guesses about a workspace's size; a filter
 * the index does not hold is read through until a page matches. Inside the subquery `table`'s columns in
 * `page.where` and `page.orderBy` name its own rows.
 *
 * Use it also when a filter names a parent that lies in one workspace (a project, a folder): joined with
 * the membership, the planner sizes that parent's rows in the caller's workspaces by the average
 * workspace and sorts all of them instead of walking the parent's index (bench/README.md, History that grows).
 */
export const pageAcrossWorkspaces =
  (table: PgTable, columns: { id: AnyPgColumn; workspaceId: AnyPgColumn }, userId: string | Placeholder, { workspaceId, outside }: AcrossWorkspaces = {}) =>
  (page: PageQuery): SQL => {
    const pageOf = (where: SQL) =>
      sql`select ${qualified(columns.id)} as id from ${table} where ${where} and ${page.where ?? sql`true`}
      order by ${sql.join(page.orderBy, sql`, `)} limit ${page.fetch}`;
    const member = workspaceId === undefined ? sql`` : sql` and member_of.workspace_id = ${workspaceId}`;
    const perWorkspace = sql`select workspace_page.id from ${workspaceMembers} as member_of cross join lateral (
      ${pageOf(sql`${qualified(columns.workspaceId)} = member_of.workspace_id`)}
    ) as workspace_page where member_of.user_id = ${userId}${member}`;
    if (outside === undefined) return sql`${qualified(columns.id)} in (${perWorkspace})`;
    return sql`${qualified(columns.id)} in (${perWorkspace} union all select outside_page.id from (${pageOf(outside)}) as outside_page)`;
  };
