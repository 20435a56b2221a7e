import { and, eq } from 'drizzle-orm';
import type { HandlerMap } from '../../contract/handler-types.js';
import type { RequestContext } from '../../http/context.js';
import { apiError, errors } from '../../http/errors.js';
import { billingPeriod } from '../../billing/credits.js';
import { accounts, tiers } from '../../db/schema/tenancy.js';
import { newId } from '../../lib/ids.js';
import { deleteInTransaction } from '../../lib/patch.js';
import { requireMembership, requireRole } from '../../workspaces/access.js';
import { files } from '../files/table.js';
import { requireVisibleSchemas } from '../meeting-schemas/repository.js';
import { MEETING_JOBS, moveMeeting } from './jobs.js';
import { CANCELLABLE, INACTIVE, withChange } from './lifecycle.js';
import { BOT_JOBS, deleteRecording } from './bot-sync.js';
import type { LinkContext } from '../files/mappers.js';
import { linksAt } from '../files/settings.js';
import type { MeetingStatus } from '@persona-api/types';
import { toAnalysis, toMeeting, toTranscript, type MeetingRow } from './mapper.js';
import { meetingKeyOf } from './meeting-url.js';
import { activeMeetingFor, deleteMeetingRow, transcriptionMinutesUsed, findMeeting, findTranscript, insertMeeting, listMeetingsOf } from './repository.js';
import { SIMULATED_PREFIX } from './simulator.js';
import { meetingBotOf } from './settings.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const MAX_SCHEDULE_DAYS = 90;

type CreateBody = Parameters<HandlerMap['createMeeting']>[0]['body'];

/** When the bot joins, from `join_type`/`join_at` (DECISIONS.md, Meetings). */
function joinOf(body: CreateBody, now: Date): { joinType: 'immediate' | 'scheduled'; joinAt: Date } {
  const joinType = body.join_type ?? (body.join_at ? 'scheduled' : 'immediate');
  if (joinType === 'immediate') {
    if (body.join_at) throw errors.parameterConflict('join_at', 'An immediate meeting has no join_at; omit it or use join_type scheduled.');
    return { joinType, joinAt: now };
  }
  if (!body.join_at) throw errors.missingParameter('join_at', 'A scheduled meeting needs join_at.');
  const joinAt = new Date(body.join_at);
  if (joinAt.getTime() <= now.getTime() || joinAt.getTime() > now.getTime() + MAX_SCHEDULE_DAYS * DAY_MS) {
    throw errors.invalidParameter('join_at', `join_at must be in the future and at most ${MAX_SCHEDULE_DAYS} days ahead.`);
  }
  return { joinType, joinAt };
}

/** The one source a create names: a link for a bot, or an uploaded transcript or recording. */
function sourceOf(body: CreateBody): { kind: 'bot'; url: string; key: string } | { kind: 'import'; fileId: string; param: string } {
  const given = (['meeting_url', 'transcript_file_id', 'recording_file_id'] as const).filter((field) => body[field] !== undefined);
  if (given.length === 0)
    throw errors.missingParameter('meeting_url', 'Give meeting_url (a bot joins the call), or transcript_file_id or recording_file_id (import).');
  if (given.length > 1) throw errors.parameterConflict(given[1]!, `${given.join(' and ')} cannot be combined: a meeting has one source.`);
  if (body.meeting_url !== undefined) {
    const key = meetingKeyOf(body.meeting_url);
    if (!key) throw errors.invalidParameter('meeting_url', 'meeting_url must be an https Zoom, Google Meet, Microsoft Teams or Webex meeting link.');
    return { kind: 'bot', url: body.meeting_url, key };
  }
  // bot_name has a default in the contract (filled in by the validator), so only the join fields can conflict.
  for (const field of ['join_at', 'join_type'] as const) {
    if (body[field] !== undefined && body[field] !== null)
      throw errors.parameterConflict(field, `${field} is for a bot joining a call; an imported meeting has none.`);
  }
  const param = body.transcript_file_id !== undefined ? 'transcript_file_id' : 'recording_file_id';
  return { kind: 'import', fileId: (body.transcript_file_id ?? body.recording_file_id)!, param };
}

async function requireTranscriptionMinutes(ctx: RequestContext, now: Date): Promise<void> {
  const [account] = await ctx.db
    .select({ included: tiers.transcriptionMinutesIncluded })
    .from(accounts)
    .innerJoin(tiers, eq(tiers.id, accounts.tierId))
    .where(eq(accounts.id, ctx.auth.accountId));
  const period = billingPeriod(now);
  const used = await transcriptionMinutesUsed(ctx.db, ctx.auth.accountId, period.start, period.end);
  if (!account || used >= account.included) {
    throw apiError(
      'usage_limit_exceeded',
      `No transcription minutes left this billing period (${used} of ${account?.included ?? 0} used); imports of transcript files need none.`,
    );
  }
}

