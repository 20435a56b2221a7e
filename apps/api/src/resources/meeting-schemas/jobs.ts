import type { Engine } from '@persona-api/engine';
import { inArray } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import type { JobDefinition } from '../../jobs/types.js';
import type { Clock } from '../../services.js';
import { findTranscript, loadMeeting, setSchemaRun } from '../meetings/repository.js';
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

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 500);

/**
 * Runs the meeting's schemas on its transcript, in `schema_ids` order, and keeps each one's state on the
 * meeting (`schema_runs`, DECISIONS.md): a schema deleted since the meeting was created is `skipped`, one
 * whose extraction fails is `failed` while the others still run, and the job then fails so it is retried.
 * Running again replaces the results; a retry (`attempt` > 0) does not redo the schemas already completed.
 */
export async function runMeetingSchemas(deps: SchemaResultJobDeps, payload: { id: string }, signal?: AbortSignal, attempt = 0): Promise<number> {
  const meeting = await loadMeeting(deps.db, payload.id);
  if (!meeting || !['done', 'media_expired'].includes(meeting.status) || meeting.schemaIds.length === 0) return 0;
  const at = () => deps.clock.now().getTime();
  const transcript = await findTranscript(deps.db, meeting.id);
  if (!transcript) {
    for (const id of meeting.schemaIds)
      await setSchemaRun(deps.db, meeting.id, id, { status: 'skipped', error: 'The meeting has no transcript.', updatedAt: at() });
    return 0;
  }
  const schemas = await deps.db.select().from(meetingSchemas).where(inArray(meetingSchemas.id, meeting.schemaIds));
  let made = 0;
  const failed: string[] = [];
  for (const id of meeting.schemaIds) {
    const schema = schemas.find((candidate) => candidate.id === id);
    if (!schema) {
      await setSchemaRun(deps.db, meeting.id, id, { status: 'skipped', error: 'The schema was deleted.', updatedAt: at() });
      continue;
    }
    if (attempt > 0 && meeting.schemaRuns[id]?.status === 'completed') continue;
    await setSchemaRun(deps.db, meeting.id, id, { status: 'processing', error: null, updatedAt: at() });
    let result: Awaited<ReturnType<typeof extractResult>>;
    try {
      result = await extractResult(deps.engine, schema, meeting, transcript, deps.clock.now(), signal);
    } catch (error) {
      // Stopped (deadline, shutdown): onFailure or the next attempt records it.
      if (signal?.aborted) throw error;
      await setSchemaRun(deps.db, meeting.id, id, { status: 'failed', error: messageOf(error), updatedAt: at() });
      failed.push(id);
      continue;
    }
    // The meeting may have been deleted meanwhile: its results go with it (the insert fails the foreign key).
    if (!(await loadMeeting(deps.db, meeting.id))) return made;
    await deps.db.transaction(async (tx) => {
      await upsertResult(tx, result);
      await setSchemaRun(tx, meeting.id, id, { status: 'completed', error: null, updatedAt: at() });
    });
    made += 1;
  }
  if (failed.length > 0) throw new Error(`Schema extraction failed for ${failed.join(', ')}.`);
  return made;
}

/** After the last attempt: whatever did not complete is `failed`, so no schema stays `pending` or `processing`. */
export async function failUnfinishedSchemaRuns(deps: SchemaResultJobDeps, payload: { id: string }, error: unknown): Promise<void> {
  const meeting = await loadMeeting(deps.db, payload.id);
  if (!meeting) return;
  for (const id of meeting.schemaIds) {
    const status = meeting.schemaRuns[id]?.status;
    if (status === 'completed' || status === 'skipped' || status === 'failed') continue;
    await setSchemaRun(deps.db, meeting.id, id, { status: 'failed', error: messageOf(error), updatedAt: deps.clock.now().getTime() });
  }
}

export function schemaResultJobs(deps: SchemaResultJobDeps): JobDefinition<any>[] {
  return [
    {
      kind: SCHEMA_RESULTS_JOB,
      deadlineSeconds: 600,
      retryLimit: 2,
      retryDelaySeconds: 30,
      run: async (payload: { id: string }, context) => void (await runMeetingSchemas(deps, payload, context.signal, context.attempt)),
      onFailure: (payload: { id: string }, error) => failUnfinishedSchemaRuns(deps, payload, error),
    },
  ];
}
