import { pino } from 'pino';
import type { DatabaseHandle } from '../../src/db/client.js';
import { createJobQueue, type JobQueueOptions, type JobRuntime } from '../../src/jobs/queue.js';
import type { JobDefinition } from '../../src/jobs/types.js';

/**
 * A started job queue for a test, without workers: jobs run when the test calls `drain()`, one at a
 * time in the test itself, so what a job did can be asserted right after. Stop it before closing the
 * database (PGlite: the queue shares its single connection).
 */
export async function openTestJobQueue(
  database: DatabaseHandle,
  definitions: readonly JobDefinition<any>[],
  options: Partial<JobQueueOptions> = {},
): Promise<JobRuntime> {
  const queue = createJobQueue({
    database,
    definitions,
    logger: pino({ level: 'silent' }),
    workers: false,
    supervise: false,
    statsLogIntervalSeconds: 0,
    poolSize: 2,
    ...options,
  });
  await queue.start();
  return queue;
}
