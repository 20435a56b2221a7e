import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/client.js';
import type { ObjectStorage } from '../storage/types.js';
import { createJobQueue, type JobRuntime } from './queue.js';
import { jobDefinitions } from './registry.js';

/** The configured job queue of a process, started: with workers (WORKERS=on, or `pnpm worker`) or without. */
export async function startJobQueue(
  config: Pick<Config, 'WORKER_CONCURRENCY'>,
  deps: { database: DatabaseHandle; storage: ObjectStorage; logger: FastifyBaseLogger; workers: boolean },
): Promise<JobRuntime> {
  let queue: JobRuntime | undefined;
  const definitions = jobDefinitions({
    database: deps.database,
    storage: deps.storage,
    logger: deps.logger,
    jobs: () => {
      if (!queue) throw new Error('The job queue is not created yet.');
      return queue;
    },
  });
  queue = createJobQueue({
    database: deps.database,
    logger: deps.logger,
    definitions,
    workers: deps.workers,
    concurrency: config.WORKER_CONCURRENCY,
  });
  await queue.start();
  return queue;
}
