import { and, eq, ilike, sql, type Placeholder } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { CALLER, memberOf, pageAcrossWorkspaces, pageSource } from '../../db/scoped.js';
import { errors } from '../../http/errors.js';
import { containsPattern, listPage, type ListQuery, type PageQuery } from '../../lib/pagination.js';
import type { WorkspaceRole } from '../../workspaces/roles.js';
import { addToProjectCounts } from '../projects/repository.js';
import { workspaceMembers } from '../workspaces/table.js';
import { toGeneration, toGenerationApp, type GenerationAppRow, type GenerationRow } from './mapper.js';
import { generationApps, generations } from './table.js';

export async function findGenerationApp(db: Executor, id: string, param = 'id'): Promise<GenerationAppRow> {
  const [row] = await db.select().from(generationApps).where(eq(generationApps.id, id)).limit(1);
  if (!row) throw errors.notFound('generation_app', id, param);
  return row;
}

export function listGenerationAppsOf(db: Executor, query: ListQuery & { category?: GenerationAppRow['category'] | undefined; search?: string | undefined }) {
  return listPage(query, {
    list: 'generation-apps',
    keyset: { sortKey: generationApps.createdAt, id: generationApps.id },
    prepared: { db, name: 'generation_apps', values: { category: query.category, search: query.search ? containsPattern(query.search) : undefined } },
    filters: [
      query.category ? eq(generationApps.category, sql.placeholder('category')) : undefined,
      query.search ? ilike(generationApps.name, sql.placeholder('search')) : undefined,
    ],
    rows: (page) =>
      db
        .select()
        .from(generationApps)
        .where(page.where)
        .orderBy(...page.orderBy)
        .limit(page.fetch),
    keyOf: (row) => ({ sortKey: row.createdAt, id: row.id }),
    toItem: toGenerationApp,
  });
}

const visibleGenerations = (db: Executor, userId: string | Placeholder, page?: PageQuery) =>
  db
    .select({ generation: generations, role: workspaceMembers.role })
    .from(pageSource(generations, page))
    .innerJoin(workspaceMembers, memberOf(generations.workspaceId, userId));

/** The generation with the caller's role in its workspace; another tenant's is a 404. */
export async function findGeneration(db: Executor, userId: string, id: string): Promise<{ row: GenerationRow; role: WorkspaceRole }> {
  const [found] = await visibleGenerations(db, userId).where(eq(generations.id, id)).limit(1);
  if (!found) throw errors.notFound('generation', id);
  return { row: found.generation, role: found.role as WorkspaceRole };
}

export function listGenerationsOf(
  db: Executor,
  userId: string,
  query: ListQuery & { workspace_id?: string | undefined; app_id?: string | undefined; project_id?: string | undefined; search?: string | undefined },
) {
  return listPage(query, {
    list: `generations:${query.workspace_id ?? '*'}:${query.app_id ?? '*'}:${query.project_id ?? '*'}`,
    keyset: { sortKey: generations.createdAt, id: generations.id },
    prepared: {
      db,
      name: 'generations',
      values: {
        user_id: userId,
        workspace_id: query.workspace_id,
        app_id: query.app_id,
        project_id: query.project_id,
        search: query.search ? containsPattern(query.search) : undefined,
      },
    },
    filters: [
      query.workspace_id ? eq(generations.workspaceId, sql.placeholder('workspace_id')) : undefined,
      query.app_id ? eq(generations.appId, sql.placeholder('app_id')) : undefined,
      query.project_id ? eq(generations.projectId, sql.placeholder('project_id')) : undefined,
      query.search ? ilike(generations.title, sql.placeholder('search')) : undefined,
    ],
    // Per workspace also with a project: indexes (workspace_id[, app_id | project_id], created_at, id).
    acrossWorkspaces: query.workspace_id ? undefined : pageAcrossWorkspaces(generations, { workspaceId: generations.workspaceId }, CALLER),
    rows: (page) =>
      visibleGenerations(db, CALLER, page)
        .where(and(page.where))
        .orderBy(...page.orderBy)
        .limit(page.fetch),
    keyOf: (row) => ({ sortKey: row.generation.createdAt, id: row.generation.id }),
    toItem: (row) => toGeneration(row.generation),
  });
}

/**
 * Inserts the generation, counted on its project (`generation_count`) first: a charge in the same
 * transaction has locked the project already. 404 on project_id when the project was deleted meanwhile.
 */
export async function insertGeneration(tx: Executor, row: GenerationRow): Promise<void> {
  if (row.projectId !== null && !(await addToProjectCounts(tx, { id: row.projectId, workspaceId: row.workspaceId }, { generationCount: 1 }))) {
    throw errors.notFound('project', row.projectId, 'project_id');
  }
  await tx.insert(generations).values(row);
}

/** Deletes the generation, counted off its project first; 404 when another request deleted it meanwhile (the count rolls back). */
export async function deleteGenerationRow(tx: Executor, row: Pick<GenerationRow, 'id' | 'workspaceId' | 'projectId'>): Promise<void> {
  if (row.projectId !== null) await addToProjectCounts(tx, { id: row.projectId, workspaceId: row.workspaceId }, { generationCount: -1 });
  const gone = await tx.delete(generations).where(eq(generations.id, row.id)).returning({ id: generations.id });
  if (gone.length === 0) throw errors.notFound('generation', row.id);
}
