import type { HandlerMap } from '../../contract/handler-types.js';
import { chargedCreate } from '../../billing/charged-create.js';
import { refundCredits } from '../../billing/credits.js';
import type { RequestContext } from '../../http/context.js';
import { apiError, errors } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import { deleteInTransaction } from '../../lib/patch.js';
import { defaultWorkspace, requireMembership, requireRole, type Membership } from '../../workspaces/access.js';
import { eq } from 'drizzle-orm';
import { files } from '../files/table.js';
import { chatWithVideoAnalysis } from './chat.js';
import { linksAt } from '../files/settings.js';
import { frameLinker, thumbnailObjectKey, videoAnalysisFrameHandlers } from './frames.js';
import { framesPrefix, VIDEO_ANALYSIS_JOB } from './jobs.js';
import { toVideoAnalysis, type VideoAnalysisRow } from './mapper.js';
import { deleteVideoAnalysisRow, findVideoAnalysis, insertVideoAnalysis, listVideoAnalysesOf, ownUploadFile } from './repository.js';

/** DECISIONS.md, Credits: a video analysis costs a flat 100, refunded when it fails. */
export const VIDEO_ANALYSIS_CREDITS = 100;

async function targetWorkspace(ctx: RequestContext, workspaceId: string | undefined): Promise<Membership> {
  if (workspaceId) return requireMembership(ctx.db, workspaceId, ctx.auth.userId, 'workspace_id');
  const membership = await defaultWorkspace(ctx.db, ctx.auth.userId);
  if (!membership) throw errors.missingParameter('workspace_id', 'workspace_id is required: you own no workspace it could default to.');
  return membership;
}

/** The file name at the end of a URL's path, for the default title. */
function fileNameOf(url: string): string {
  const last = decodeURIComponent(new URL(url).pathname.split('/').filter(Boolean).at(-1) ?? '');
  return last.slice(0, 200) || new URL(url).hostname;
}

export const videoAnalysisHandlers = {
  listVideoAnalyses: async ({ query }, ctx) => {
    if (query.workspace_id) await requireMembership(ctx.db, query.workspace_id, ctx.auth.userId, 'workspace_id');
    return listVideoAnalysesOf(ctx.db, ctx.auth.userId, query);
  },

  getVideoAnalysis: async ({ params }, ctx) => {
    const { row } = await findVideoAnalysis(ctx.db, ctx.auth.userId, params.id);
    // One HEAD: the thumbnail is stored after every chunk's frames.
    const framesStored = row.status === 'completed' && (await ctx.services.storage.head(thumbnailObjectKey(row.id))) !== null;
    return toVideoAnalysis(row, framesStored ? frameLinker(linksAt(ctx.services.files, ctx.now()), row.id) : null);
  },

  createVideoAnalysis: async ({ body }, ctx) => {
    if (body.video_url !== undefined && body.file_id !== undefined)
      throw apiError('parameter_conflict', 'Give either video_url or file_id, not both.', 'file_id');
    if (body.video_url === undefined && body.file_id === undefined)
      throw errors.missingParameter('video_url', 'video_url or file_id is required: the video to analyse.');
    const membership = await targetWorkspace(ctx, body.workspace_id);
    requireRole(membership.role, 'ai.call', 'make paid AI calls in this workspace');
    const workspaceId = membership.workspace.id;
    let title = body.title;
    if (body.file_id !== undefined) {
      // Only a file of the analysis' workspace: another workspace's (or tenant's) file is unknown here.
      const [file] = await ctx.db.select({ name: files.name, workspaceId: files.workspaceId }).from(files).where(eq(files.id, body.file_id));
      if (!file || file.workspaceId !== workspaceId) throw errors.notFound('file', body.file_id, 'file_id');
      title ??= file.name.slice(0, 200);
    } else {
      // The service's own upload link: only an upload recorded as a file of this workspace.
      const own = await ownUploadFile(ctx.db, ctx.services.files.baseUrl, body.video_url!, workspaceId);
      if (own === null) throw errors.notFound('uploaded file of this workspace at', body.video_url!, 'video_url');
      title ??= own ? own.name.slice(0, 200) : fileNameOf(body.video_url!);
    }
    const now = ctx.now();
    const { row } = await chargedCreate(ctx, {
      workspaceId,
      price: VIDEO_ANALYSIS_CREDITS,
      description: (analysis) => `Video analysis ${analysis.id}`,
      produce: async (): Promise<VideoAnalysisRow> => ({
        id: newId('va'),
        workspaceId,
        createdByUserId: ctx.auth.userId,
        status: 'pending',
        progress: 0,
        videoUrl: body.video_url ?? null,
        fileId: body.file_id ?? null,
        title,
        brand: body.brand ?? '',
        product: body.product ?? '',
        primaryIntent: body.primary_intent ?? '',
        secondaryIntent: body.secondary_intent ?? '',
        tertiaryIntent: body.tertiary_intent ?? '',
        goal: body.goal ?? '',
        chunkDuration: body.chunk_duration ?? 10,
        framesPerChunk: body.frames_per_chunk ?? 4,
        durationSeconds: null,
        creditsUsed: VIDEO_ANALYSIS_CREDITS,
        chargeLedgerId: null,
        error: null,
        result: null,
        createdAt: now,
        updatedAt: now,
        completedAt: null,
      }),
      store: async (tx, row, charge) => {
        row.chargeLedgerId = charge.ledgerId;
        await insertVideoAnalysis(tx, row);
        await ctx.services.jobs.enqueue(tx, VIDEO_ANALYSIS_JOB, { id: row.id }, { singletonKey: row.id });
      },
    });
    return toVideoAnalysis(row);
  },

  deleteVideoAnalysis: async ({ params }, ctx) => {
    const deleted = await deleteInTransaction(ctx.db, { object: 'video_analysis', id: params.id }, async (tx) => {
      const { row, role } = await findVideoAnalysis(tx, ctx.auth.userId, params.id, { forUpdate: true });
      requireRole(role, 'content.delete', 'delete video analyses in this workspace');
      // Deleted before completing: the customer got nothing, so the charge goes back (the job then finds no row).
      if ((row.status === 'pending' || row.status === 'generating') && row.chargeLedgerId) {
        await refundCredits(tx, {
          chargeLedgerId: row.chargeLedgerId,
          description: `Refund: video analysis ${row.id} deleted before completing`,
          now: ctx.now(),
        });
      }
      await deleteVideoAnalysisRow(tx, row.id);
    });
    // After the commit: frames and thumbnail (a running job removes what it writes later, finding no row).
    await ctx.services.storage.deletePrefix(framesPrefix(params.id));
    return deleted;
  },

  chatWithVideoAnalysis,
  ...videoAnalysisFrameHandlers,
} satisfies Pick<
  HandlerMap,
  'listVideoAnalyses' | 'getVideoAnalysis' | 'createVideoAnalysis' | 'deleteVideoAnalysis' | 'chatWithVideoAnalysis' | 'downloadVideoAnalysisFrame'
>;
