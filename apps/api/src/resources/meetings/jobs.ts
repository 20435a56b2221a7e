import { type Engine, EngineError } from '@persona-api/engine';
import type { MeetingStatus } from '@persona-api/types';
import { and, asc, eq, lt } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.js';
import type { JobDefinition, JobQueue } from '../../jobs/types.js';
import type { Clock } from '../../services.js';
import type { ObjectStorage } from '../../storage/types.js';
import { files, uploads } from '../files/table.js';
import { SCHEMA_RESULTS_JOB } from '../meeting-schemas/jobs.js';
import { uploadObjectKey } from '../files/keys.js';
import { analyseTranscript, type ComputedAnalysis } from './analysis.js';
import { canMove, withChange, type StatusMove } from './lifecycle.js';
import type { MeetingRow } from './mapper.js';
import type { MeetingBotProvider } from './recall.js';
import { countTranscriptionMinutes, loadMeeting, lockMeeting, updateMeeting, upsertTranscript } from './repository.js';
import { meetings } from './table.js';
import { MediaInputError, mediaInputOf } from '../files/media-input.js';
import { SNIFF_BYTES } from '../files/sniff.js';
import { MAX_TRANSCRIPTION_BYTES, TranscriptionError, type Transcriber } from './transcriber.js';
import { parseTranscriptFile, transcriptFormatOf, TranscriptFormatError, type ParsedTranscript } from './transcript-parse.js';

export const MEETING_JOBS = { import: 'meeting.import', expireMedia: 'meeting.expire-media' } as const;

const MEDIA_KEPT_MS = 30 * 24 * 60 * 60 * 1000;

export interface MeetingJobDeps {
  db: Database;
  jobs: JobQueue;
  storage: ObjectStorage;
  clock: Clock;
  /** Summary, key points, action items, risks and sentiment of the analysis (the `meeting_analysis` feature). */
  engine: Engine;
  /** Speech-to-text for imported recordings; null: recordings fail with `transcription_not_configured`. */
  transcriber?: Transcriber | null;
  /** The meeting-bot provider: the configured one or the development simulator (settings.ts, meetingBotOf). */
  bot: MeetingBotProvider;
}

/** A transcript file larger than this is refused (20 000 segments of text stay well under it). */
const MAX_TRANSCRIPT_FILE_BYTES = 50 * 1024 * 1024;

/**
 * Moves the meeting to `move.code` when the state machine allows it from its current status, in `tx`
 * (the row locked). A move that is no longer possible (cancelled meanwhile, or a provider's late
 * `call_ended`/`done` after our terminal status) changes nothing: returns null.
 */
export async function moveMeeting(tx: Executor, id: string, move: StatusMove, now: Date, extra: Partial<MeetingRow> = {}): Promise<MeetingRow | null> {
  const row = await lockMeeting(tx, id);
  if (!row || !canMove(row.status as MeetingStatus, move.code)) return null;
  const changes: Partial<MeetingRow> = { ...extra, status: move.code, statusChanges: withChange(row.statusChanges, move, now), updatedAt: now };
  if (move.code === 'done') changes.completedAt = now;
  if (['fatal', 'recording_permission_denied', 'cancelled'].includes(move.code) || (move.code === 'done' && row.status === 'call_ended')) {
    changes.analysisStatus = 'skipped';
  }
  await updateMeeting(tx, id, changes);
  // Done is reached once (nothing moves back to it): its transcription minutes are counted here.
  if (move.code === 'done') await countTranscriptionMinutes(tx, id);
  return { ...row, ...changes };
}

/** Stores transcript and analysis and finishes the meeting (recording_done → done), in one transaction. */
export async function finishWithTranscript(
  deps: MeetingJobDeps,
  id: string,
  transcript: ParsedTranscript,
  extra: Partial<MeetingRow> = {},
  signal?: AbortSignal,
): Promise<void> {
  // The model runs before the transaction (it can take seconds). When it fails, the transcript is kept and
  // the meeting is done with its analysis `failed` and the reason: the call's record must not be lost to it.
  let analysis: ComputedAnalysis | null = null;
  let analysisError: string | null = null;
  try {
    const meeting = await loadMeeting(deps.db, id);
    analysis = await analyseTranscript(deps.engine, transcript, meeting?.joinAt ?? null, signal);
  } catch (error) {
    if (!(error instanceof EngineError) || error.code === 'aborted') throw error;
    analysisError = error.message;
  }
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    const row = await lockMeeting(tx, id);
    if (row?.status !== 'recording_done') return;
    await upsertTranscript(tx, {
      meetingId: id,
      language: 'en',
      durationSeconds: transcript.durationSeconds,
      speakers: transcript.speakers,
      segments: transcript.segments,
      wordCount: transcript.wordCount,
      analysis,
      createdAt: now,
      analysedAt: analysis ? now : null,
    });
    const done = await moveMeeting(
      tx,
      id,
      analysisError
        ? { code: 'done', sub_code: 'analysis_failed', message: `The transcript is ready; the analysis failed: ${analysisError}`.slice(0, 1000) }
        : { code: 'done' },
      now,
      {
        ...extra,
        analysisStatus: analysis ? 'completed' : 'failed',
        recordedSeconds: transcript.durationSeconds,
        participantCount: Math.max(row.participantCount, transcript.speakers.length),
      },
    );
    // The meeting's schemas run once it is done (results are empty until then).
    if (done && done.schemaIds.length > 0) await deps.jobs.enqueue(tx, SCHEMA_RESULTS_JOB, { id }, { singletonKey: id });
  });
}

