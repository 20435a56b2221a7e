import { and, eq, getTableName, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
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
 * `(select count(*) from <child> where <child.column> = <parent>)` as an int column, so a page of
 * parents and their counts is one query. The repositories of the counted resources build theirs with it.
 */
export const countIn = (column: AnyPgColumn, parent: AnyPgColumn): SQL<number> =>
  sql<number>`(select count(*)::int from ${sql.identifier(getTableName(column.table))} where ${qualified(column)} = ${qualified(parent)})`;
