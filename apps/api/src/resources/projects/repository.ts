import { eq, ilike, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Executor } from '../../db/client.js';
import { projectCreditsSince } from '../../billing/credits.js';
import { countIn, memberOf, pageAcrossWorkspaces } from '../../db/scoped.js';
import { agentThreadsInProject } from '../agent/repository.js';
import { generationsInProject } from '../generations/repository.js';
import { errors } from '../../http/errors.js';
import { containsPattern, listPage, type ListQuery } from '../../lib/pagination.js';
import type { WorkspaceRole } from '../../workspaces/roles.js';
import { workspaceMembers, workspaces } from '../workspaces/table.js';
import { toProject, type ProjectRow, type ProjectView } from './mapper.js';
import { projects } from './table.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Projects of the workspace whose id column is given, for the workspace's `project_count`. */
export const projectsInWorkspace = (workspaceId: AnyPgColumn): SQL<number> => countIn(projects.workspaceId, workspaceId);

const creditsUsed14d = (now: Date) => projectCreditsSince(projects.id, new Date(now.getTime() - 14 * DAY_MS));

// Counts per project as correlated subqueries, so a page of projects is one query.
const projectColumns = (now: Date) => ({
  project: projects,
  workspaceName: workspaces.name,
  role: workspaceMembers.role,
  agentThreadCount: agentThreadsInProject(projects.id),
  generationCount: generationsInProject(projects.id),
  creditsUsed14d: creditsUsed14d(now),
});

/** Projects with their views, limited to the workspaces the user belongs to. */
const visibleProjects = (db: Executor, userId: string, now: Date) =>
  db
    .select(projectColumns(now))
    .from(projects)
    .innerJoin(workspaces, eq(workspaces.id, projects.workspaceId))
    .innerJoin(workspaceMembers, memberOf(projects.workspaceId, userId));

/** The project with the caller's role in its workspace; another tenant's project is a 404. */
export async function findProject(db: Executor, userId: string, projectId: string, now: Date): Promise<ProjectView & { role: WorkspaceRole }> {
  const [row] = await visibleProjects(db, userId, now).where(eq(projects.id, projectId)).limit(1);
  if (!row) throw errors.notFound('project', projectId);
  return { ...row, role: row.role as WorkspaceRole };
}

export function listProjectsOf(db: Executor, userId: string, now: Date, query: ListQuery & { workspace_id?: string | undefined; search?: string | undefined }) {
  return listPage(query, {
    list: `projects:${query.workspace_id ?? '*'}`,
    keyset: { sortKey: projects.createdAt, id: projects.id },
    filters: [
      query.workspace_id ? eq(projects.workspaceId, query.workspace_id) : undefined,
      query.search ? ilike(projects.name, containsPattern(query.search)) : undefined,
    ],
    acrossWorkspaces: query.workspace_id ? undefined : pageAcrossWorkspaces(projects, { id: projects.id, workspaceId: projects.workspaceId }, userId),
    rows: (page) =>
      visibleProjects(db, userId, now)
        .where(page.where)
        .orderBy(...page.orderBy)
        .limit(page.fetch),
    keyOf: (row) => ({ sortKey: row.project.createdAt, id: row.project.id }),
    toItem: toProject,
  });
}

export async function insertProject(db: Executor, row: ProjectRow): Promise<void> {
  await db.insert(projects).values(row);
}

export async function updateProjectRow(tx: Executor, next: ProjectRow): Promise<void> {
  const { id, ...changes } = next;
  await tx.update(projects).set(changes).where(eq(projects.id, id));
}

export async function deleteProjectRow(tx: Executor, id: string): Promise<void> {
  await tx.delete(projects).where(eq(projects.id, id));
}
