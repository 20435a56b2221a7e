import { and, eq, sql, type SQL } from 'drizzle-orm';
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
export const memberOf = (workspaceId: AnyPgColumn, userId: string): SQL =>
  and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)) as SQL;

/**
 * A list page across every workspace the user belongs to, as a keyset page per workspace: `id in (the
 * first page.fetch ids of each workspace, by the page's own filters and order)` through a lateral join
 * on workspace_members. Each workspace's part is an index range scan of (workspace_id, created_at, id),
 * so the cost is workspaces × page whatever the history (wave3-facts.md, History that grows). Inside
 * the subquery `table`'s columns in `page.where` and `page.orderBy` name its own rows.
 */
export const pageAcrossWorkspaces =
  (table: PgTable, columns: { id: AnyPgColumn; workspaceId: AnyPgColumn }, userId: string) =>
  (page: PageQuery): SQL =>
    sql`${qualified(columns.id)} in (select workspace_page.id from ${workspaceMembers} as member_of cross join lateral (
      select ${qualified(columns.id)} as id from ${table}
      where ${qualified(columns.workspaceId)} = member_of.workspace_id and ${page.where ?? sql`true`}
      order by ${sql.join(page.orderBy, sql`, `)} limit ${page.fetch}
    ) as workspace_page where member_of.user_id = ${userId})`;
