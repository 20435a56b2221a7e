import { and, eq, ilike, sql, type Placeholder } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { creditsUsedSql, usageDayOf } from '../../billing/credits.js';
import { CALLER, memberOf, pageAcrossWorkspaces, pageSource } from '../../db/scoped.js';
import { errors } from '../../http/errors.js';
import { containsPattern, listPage, type ListQuery, type PageQuery } from '../../lib/pagination.js';
import type { WorkspaceRole } from '../../workspaces/roles.js';
import { addToWorkspaceCounts } from '../workspaces/repository.js';
import { workspaceMembers, workspaces } from '../workspaces/table.js';
import { toProject, type ProjectRow, type ProjectView } from './mapper.js';
import { projects } from './table.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The first of the 14 days of `credits_used_14d`: the current UTC day and the 13 before it (DECISIONS.md, Projects). */
const firstOf14Days = (now: Date) => new Date(now.getTime() - 13 * DAY_MS);

// The counts are the project row's counter columns; the 14 days' credits a correlated read of at most 14
// usage counter rows, so a page of projects is one query.
const projectColumns = (since: Date | Placeholder) => ({
  project: projects,
  workspaceName: workspaces.name,
  role: workspaceMembers.role,
  creditsUsed14d: creditsUsedSql('project', sql`${projects.id}`, since),
});

/** Projects with their views, limited to the workspaces the user belongs to; `since`: firstOf14Days, or its placeholder. */
const visibleProjects = (db: Executor, userId: string | Placeholder, since: Date | Placeholder, page?: PageQuery) =>
  db
    .select(projectColumns(since))
    .from(pageSource(projects, page))
    .innerJoin(workspaces, eq(workspaces.id, projects.workspaceId))
    .innerJoin(workspaceMembers, memberOf(projects.workspaceId, userId));

/** The project with the caller's role in its workspace; another tenant's project is a 404. */
export async function findProject(db: Executor, userId: string, projectId: string, now: Date): Promise<ProjectView & { role: WorkspaceRole }> {
  const [row] = await visibleProjects(db, userId, firstOf14Days(now)).where(eq(projects.id, projectId)).limit(1);
  if (!row) throw errors.notFound('project', projectId);
  return { ...row, role: row.role as WorkspaceRole };
}

export function listProjectsOf(db: Executor, userId: string, now: Date, query: ListQuery & { workspace_id?: string | undefined; search?: string | undefined }) {
  return listPage(query, {
    list: `projects:${query.workspace_id ?? '*'}`,
    keyset: { sortKey: projects.createdAt, id: projects.id },
    prepared: {
      db,
      name: 'projects',
      values: {
        user_id: userId,
        workspace_id: query.workspace_id,
        search: query.search ? containsPattern(query.search) : undefined,
        since_day: usageDayOf(firstOf14Days(now)),
      },
    },
    filters: [
      query.workspace_id ? eq(projects.workspaceId, sql.placeholder('workspace_id')) : undefined,
      query.search ? ilike(projects.name, sql.placeholder('search')) : undefined,
    ],
    acrossWorkspaces: query.workspace_id ? undefined : pageAcrossWorkspaces(projects, { workspaceId: projects.workspaceId }, CALLER),
    rows: (page) =>
      visibleProjects(db, CALLER, sql.placeholder('since_day'), page)
        .where(page.where)
        .orderBy(...page.orderBy)
        .limit(page.fetch),
    keyOf: (row) => ({ sortKey: row.project.createdAt, id: row.project.id }),
    toItem: toProject,
  });
}

/** Inserts the project, counted on its workspace (the count first: it takes the workspace row's lock). */
export async function insertProject(tx: Executor, row: ProjectRow): Promise<void> {
  if (!(await addToWorkspaceCounts(tx, row.workspaceId, { projectCount: 1 }))) throw errors.notFound('workspace', row.workspaceId, 'workspace_id');
  await tx.insert(projects).values(row);
}

/** Writes a PATCH's fields; the counters are left to their relative increments (a concurrent one would be lost). */
export async function updateProjectRow(tx: Executor, next: ProjectRow): Promise<void> {
  const { id, agentThreadCount: _t, generationCount: _g, ...changes } = next;
  await tx.update(projects).set(changes).where(eq(projects.id, id));
}

/**
 * Deletes the project, counted off its workspace; 404 when another request deleted it meanwhile (which
 * rolls the count back). Its threads and generations stay in the workspace (ON DELETE SET NULL).
 */
export async function deleteProjectRow(tx: Executor, row: Pick<ProjectRow, 'id' | 'workspaceId'>): Promise<void> {
  await addToWorkspaceCounts(tx, row.workspaceId, { projectCount: -1 });
  const gone = await tx.delete(projects).where(eq(projects.id, row.id)).returning({ id: projects.id });
  if (gone.length === 0) throw errors.notFound('project', row.id);
}

/**
 * Adds `by` to counters of the project (relative, never read-modify-write), in the transaction that
 * writes the counted row; false when the project is not (or no longer) in `workspaceId`. Writers take
 * the workspace's lock before the project's, as a charge does.
 */
export async function addToProjectCounts(
  tx: Executor,
  project: { id: string; workspaceId: string },
  by: Partial<Record<'agentThreadCount' | 'generationCount', number>>,
): Promise<boolean> {
  const set = Object.fromEntries(Object.entries(by).map(([key, delta]) => [key, sql`${projects[key as keyof typeof by]} + ${delta}`]));
  const updated = await tx
    .update(projects)
    .set(set)
    .where(and(eq(projects.id, project.id), eq(projects.workspaceId, project.workspaceId)))
    .returning({ id: projects.id });
  return updated.length > 0;
}
