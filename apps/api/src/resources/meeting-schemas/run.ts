import { performance } from 'node:perf_hooks';
import { meetingSchemaExtraction, type Engine } from '@persona-api/engine';
import { newId } from '../../lib/ids.js';
import type { MeetingRow, TranscriptRow } from '../meetings/mapper.js';
import type { SchemaRow } from './mapper.js';
import type { ResultRow } from './repository.js';

/**
 * Runs one schema on a meeting's transcript through the engine's structured-output feature (the offline
 * engine reads the values from the transcript's sentences); quotes, evidence and scores are settled in
 * code by the feature. Returns the result row to store (not stored here).
 */
export async function extractResult(
  engine: Engine,
  schema: SchemaRow,
  meeting: Pick<MeetingRow, 'id' | 'workspaceId' | 'joinAt'>,
  transcript: Pick<TranscriptRow, 'segments' | 'speakers'>,
  now: Date,
  signal?: AbortSignal,
): Promise<ResultRow> {
  const started = performance.now();
  const { output } = await engine.run(
    meetingSchemaExtraction,
    {
      schema: { name: schema.name, description: schema.description, category: schema.category as never, fields: schema.fields },
      segments: transcript.segments,
      speakers: transcript.speakers,
      meeting_date: meeting.joinAt.toISOString().slice(0, 10),
    },
    signal ? { signal } : {},
  );
  return {
    id: newId('msr'),
    meetingId: meeting.id,
    workspaceId: meeting.workspaceId,
    schemaId: schema.id,
    schemaName: schema.name,
    schemaVersion: schema.version,
    schemaCategory: schema.category,
    fieldValues: output.field_values,
    scores: output.scores,
    overallScore: output.overall_score,
    evidence: output.evidence,
    droppedQuotes: output.dropped_quotes,
    engine: engine.kind === 'offline' ? 'offline' : (engine.describe().upstream_model ?? engine.kind),
    processingTimeMs: Math.min(3_600_000, Math.round(performance.now() - started)),
    createdAt: now,
    updatedAt: now,
  };
}