export async function fail(deps: Pick<MeetingJobDeps, 'db' | 'clock'>, id: string, subCode: string, message: string): Promise<void> {
  await deps.db.transaction((tx) => moveMeeting(tx, id, { code: 'fatal', sub_code: subCode, message }, deps.clock.now()));
}

/** Reads an uploaded transcript through the files table and storage, and finishes the meeting from it. */
async function importFile(deps: MeetingJobDeps, payload: { id: string }, signal: AbortSignal): Promise<void> {
  const now = deps.clock.now();
  const started = await deps.db.transaction((tx) =>
    moveMeeting(tx, payload.id, { code: 'recording_done', sub_code: 'imported', message: 'The uploaded file is being imported.' }, now, {
      analysisStatus: 'processing',
    }),
  );
  const row = started ?? (await deps.db.transaction((tx) => lockMeeting(tx, payload.id)));
  if (row?.status !== 'recording_done' || !row.sourceFileId) return;
  const [file] = await deps.db.select().from(files).where(eq(files.id, row.sourceFileId)).limit(1);
  if (!file?.storageKey) return fail(deps, row.id, 'file_not_found', `The file ${row.sourceFileId} was deleted or holds no uploaded bytes.`);
  const media = file.type.startsWith('audio/') || file.type.startsWith('video/');
  if (media && !deps.transcriber) {
    return fail(
      deps,
      row.id,
      'transcription_not_configured',
      'This server has no speech-to-text server configured, so the recording cannot be transcribed; upload a transcript (WebVTT, SRT or JSON) instead.',
    );
  }
  const stored = await deps.storage.get(uploadObjectKey(file.storageKey));
  if (!stored) return fail(deps, row.id, 'file_not_found', `The bytes of ${file.id} are missing from storage.`);
  const limit = media ? MAX_TRANSCRIPTION_BYTES : MAX_TRANSCRIPT_FILE_BYTES;
  if (stored.size > limit) {
    stored.body.destroy();
    return fail(
      deps,
      row.id,
      media ? 'recording_too_large' : 'transcript_unreadable',
      `${file.name} is ${stored.size} bytes; at most ${limit} can be ${media ? 'transcribed' : 'read'}.`,
    );
  }
  const chunks: Buffer[] = [];
  for await (const chunk of stored.body) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
  const bytes = Buffer.concat(chunks);
  if (media) {
    // Only a real audio or video container is sent on (SECURITY.md, Media): never a playlist or manifest.
    try {
      await mediaInputOf(bytes.subarray(0, SNIFF_BYTES));
    } catch (error) {
      if (error instanceof MediaInputError) return fail(deps, row.id, 'recording_unreadable', `${file.name}: ${error.message}`);
      throw error;
    }
    let heard: ParsedTranscript;
    try {
      heard = await deps.transcriber!.transcribe(bytes, file.name, file.type, signal);
    } catch (error) {
      if (error instanceof TranscriptionError || error instanceof TranscriptFormatError) return fail(deps, row.id, 'transcription_failed', error.message);
      throw error;
    }
    return finishWithTranscript(deps, row.id, heard, {}, signal);
  }
  const text = bytes.toString('utf8');
  const format = transcriptFormatOf(file.name, file.type.toLowerCase(), text.slice(0, 200));
  if (!format) return fail(deps, row.id, 'transcript_unreadable', `${file.name} is not a WebVTT, SRT or JSON transcript.`);
  let transcript: ParsedTranscript;
  try {
    transcript = parseTranscriptFile(text, format);
  } catch (error) {
    if (error instanceof TranscriptFormatError) return fail(deps, row.id, 'transcript_unreadable', `${file.name}: ${error.message}`);
    throw error;
  }
  await finishWithTranscript(deps, row.id, transcript, {}, signal);
}

/**
 * `done` → `media_expired` 30 days after completion: the recording bytes are deleted; transcript,
 * analysis and results stay. Returns the expired ids.
 */
export async function expireMeetingMedia(deps: MeetingJobDeps): Promise<string[]> {
  const now = deps.clock.now();
  const due = await deps.db
    .select({ id: meetings.id })
    .from(meetings)
    .where(and(eq(meetings.status, 'done'), lt(meetings.completedAt, new Date(now.getTime() - MEDIA_KEPT_MS))))
    .orderBy(asc(meetings.completedAt))
    .limit(500);
  const expired: string[] = [];
  for (const { id } of due) {
    const moved = await deps.db.transaction(async (tx) => {
      const row = await lockMeeting(tx, id);
      const next = await moveMeeting(
        tx,
        id,
        {
          code: 'media_expired',
          sub_code: 'retention_30_days',
          message: 'The recording media was deleted 30 days after the meeting; the transcript and analysis are kept.',
        },
        now,
        { recordingKey: null },
      );
      return next ? row : null;
    });
    if (!moved) continue;
    if (moved.recordingKey) {
      await deps.storage.delete(uploadObjectKey(moved.recordingKey));
      await deps.db.delete(uploads).where(eq(uploads.key, moved.recordingKey));
    }
    expired.push(id);
  }
  return expired;
}

export function meetingJobs(deps: MeetingJobDeps): JobDefinition<any>[] {
  return [
    { kind: MEETING_JOBS.expireMedia, schedule: '23 * * * *', deadlineSeconds: 600, run: async () => void (await expireMeetingMedia(deps)) },
    {
      kind: MEETING_JOBS.import,
      deadlineSeconds: 300,
      retryLimit: 2,
      retryDelaySeconds: 10,
      run: (payload: { id: string }, context) => importFile(deps, payload, context.signal),
      onFailure: (payload: { id: string }) =>
        fail(deps, payload.id, 'import_failed', 'The import failed after retries; upload the file again and create a new meeting.'),
    },
  ];
}
