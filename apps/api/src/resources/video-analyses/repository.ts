import { and, eq, ilike, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { memberOf, memberRowsList } from '../../db/scoped.js';
import { errors } from '../../http/errors.js';
import { containsPattern, listPage, type ListQuery } from '../../lib/pagination.js';
import type { WorkspaceRole } from '../../workspaces/roles.js';
import { ownUploadKey } from '../files/signing.js';
import { files } from '../files/table.js';
import { workspaceMembers } from '../workspaces/table.js';
import { toVideoAnalysisSummary, type VideoAnalysisRow } from './mapper.js';
import { videoAnalyses } from './table.js';

/** The analysis with the caller's role in its workspace; another tenant's is a 404. */
export async function findVideoAnalysis(
  db: Executor,
  userId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<{ row: VideoAnalysisRow; role: WorkspaceRole }> {
  const query = db
    .select({ row: videoAnalyses, role: workspaceMembers.role })
    .from(videoAnalyses)
    .innerJoin(workspaceMembers, memberOf(videoAnalyses.workspaceId, userId))
    .where(eq(videoAnalyses.id, id))
    .limit(1);
  // The job's failure path locks the row too: a delete and a refund on failure never both refund.
  const [found] = options.forUpdate ? await query.for('update', { of: videoAnalyses }) : await query;
  if (!found) throw errors.notFound('video analysis', id);
  return { row: found.row, role: found.role as WorkspaceRole };
}

export interface VideoAnalysisFilters extends ListQuery {
  workspace_id?: string | undefined;
  status?: string | undefined;
  search?: string | undefined;
}

export function listVideoAnalysesOf(db: Executor, userId: string, query: VideoAnalysisFilters) {
  return listPage(query, {
    list: `video-analyses:${query.workspace_id ?? '*'}`,
    ...memberRowsList(db, videoAnalyses, Boolean(query.workspace_id)),
    prepared: {
      db,
      name: 'video_analyses',
      values: {
        user_id: userId,
        workspace_id: query.workspace_id,
        status: query.status,
        search: query.search ? containsPattern(query.search) : undefined,
      },
    },
    filters: [
      query.workspace_id ? eq(videoAnalyses.workspaceId, sql.placeholder('workspace_id')) : undefined,
      query.status ? eq(videoAnalyses.status, sql.placeholder('status')) : undefined,
      query.search ? ilike(videoAnalyses.title, sql.placeholder('search')) : undefined,
    ],
    toItem: ({ row }) => toVideoAnalysisSummary(row),
  });
}

export async function insertVideoAnalysis(db: Executor, row: VideoAnalysisRow): Promise<void> {
  await db.insert(videoAnalyses).values(row);
}

export async function readVideoAnalysis(db: Executor, id: string): Promise<VideoAnalysisRow | undefined> {
  const [row] = await db.select().from(videoAnalyses).where(eq(videoAnalyses.id, id));
  return row;
}

const inProgress = inArray(videoAnalyses.status, ['pending', 'generating']);

/** Changes a row still in progress; a final row (completed or failed) is never changed again. */
export async function updateRunning(db: Executor, id: string, changes: Partial<VideoAnalysisRow>): Promise<boolean> {
  const updated = await db
    .update(videoAnalyses)
    .set(changes)
    .where(and(eq(videoAnalyses.id, id), inProgress))
    .returning({ id: videoAnalyses.id });
  return updated.length > 0;
}

export async function deleteVideoAnalysisRow(db: Executor, id: string): Promise<void> {
  await db.delete(videoAnalyses).where(eq(videoAnalyses.id, id));
}

/**
 * A `video_url` that is this service's own upload link (`{PUBLIC_BASE_URL}/uploads/{key}`): the recorded
 * file of `workspaceId` holding that upload, read from storage instead of over the network (DECISIONS.md).
 * `undefined` when the URL is not an own link; `null` when it is one but names no file of the workspace.
 */
export async function ownUploadFile(db: Executor, baseUrl: string, url: string, workspaceId: string) {
  const key = ownUploadKey(baseUrl, url);
  if (key === null) return undefined;
  const [file] = await db
    .select()
    .from(files)
    .where(and(eq(files.storageKey, key), eq(files.workspaceId, workspaceId)));
  return file ?? null;
}
