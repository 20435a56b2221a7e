import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { MeetingStatus } from '@persona-api/types';
import { eq } from 'drizzle-orm';
import { deleteOlderThan, purgeJob } from '../../db/purge.js';
import type { JobDefinition } from '../../jobs/types.js';
import { newUploadKey, uploadObjectKey } from '../files/keys.js';
import { uploads } from '../files/table.js';
import { fail, finishWithTranscript, type MeetingJobDeps, moveMeeting } from './jobs.js';
import { INACTIVE } from './lifecycle.js';
import { type MeetingBotProvider, moveFor, ProviderError } from './recall.js';
import { loadMeeting, lockMeeting, updateMeeting } from './repository.js';
import { meetingBotWebhooks } from './table.js';
import { SIMULATED_PREFIX } from './simulator.js';
import { buildTranscript, TranscriptFormatError } from './transcript-parse.js';

export const BOT_JOBS = { create: 'meeting.bot-create', sync: 'meeting.bot-sync', prune: 'meeting.bot-webhook-prune' } as const;

/** Polling, the fallback when a webhook is lost: every minute while the bot is on its way or in the call. */
export const POLL_SECONDS = 60;

type BotDeps = MeetingJobDeps;

/** Our own messages about a simulated bot carry the simulator's label too. */
const said = (bot: MeetingBotProvider, message: string) => (bot.simulated ? `${SIMULATED_PREFIX} ${message}` : message);

/** Creates the provider's bot for a pending meeting (scheduled at `join_at`), then starts polling. */
export async function createProviderBot(deps: BotDeps, payload: { id: string }, signal?: AbortSignal): Promise<void> {
  const row = await loadMeeting(deps.db, payload.id);
  if (row?.status !== 'pending' || row.providerBotId || !row.meetingUrl) return;
  const now = deps.clock.now();
  let bot: Awaited<ReturnType<MeetingBotProvider['createBot']>>;
  try {
    bot = await deps.bot.createBot(
      { meetingUrl: row.meetingUrl, botName: row.botName, joinAt: row.joinType === 'scheduled' ? row.joinAt : null, meetingId: row.id },
      signal,
    );
  } catch (error) {
    // The provider refused the bot (a bad link, no capacity…): the meeting fails with its words.
    if (error instanceof ProviderError && error.status !== null && error.status < 500 && error.status !== 429) {
      return fail(deps, row.id, 'bot_create_failed', error.message);
    }
    throw error;
  }
  await deps.db.transaction(async (tx) => {
    const locked = await lockMeeting(tx, row.id);
    if (!locked) return;
    await updateMeeting(tx, row.id, { providerBotId: bot.id, updatedAt: now });
    // Cancelled while the bot was being created: the bot is removed after the transaction.
    if (locked.status === 'pending') await schedulePoll(deps, tx, row.id, new Date(Math.max(now.getTime(), row.joinAt.getTime())), bot.next_change_at);
  });
  const after = await loadMeeting(deps.db, row.id);
  if (after && after.status === 'cancelled') await deps.bot.removeBot(bot.id);
}

/** The next poll: a minute after `after`, or at the provider's announced next change when that is sooner. */
async function schedulePoll(
  deps: MeetingJobDeps,
  tx: Parameters<MeetingJobDeps['jobs']['enqueue']>[0],
  id: string,
  after: Date,
  nextChangeAt?: string | null,
): Promise<void> {
  const regular = after.getTime() + POLL_SECONDS * 1000;
  const announced = nextChangeAt ? Date.parse(nextChangeAt) : Number.NaN;
  const at = new Date(Number.isFinite(announced) ? Math.min(regular, Math.max(after.getTime(), announced)) : regular);
  await deps.jobs.enqueue(tx, BOT_JOBS.sync, { id, poll: true }, { singletonKey: `${id}:poll:${Math.floor(at.getTime() / 1000)}`, startAfter: at });
}

/**
 * Reads the bot and applies its status changes not yet applied, in order, through our state machine: a
 * change our machine does not allow any more is skipped (Recall's `call_ended`/`done` after
 * `recording_permission_denied`, which is terminal for us). When the bot is `done`, the recording and the
 * transcript are fetched and the meeting finishes. While it is active, the next poll is scheduled.
 */
export async function syncProviderBot(deps: BotDeps, payload: { id: string; poll?: boolean }, signal?: AbortSignal): Promise<MeetingStatus | null> {
  const row = await loadMeeting(deps.db, payload.id);
  if (!row?.providerBotId) return row?.status as MeetingStatus | null;
  const bot = await deps.bot.getBot(row.providerBotId, signal);
  const now = deps.clock.now();
  const fresh = bot.status_changes.slice(row.providerChangesSeen);
  let status = row.status as MeetingStatus;
  await deps.db.transaction(async (tx) => {
    for (const change of fresh) {
      const move = moveFor(change);
      if (!move) continue;
      const moved = await moveMeeting(tx, row.id, move, now);
      if (moved) status = moved.status as MeetingStatus;
    }
    await updateMeeting(tx, row.id, { providerChangesSeen: bot.status_changes.length });
  });
  const finished = bot.status_changes.some((change) => change.code === 'done' || change.code === 'recording_done');
  if (finished && status === 'call_ended') {
    if (!bot.video_url && !bot.transcript_url) {
      // Nothing was recorded (never admitted, or left before recording): done without a transcript.
      await deps.db.transaction((tx) =>
        moveMeeting(tx, row.id, { code: 'done', sub_code: 'nothing_recorded', message: said(deps.bot, 'The call ended before anything was recorded.') }, now),
      );
      return 'done';
    }
    await deps.db.transaction((tx) =>
      moveMeeting(
        tx,
        row.id,
        { code: 'recording_done', sub_code: 'fetching_media', message: said(deps.bot, 'The recording is being fetched and transcribed.') },
        now,
        {
          analysisStatus: 'processing',
        },
      ),
    );
    status = 'recording_done';
  }
  if (status === 'recording_done') {
    await fetchMedia(deps, row.id, bot, signal);
    return (await loadMeeting(deps.db, row.id))?.status as MeetingStatus;
  }
  if (!INACTIVE.includes(status) && payload.poll !== false) {
    await deps.db.transaction((tx) => schedulePoll(deps, tx, row.id, now, bot.next_change_at));
  }
  return status;
}