async function createMeeting(body: CreateBody, ctx: RequestContext) {
  const membership = await requireMembership(ctx.db, body.workspace_id, ctx.auth.userId, 'workspace_id');
  requireRole(membership.role, 'content.create', 'create meetings in this workspace');
  const source = sourceOf(body);
  const now = ctx.now();
  // Built-in, marketplace or the caller's own schemas; another's is the same 404 as an unknown id.
  const schemaIds = body.schema_ids ?? [];
  await requireVisibleSchemas(ctx.db, ctx.auth.userId, schemaIds, 'schema_ids');
  if (source.kind === 'import') {
    const [file] = await ctx.db
      .select({ id: files.id, storageKey: files.storageKey, type: files.type })
      .from(files)
      .where(and(eq(files.id, source.fileId), eq(files.workspaceId, membership.workspace.id)))
      .limit(1);
    if (!file) throw errors.notFound('file', source.fileId, source.param);
    if (!file.storageKey) throw errors.invalidParameter(source.param, `${file.id} is a reference to another service; import needs an uploaded file.`);
    const media = file.type.startsWith('audio/') || file.type.startsWith('video/');
    if (source.param === 'transcript_file_id' && media)
      throw errors.invalidParameter(source.param, `${file.id} is ${file.type}; give it as recording_file_id.`);
    if (source.param === 'recording_file_id' && !media)
      throw errors.invalidParameter(source.param, `${file.id} is ${file.type}, not audio or video; give a transcript as transcript_file_id.`);
  }
  // A transcript file is not transcribed; bots and recordings need minutes left (a running meeting is never stopped).
  if (source.kind === 'bot' || source.param === 'recording_file_id') await requireTranscriptionMinutes(ctx, now);
  const join = source.kind === 'bot' ? joinOf(body, now) : { joinType: 'immediate' as const, joinAt: now };
  const provider = meetingBotOf(ctx.services);
  const row: MeetingRow = {
    id: newId('mtg'),
    workspaceId: membership.workspace.id,
    createdByUserId: ctx.auth.userId,
    title: body.title ?? 'Untitled meeting',
    meetingUrl: source.kind === 'bot' ? source.url : null,
    meetingKey: source.kind === 'bot' ? source.key : null,
    // Without a configured provider bots are simulated, and say so.
    source: source.kind === 'bot' ? (provider.simulated ? 'simulated_bot' : 'bot') : 'import',
    sourceFileId: source.kind === 'import' ? source.fileId : null,
    botName: source.kind === 'bot' ? (body.bot_name ?? 'Persona Notetaker') : 'Persona Notetaker',
    joinType: join.joinType,
    joinAt: join.joinAt,
    completedAt: null,
    status: 'pending',
    statusChanges: withChange(
      [],
      source.kind === 'bot' && !provider.simulated
        ? { code: 'pending', sub_code: 'bot_scheduled', message: `A ${provider.name} bot will join the call at join_at.` }
        : source.kind === 'bot'
          ? {
              code: 'pending',
              sub_code: 'simulated',
              message: `${SIMULATED_PREFIX} no meeting-bot provider is configured on this server; a development simulator stands in for the bot.`,
            }
          : { code: 'pending', sub_code: 'import_queued', message: 'Waiting to import the uploaded file.' },
      now,
    ),
    recordingKey: null,
    providerBotId: null,
    providerChangesSeen: 0,
    participantCount: 0,
    analysisStatus: 'pending',
    schemaIds,
    schemaRuns: {},
    recordedSeconds: null,
    transcribed: source.kind === 'bot' || source.param === 'recording_file_id' ? 1 : 0,
    cancelledAt: null,
    cancelledBy: null,
    cancelReason: null,
    createdAt: now,
    updatedAt: now,
  };
  await ctx.db.transaction(async (tx) => {
    if (source.kind === 'bot') {
      const active = await activeMeetingFor(tx, row.workspaceId, source.key);
      if (active) throw errors.conflict('duplicate_resource', `${active} already has a bot for this call; cancel it first.`, 'meeting_url');
    }
    await insertMeeting(tx, row);
    if (source.kind === 'bot') {
      await ctx.services.jobs.enqueue(tx, BOT_JOBS.create, { id: row.id }, { singletonKey: row.id });
    } else {
      await ctx.services.jobs.enqueue(tx, MEETING_JOBS.import, { id: row.id }, { singletonKey: row.id });
    }
  });
  return toMeeting(row, linksFor(ctx, row));
}

