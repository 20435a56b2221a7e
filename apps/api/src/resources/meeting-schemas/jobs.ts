import type { Engine } from '@persona-api/engine';
import { inArray } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import type { JobDefinition } from '../../jobs/types.js';
import type { Clock } from '../../services.js';
import { findTranscript, loadMeeting } from '../meetings/repository.js';
import { upsertResult } from './repository.js';
import { extractResult } from './run.js';
import { meetingSchemas } from './table.js';

/** Enqueued by the meetings module in the transaction that makes a meeting `done` (with schema_ids). */
export const SCHEMA_RESULTS_JOB = 'meeting.schema-results';

export interface SchemaResultJobDeps {
  db: Database;
  engine: Engine;
  clock: Clock;
}

/**
 * Runs the meeting's schemas on its transcript, in `schema_ids` order; a schema deleted since the
 * meeting was created is skipped (DECISIONS.md). Running again replaces the results.
 */
export async function runMeetingSchemas(deps: SchemaResultJobDeps, payload: { id: string }, signal?: AbortSignal): Promise<number> {
  const meeting = await loadMeeting(deps.db, payload.id);
  if (!meeting || !['done', 'media_expired'].includes(meeting.status) || meeting.schemaIds.length === 0) return 0;
  const transcript = await findTranscript(deps.db, meeting.id);
  if (!transcript) return 0;
  const schemas = await deps.db.select().from(meetingSchemas).where(inArray(meetingSchemas.id, meeting.schemaIds));
  let made = 0;
  for (const id of meeting.schemaIds) {
    const schema = schemas.find((candidate) => candidate.id === id);
    if (!schema) continue;
    const result = await extractResult(deps.engine, schema, meeting, transcript, deps.clock.now(), signal);
    // The meeting may have been deleted meanwhile: its results go with it (the insert fails the foreign key).
    if (!(await loadMeeting(deps.db, meeting.id))) return made;
    await upsertResult(deps.db, result);
    made += 1;
  }
  return made;
}

export function schemaResultJobs(deps: SchemaResultJobDeps): JobDefinition<any>[] {
  return [
    {
      kind: SCHEMA_RESULTS_JOB,
      deadlineSeconds: 600,
      retryLimit: 2,
      retryDelaySeconds: 30,
      run: async (payload: { id: string }, context) => void (await runMeetingSchemas(deps, payload, context.signal)),
    },
  ];
}
