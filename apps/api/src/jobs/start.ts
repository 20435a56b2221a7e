import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/client.js';
import type { Services } from '../services.js';
import { createJobQueue, type JobRuntime } from './queue.js';
import { jobDefinitions } from './registry.js';

/**
 * The configured job queue of a process, started with workers (WORKERS=on, or `pnpm worker`) or
 * without, and set as `services.jobs` so handlers and jobs enqueue through it.
 */
export async function startJobQueue(
  config: Pick<Config, 'WORKER_CONCURRENCY' | 'JOB_HEARTBEAT_SECONDS' | 'JOB_SUPERVISE_INTERVAL_SECONDS'>,
  deps: { database: DatabaseHandle; services: Services; workers: boolean },
): Promise<JobRuntime> {
  const queue = createJobQueue({
    database: deps.database,
    logger: deps.services.logger,
    definitions: jobDefinitions(deps.services),
    workers: deps.workers,
    concurrency: config.WORKER_CONCURRENCY,
    heartbeatSeconds: config.JOB_HEARTBEAT_SECONDS,
    tuning: { superviseIntervalSeconds: config.JOB_SUPERVISE_INTERVAL_SECONDS, monitorIntervalSeconds: config.JOB_SUPERVISE_INTERVAL_SECONDS },
    // PGlite is opened by one process only (DATA_DIR's lock): a job still active at start belonged to
    // a process that died, and is released at once instead of after a missed heartbeat.
    releaseActiveOnStart: deps.database.driver === 'pglite',
  });
  deps.services.jobs = queue;
  await queue.start();
  return queue;
}