/** Downloads the transcript and the MP4 (streamed into storage, served by signed links), then finishes. */
async function fetchMedia(deps: BotDeps, id: string, bot: Awaited<ReturnType<MeetingBotProvider['getBot']>>, signal?: AbortSignal): Promise<void> {
  if (!bot.transcript_url) return fail(deps, id, 'transcript_missing', 'The provider made a recording but no transcript; nothing can be analysed.');
  let transcript: ReturnType<typeof buildTranscript>;
  try {
    transcript = buildTranscript(await deps.bot.downloadTranscript(bot.transcript_url, signal));
  } catch (error) {
    if (error instanceof TranscriptFormatError) return fail(deps, id, 'transcript_unreadable', `The provider's transcript: ${error.message}`);
    throw error;
  }
  let recordingKey: string | null = null;
  if (bot.video_url) {
    const row = await loadMeeting(deps.db, id);
    if (!row) return;
    const response = await deps.bot.downloadVideo(bot.video_url, signal);
    recordingKey = newUploadKey('recording.mp4');
    const stored = await deps.storage.put(uploadObjectKey(recordingKey), Readable.fromWeb(response.body as WebReadableStream), { contentType: 'video/mp4' });
    const now = deps.clock.now();
    // An upload row recorded under the meeting (file_id = meeting id): /uploads/{key} serves it with signed
    // links; it counts toward no storage quota and no upload cleanup touches it.
    await deps.db.insert(uploads).values({
      key: recordingKey,
      workspaceId: row.workspaceId,
      folderId: null,
      createdByUserId: null,
      fileName: 'recording.mp4',
      contentType: 'video/mp4',
      declaredSize: stored.size,
      declaredChecksumSha256: null,
      expiresAt: now,
      uploadedAt: now,
      storedSize: stored.size,
      checksumSha256: null,
      fileId: id,
      createdAt: now,
    });
  }
  await finishWithTranscript(deps, id, transcript, recordingKey ? { recordingKey } : {}, signal);
  // Deleted or cancelled meanwhile: the bytes must not outlive the meeting.
  const after = await loadMeeting(deps.db, id);
  if (recordingKey && after?.recordingKey !== recordingKey) await deleteRecording(deps, recordingKey);
}

/** Deletes a recording's bytes and its upload row. */
export async function deleteRecording(deps: Pick<MeetingJobDeps, 'db' | 'storage'>, key: string): Promise<void> {
  await deps.storage.delete(uploadObjectKey(key));
  await deps.db.delete(uploads).where(eq(uploads.key, key));
}

/** Records a webhook's message id; false when it was received before (a retry or a replay: not acted on again). */
export async function firstDelivery(deps: Pick<MeetingJobDeps, 'db'>, messageId: string, now: Date): Promise<boolean> {
  const inserted = await deps.db.insert(meetingBotWebhooks).values({ messageId, receivedAt: now }).onConflictDoNothing().returning();
  return inserted.length > 0;
}

/** Forgets webhook ids older than the provider's retry window (24 h) plus the signature tolerance; returns how many. */
export function pruneWebhookIds(deps: Pick<MeetingJobDeps, 'db'>, now: Date, signal?: AbortSignal): Promise<number> {
  return deleteOlderThan(deps.db, meetingBotWebhooks, meetingBotWebhooks.receivedAt, new Date(now.getTime() - 25 * 60 * 60 * 1000), { signal });
}

export function botJobs(deps: MeetingJobDeps): JobDefinition<any>[] {
  return [
    purgeJob({
      kind: BOT_JOBS.prune,
      schedule: '41 * * * *',
      what: 'webhook ids past the retry window',
      purge: (signal) => pruneWebhookIds(deps, deps.clock.now(), signal),
    }),
    {
      kind: BOT_JOBS.create,
      deadlineSeconds: 60,
      retryLimit: 3,
      retryDelaySeconds: 10,
      run: (payload: { id: string }, context) => createProviderBot(deps, payload, context.signal),
      onFailure: (payload: { id: string }, error) =>
        fail(
          deps,
          payload.id,
          'bot_create_failed',
          `The meeting-bot provider could not create the bot: ${error instanceof Error ? error.message : String(error)}`,
        ),
    },
    {
      kind: BOT_JOBS.sync,
      deadlineSeconds: 900,
      retryLimit: 5,
      retryDelaySeconds: 15,
      run: async (payload: { id: string; poll?: boolean }, context) => void (await syncProviderBot(deps, payload, context.signal)),
      onFailure: async (payload: { id: string }, error) => {
        // A sync that keeps failing while media is being fetched fails the meeting with the reason; earlier, the next poll retries.
        const row = await loadMeeting(deps.db, payload.id);
        if (row?.status === 'recording_done') {
          await fail(deps, payload.id, 'media_fetch_failed', `The recording could not be fetched: ${error instanceof Error ? error.message : String(error)}`);
        }
      },
    },
  ];
}