export const meetingHandlers = {
  listMeetings: async ({ query }, ctx) => {
    if (query.workspace_id) await requireMembership(ctx.db, query.workspace_id, ctx.auth.userId, 'workspace_id');
    return listMeetingsOf(ctx.db, ctx.auth.userId, query, (row) => linksFor(ctx, row));
  },

  createMeeting: async ({ body }, ctx) => createMeeting(body, ctx),

  getMeeting: async ({ params }, ctx) => {
    const { row } = await findMeeting(ctx.db, ctx.auth.userId, params.id);
    return toMeeting(row, linksFor(ctx, row));
  },

  cancelMeeting: async ({ params, body }, ctx) => {
    const now = ctx.now();
    const moved = await ctx.db.transaction(async (tx) => {
      const { row, role } = await findMeeting(tx, ctx.auth.userId, params.id);
      requireRole(role, 'content.update', 'cancel meetings in this workspace');
      if (!CANCELLABLE.includes(row.status as (typeof CANCELLABLE)[number])) {
        throw errors.conflict('invalid_state', `The meeting is ${row.status}; only a meeting not yet recorded (${CANCELLABLE.join(', ')}) can be cancelled.`);
      }
      const reason = body?.reason ?? null;
      const next = await moveMeeting(
        tx,
        row.id,
        { code: 'cancelled', sub_code: 'cancelled_by_user', message: reason ? `Cancelled: ${reason}` : 'Cancelled through POST /meetings/{id}/cancel.' },
        now,
        {
          cancelledAt: now,
          cancelledBy: ctx.auth.userId,
          cancelReason: reason,
          // Cancelling discards any partial recording and uses no minutes (DECISIONS.md).
          recordingKey: null,
          recordedSeconds: null,
        },
      );
      if (!next) throw errors.conflict('invalid_state', `The meeting is ${row.status} and can no longer be cancelled.`);
      return next;
    });
    await removeProviderBot(ctx, moved.providerBotId);
    return {
      id: moved.id,
      object: 'meeting',
      status: 'cancelled',
      cancelled_at: moved.cancelledAt!.toISOString(),
      cancelled_by: moved.cancelledBy,
      cancel_reason: moved.cancelReason,
    };
  },

  getMeetingTranscript: async ({ params }, ctx) => {
    const { row } = await findMeeting(ctx.db, ctx.auth.userId, params.id);
    const transcript = ['done', 'media_expired'].includes(row.status) ? await findTranscript(ctx.db, row.id) : null;
    if (!transcript) throw errors.conflict('invalid_state', notReady(row, 'transcript'));
    return toTranscript(transcript);
  },

  getMeetingAnalysis: async ({ params }, ctx) => {
    const { row } = await findMeeting(ctx.db, ctx.auth.userId, params.id);
    const transcript = row.analysisStatus === 'completed' ? await findTranscript(ctx.db, row.id) : null;
    if (!transcript?.analysis || !transcript.analysedAt) throw errors.conflict('invalid_state', notReady(row, 'analysis'));
    return toAnalysis({ ...transcript, analysis: transcript.analysis, analysedAt: transcript.analysedAt });
  },

  deleteMeeting: async ({ params }, ctx) => {
    let recordingKey: string | null = null;
    let botId: string | null = null;
    const result = await deleteInTransaction(ctx.db, { object: 'meeting', id: params.id }, async (tx) => {
      const { row, role } = await findMeeting(tx, ctx.auth.userId, params.id);
      requireRole(role, 'content.delete', 'delete meetings in this workspace');
      recordingKey = row.recordingKey;
      botId = INACTIVE.includes(row.status as MeetingStatus) ? null : row.providerBotId;
      // The transcript and analysis go with the row (foreign key cascade); pending jobs find no row and stop.
      await deleteMeetingRow(tx, row.id);
    });
    // A bot still in the call is stopped; the recording's bytes and link go with the meeting.
    await removeProviderBot(ctx, botId);
    if (recordingKey) await deleteRecording(ctx.services, recordingKey);
    return result;
  },
} satisfies Pick<
  HandlerMap,
  'listMeetings' | 'createMeeting' | 'getMeeting' | 'cancelMeeting' | 'getMeetingTranscript' | 'getMeetingAnalysis' | 'deleteMeeting'
>;

function notReady(row: MeetingRow, what: 'transcript' | 'analysis'): string {
  const detail = row.statusChanges[row.statusChanges.length - 1]?.message;
  if (['fatal', 'cancelled', 'recording_permission_denied'].includes(row.status) || row.analysisStatus === 'skipped') {
    return `The meeting is ${row.status} and will have no ${what}${detail ? ` (${detail})` : ''}.`;
  }
  return `The ${what} is not ready: the meeting is ${row.status}.`;
}

/** The link context of a read when the meeting has a recording to link to (signed afresh on each read). */
function linksFor(ctx: RequestContext, row: MeetingRow): LinkContext | null {
  return row.recordingKey ? linksAt(ctx.services.files, ctx.now()) : null;
}

/** Best effort: the meeting is already cancelled or deleted on our side; a provider error is logged, not raised. */
async function removeProviderBot(ctx: RequestContext, botId: string | null): Promise<void> {
  if (!botId) return;
  try {
    await meetingBotOf(ctx.services).removeBot(botId);
  } catch (error) {
    ctx.log.warn({ err: error, bot_id: botId }, 'the meeting-bot provider did not remove the bot');
  }
}
