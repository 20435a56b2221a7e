import { and, eq, getTableName, type Placeholder, type SQL, Subquery, sql } from 'drizzle-orm';
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Executor } from './client.js';
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
 * A list page across every workspace the user belongs to, as a keyset page per workspace: the first
 * page.fetch rows of each workspace (by the page's own filters and order), read through a lateral join on
 * workspace_members, as a derived table named as `table` that the list reads instead of the table
 * (`pageSource`). The cost is workspaces × page whatever the history (wave3-facts.md, History that grows)
 * as long as each workspace's part is an index range scan: give the table an index (workspace_id, <each
 * equality filter of the list>, created_at, id) per filter combination. Then the planner walks it in order
 * and stops at the page whatever it guesses about a workspace's size; a filter the index does not hold is
 * read through until a page matches. Inside the subquery `table`'s columns in `page.where` and
 * `page.orderBy` name its own rows. The rows come out of the per-workspace index scans themselves: an
 * earlier form (`id in (those pages' ids)`) looked every row up again by primary key, 4 buffers a row once
 * the table had a few thousand (0.30 against 0.07 ms for a page of 51 threads at 100k).
 *
 * Use it also when a filter names a parent that lies in one workspace (a project, a folder): joined with
 * the membership, the planner sizes that parent's rows in the caller's workspaces by the average
 * workspace and sorts all of them instead of walking the parent's index (bench/README.md, History that grows).
 */
export const pageAcrossWorkspaces =
  (table: PgTable, columns: { workspaceId: AnyPgColumn }, userId: string | Placeholder, { workspaceId, outside }: AcrossWorkspaces = {}) =>
  (page: PageQuery): Subquery => {
    const pageOf = (where: SQL) =>
      sql`select ${table}.* from ${table} where ${where} and ${page.where ?? sql`true`}
      order by ${sql.join(page.orderBy, sql`, `)} limit ${page.fetch}`;
    const member = workspaceId === undefined ? sql`` : sql` and member_of.workspace_id = ${workspaceId}`;
    const perWorkspace = sql`select workspace_page.* from ${workspaceMembers} as member_of cross join lateral (
      ${pageOf(sql`${qualified(columns.workspaceId)} = member_of.workspace_id`)}
    ) as workspace_page where member_of.user_id = ${userId}${member}`;
    const rows = outside === undefined ? perWorkspace : sql`${perWorkspace} union all select outside_page.* from (${pageOf(outside)}) as outside_page`;
    // A subquery named as the table: drizzle checks that the selected columns' table is the one read.
    return new Subquery(rows, {}, getTableName(table));
  };

/**
 * The table a list's select reads: the table itself, or for a page across workspaces (`page.source`,
 * pageAcrossWorkspaces) that page as a derived table of the same name, so the select's columns, joins,
 * filters and order name it unchanged.
 */
export const pageSource = <T extends PgTable>(table: T, page?: PageQuery): T => (page?.source ?? table) as unknown as T;

/** The caller's user id in a list statement kept per shape: the `user_id` of its `prepared.values`. */
export const CALLER = sql.placeholder('user_id');

/** A table whose rows each belong to one workspace, paged newest first by creation. */
type WorkspaceRowsTable = PgTable & { id: AnyPgColumn; workspaceId: AnyPgColumn; createdAt: AnyPgColumn };

/**
 * The parts of a list spec (lib/pagination.ts) shared by the lists of a workspace-owned table that the
 * caller sees through membership, as `{ row }`: newest first, a page across the caller's workspaces unless
 * `oneWorkspace` (its filter is then among the list's own), and the membership join on `user_id` (CALLER).
 */
export function memberRowsList<T extends WorkspaceRowsTable>(db: Executor, table: T, oneWorkspace: boolean) {
  type Row = { row: T['$inferSelect'] };
  return {
    keyset: { sortKey: table.createdAt, id: table.id },
    acrossWorkspaces: oneWorkspace ? undefined : pageAcrossWorkspaces(table, { workspaceId: table.workspaceId }, CALLER),
    rows: (page: PageQuery) =>
      db
        .select({ row: table as PgTable })
        .from(pageSource(table, page) as PgTable)
        .innerJoin(workspaceMembers, memberOf(table.workspaceId, CALLER))
        .where(page.where)
        .orderBy(...page.orderBy)
        .limit(page.fetch) as unknown as PromiseLike<Row[]>,
    keyOf: ({ row }: Row) => ({ sortKey: (row as { createdAt: Date }).createdAt, id: (row as { id: string }).id }),
  };
}
