import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, real, text } from 'drizzle-orm/pg-core';
import type { MeetingAnalysis, MeetingSpeaker, MeetingStatusChange, MeetingTranscriptSegment } from '@persona-api/types';
import { timestampMs } from '../../db/schema/columns.js';
import { users } from '../../db/schema/tenancy.js';
import { workspaces } from '../workspaces/table.js';

/** One schema's extraction state as the schema-results job stores it (Meeting.schema_runs). */
export interface StoredSchemaRun {
  status: 'processing' | 'completed' | 'failed' | 'skipped';
  error: string | null;
  updatedAt: number;
}

/**
 * Meetings (DECISIONS.md, Meetings). `status` is the current state; `status_changes` its history with the
 * cause of each change (the last one is `status_detail`). `meeting_key` is the canonical identity of the
 * call (Zoom meeting number, Meet code…) that the one-active-bot-per-call rule compares.
 */
export const meetings = pgTable(
  'meetings',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    createdByUserId: text('created_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    title: text('title').notNull(),
    meetingUrl: text('meeting_url'),
    meetingKey: text('meeting_key'),
    // bot | simulated_bot | import
    source: text('source').notNull(),
    sourceFileId: text('source_file_id'),
    botName: text('bot_name').notNull(),
    joinType: text('join_type').notNull(),
    joinAt: timestampMs('join_at').notNull(),
    completedAt: timestampMs('completed_at'),
    status: text('status').notNull(),
    statusChanges: jsonb('status_changes').$type<MeetingStatusChange[]>().notNull(),
    // Upload key of the recording (MP4, served by signed /uploads links), null when none is stored.
    recordingKey: text('recording_key'),
    // The provider's bot (source `bot`), and how many of its status changes were applied.
    providerBotId: text('provider_bot_id'),
    providerChangesSeen: integer('provider_changes_seen').notNull().default(0),
    participantCount: integer('participant_count').notNull().default(0),
    analysisStatus: text('analysis_status').notNull(),
    schemaIds: jsonb('schema_ids').$type<string[]>().notNull(),
    // What the schema-results job did with each schema id: {status, error, updatedAt (ms)}; absent means nothing ran yet.
    schemaRuns: jsonb('schema_runs').$type<Record<string, StoredSchemaRun>>().notNull().default({}),
    // Seconds recorded; the transcription minutes a done meeting used are ceil(this / 60).
    recordedSeconds: real('recorded_seconds'),
    // Whether the transcript came from speech-to-text (and so uses transcription minutes).
    transcribed: integer('transcribed').notNull().default(0),
    cancelledAt: timestampMs('cancelled_at'),
    cancelledBy: text('cancelled_by'),
    cancelReason: text('cancel_reason'),
    createdAt: timestampMs('created_at').notNull(),
    updatedAt: timestampMs('updated_at').notNull(),
  },
  (t) => [
    index('meetings_workspace_idx').on(t.workspaceId, t.createdAt, t.id),
    index('meetings_workspace_status_idx').on(t.workspaceId, t.status, t.createdAt, t.id).concurrently(),
    index('meetings_key_idx').on(t.workspaceId, t.meetingKey),
    index('meetings_provider_bot_idx').on(t.providerBotId),
    // The hourly media expiry's due meetings (done, oldest completion first): only meetings whose media is
    // still kept, not every meeting ever held; built online (`.concurrently()`, db/online-indexes.ts).
    index('meetings_media_due_idx').on(t.completedAt).where(sql`${t.status} = 'done'`).concurrently(),
  ],
);

/** A meeting's transcript and analysis, kept after `media_expired`; deleted with the meeting. */
export const meetingTranscripts = pgTable('meeting_transcripts', {
  meetingId: text('meeting_id')
    .primaryKey()
    .references(() => meetings.id, { onDelete: 'cascade' }),
  language: text('language').notNull(),
  durationSeconds: real('duration_seconds').notNull(),
  speakers: jsonb('speakers').$type<MeetingSpeaker[]>().notNull(),
  segments: jsonb('segments').$type<MeetingTranscriptSegment[]>().notNull(),
  wordCount: integer('word_count').notNull(),
  analysis: jsonb('analysis').$type<Omit<MeetingAnalysis, 'object' | 'meeting_id' | 'created_at' | 'updated_at'>>(),
  createdAt: timestampMs('created_at').notNull(),
  analysedAt: timestampMs('analysed_at'),
});

/** Ids of the provider webhooks already received: a message delivered twice is acted on once. */
export const meetingBotWebhooks = pgTable(
  'meeting_bot_webhooks',
  {
    messageId: text('message_id').primaryKey(),
    receivedAt: timestampMs('received_at').notNull(),
  },
  // The hourly prune's oldest-first batches (db/purge.ts); built online (`.concurrently()`, db/online-indexes.ts).
  (t) => [index('meeting_bot_webhooks_received_idx').on(t.receivedAt).concurrently()],
);
