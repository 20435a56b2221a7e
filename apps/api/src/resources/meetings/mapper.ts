import type {
  Meeting,
  MeetingSchemaRun,
  MeetingAnalysis,
  MeetingAnalysisStatus,
  MeetingJoinType,
  MeetingSource,
  MeetingStatus,
  MeetingTranscript,
} from '@persona-api/types';
import { iso } from '../../lib/wire.js';
import type { LinkContext } from '../files/mappers.js';
import { downloadExpiry, downloadUrl } from '../files/signing.js';
import type { meetingTranscripts, meetings } from './table.js';

export type MeetingRow = typeof meetings.$inferSelect;
export type TranscriptRow = typeof meetingTranscripts.$inferSelect;

/** A schema's state: what the schema-results job recorded, else what the meeting's own state implies. */
function schemaRunOf(row: MeetingRow, schemaId: string): MeetingSchemaRun {
  const stored = row.schemaRuns[schemaId];
  if (stored) return { schema_id: schemaId, status: stored.status, error: stored.error, updated_at: iso(new Date(stored.updatedAt)) };
  // The analysis is skipped exactly when the meeting ended without a transcript: no schema can run either.
  if (row.analysisStatus === 'skipped') return { schema_id: schemaId, status: 'skipped', error: 'The meeting ended without a transcript.', updated_at: null };
  return { schema_id: schemaId, status: 'pending', error: null, updated_at: null };
}

/** `links`: given when the meeting has a recording, whose link is signed afresh for one hour. */
export function toMeeting(row: MeetingRow, links: LinkContext | null = null): Meeting {
  const changes = row.statusChanges;
  return {
    id: row.id,
    object: 'meeting',
    title: row.title,
    meeting_url: row.meetingUrl,
    source: row.source as MeetingSource,
    source_file_id: row.sourceFileId,
    bot_name: row.botName,
    join_type: row.joinType as MeetingJoinType,
    join_at: iso(row.joinAt),
    completed_at: row.completedAt ? iso(row.completedAt) : null,
    status: row.status as MeetingStatus,
    status_detail: changes[changes.length - 1]!,
    status_changes: changes,
    // Signed /uploads link valid at least one hour from this read; none before the media is fetched or after media_expired.
    recording_url:
      row.recordingKey && links
        ? downloadUrl(links.baseUrl, links.keys, {
            key: row.recordingKey,
            variant: 'original',
            expires: downloadExpiry(Math.floor(links.now.getTime() / 1000)),
          })
        : null,
    participant_count: row.participantCount,
    workspace_id: row.workspaceId,
    has_analysis: row.analysisStatus === 'completed',
    analysis_status: row.analysisStatus as MeetingAnalysisStatus,
    schema_ids: row.schemaIds,
    schema_runs: row.schemaIds.map((schemaId) => schemaRunOf(row, schemaId)),
    cancelled_at: row.cancelledAt ? iso(row.cancelledAt) : null,
    cancelled_by: row.cancelledBy,
    cancel_reason: row.cancelReason,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

export function toTranscript(row: TranscriptRow): MeetingTranscript {
  return {
    object: 'meeting.transcript',
    meeting_id: row.meetingId,
    language: row.language,
    duration_seconds: row.durationSeconds,
    speakers: row.speakers,
    segments: row.segments,
    word_count: row.wordCount,
    created_at: iso(row.createdAt),
  };
}

export function toAnalysis(row: TranscriptRow & { analysis: NonNullable<TranscriptRow['analysis']>; analysedAt: Date }): MeetingAnalysis {
  return { object: 'meeting.analysis', meeting_id: row.meetingId, ...row.analysis, created_at: iso(row.analysedAt), updated_at: iso(row.analysedAt) };
}
