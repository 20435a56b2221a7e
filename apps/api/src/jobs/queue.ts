import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { fromDrizzle, fromPglite, PgBoss, type ConstructorOptions, type Db, type JobWithMetadata } from 'pg-boss';
import type { DatabaseHandle, Executor, Transaction } from '../db/client.js';
import { collectQueueGauges, countEnqueued, observeJobRun, withTraceContext } from '../observability/jobs.js';
import type { EnqueueOptions, JobContext, JobDefinition, JobQueue, QueueStats } from './types.js';

/** pg-boss keeps its tables in this schema of the application's own database. */
export const JOBS_SCHEMA = 'pgboss';
const DEFAULT_RETRY_LIMIT = 2;
const DEFAULT_RETRY_DELAY_SECONDS = 5;
const DEFAULT_HEARTBEAT_SECONDS = 30;

export interface JobQueueOptions {
  database: DatabaseHandle;
  logger: FastifyBaseLogger;
  definitions: readonly JobDefinition<any>[];
  /** Run the definitions' jobs (and their schedules) in this process; off for an API-only process. */
  workers: boolean;
  /** Jobs of one kind run at most this many at a time in this process (default 2). */
  concurrency?: number;
  /** How often an idle worker looks for jobs (default 2 s, at least 0.5). */
  pollingIntervalSeconds?: number;
  /** Expire, retry and count jobs in the background (default true; tests turn it off and call `supervise()`). */
  supervise?: boolean;
  /** How often queue depth and failures are logged when workers run (default 60 s; 0: never). */
  statsLogIntervalSeconds?: number;
  /** pg-boss timings for tests (e.g. `superviseIntervalSeconds`, `monitorIntervalSeconds`). */
  tuning?: Pick<
    ConstructorOptions,
    | 'superviseIntervalSeconds'
    | 'monitorIntervalSeconds'
    | 'maintenanceIntervalSeconds'
    | 'cronMonitorIntervalSeconds'
    | 'cronWorkerIntervalSeconds'
    | 'clockMonitorIntervalSeconds'
  >;
  /**
   * Running jobs refresh a heartbeat this often (seconds, at least 10): a job whose process died is
   * failed (and retried) once it is missed, not only after its whole deadline. Default 30.
   */
  heartbeatSeconds?: number;
  /**
   * Fails (so retries) every job still active when the queue starts, before any worker runs. Only for
   * a process that owns the database alone (PGlite): there, an active job's process is gone.
   */
  releaseActiveOnStart?: boolean;
  /** PostgreSQL only: size of pg-boss's own pool (default 4). */
  poolSize?: number;
}

/** The queue plus what the process that owns it needs: lifecycle, maintenance and a test drain. */
export interface JobRuntime extends JobQueue {
  readonly workers: boolean;
  /** Installs or migrates pg-boss's schema, creates one queue per definition, starts workers and schedules. */
  start(): Promise<void>;
  /**
   * Stops fetching; running jobs get `timeoutMs` to finish, after which pg-boss fails them (they run
   * again on their next attempt) and aborts their `signal`. Call before closing the database.
   */
  stop(options?: { timeoutMs?: number }): Promise<void>;
  /** Runs pg-boss's supervision now: expires overdue jobs (which then retry or fail) and refreshes the counts `stats()` reads. */
  supervise(): Promise<void>;
  /**
   * Works through queued jobs one at a time in the caller, failure handlers included, until none is
   * ready (for tests and scripts, on a queue created with `workers: false`). With
   * `ignoreStartAfter`, retries waiting out their backoff and delayed jobs run too.
   */
  drain(options?: { ignoreStartAfter?: boolean; maxJobs?: number }): Promise<{ completed: number; failed: number }>;
}

/** The dead-letter queue a kind's jobs land in once they have failed for good; its worker calls `onFailure`. */
export const deadLetterQueue = (kind: string) => `${kind}.dead`;

/**
 * The pg-boss database adapter for a Drizzle transaction (or database) of either driver: what makes
 * `enqueue` part of the caller's transaction. On PGlite, pg-boss must never be called without it
 * from inside a transaction: PGlite has one connection behind a mutex, and the call would wait forever.
 */
export function transactionDb(tx: Transaction | Executor): Db {
  return fromDrizzle(tx as unknown as Parameters<typeof fromDrizzle>[0], sql as unknown as Parameters<typeof fromDrizzle>[1]);
}

/** A failed job's last error, as pg-boss stored it (message, stack, …), handed to `onFailure`. */
export class JobFailedError extends Error {
  override name = 'JobFailedError';
  constructor(
    message: string,
    readonly output: unknown,
  ) {
    super(message);
  }
}

function errorOutput(err: unknown): Record<string, unknown> {
  if (err instanceof Error) return { name: err.name, message: err.message, stack: err.stack };
  return { message: String(err) };
}

function failureFrom(output: unknown): JobFailedError {
  const message =
    output && typeof output === 'object' && typeof (output as { message?: unknown }).message === 'string'
      ? (output as { message: string }).message
      : 'job failed';
  return new JobFailedError(message, output);
}

export function createJobQueue(options: JobQueueOptions): JobRuntime {
  const { database, logger, definitions, workers } = options;
  const byKind = new Map<string, JobDefinition<Record<string, unknown>>>();
  for (const definition of definitions) {
    if (byKind.has(definition.kind)) throw new Error(`Two job definitions share the kind ${definition.kind}.`);
    if (!(definition.deadlineSeconds >= 1)) throw new Error(`Job ${definition.kind}: deadlineSeconds must be at least 1.`);
    byKind.set(definition.kind, definition as JobDefinition<Record<string, unknown>>);
  }
  const log = logger.child({ component: 'jobs' });
  const supervise = options.supervise ?? true;
  const connection = database.connection;
  const boss = new PgBoss({
    ...(connection.driver === 'pglite'
      ? { db: fromPglite(connection.client), backend: 'pglite' as const }
      : { connectionString: connection.url, max: options.poolSize ?? 4, backend: 'postgres' as const }),
    schema: JOBS_SCHEMA,
    supervise,
    // Cron runs where the workers run: an API-only process leaves schedules to `pnpm worker`.
    schedule: workers,
    ...options.tuning,
  });
  boss.on('error', (err) => log.error({ err }, 'job queue error'));
  boss.on('warning', (warning) => log.warn({ warning }, 'job queue warning'));

  let started = false;
  let statsTimer: NodeJS.Timeout | undefined;

  const contextFor = (kind: string, jobId: string, attempt: number, signal: AbortSignal): JobContext => ({
    jobId,
    attempt,
    signal,
    log: log.child({ job_kind: kind, job_id: jobId, attempt }),
  });

  const runJob = async (definition: JobDefinition<Record<string, unknown>>, job: { id: string; retryCount: number; data: unknown }, signal: AbortSignal) => {
    const context = contextFor(definition.kind, job.id, job.retryCount, signal);
    context.log.info('job started');
    try {
      await observeJobRun(definition.kind, job, (payload) => definition.run(payload, context));
    } catch (err) {
      context.log.warn({ err }, 'job run failed');
      throw err;
    }
    context.log.info('job completed');
  };

  const runFailure = async (definition: JobDefinition<Record<string, unknown>>, job: JobWithMetadata<unknown>) => {
    const jobId = job.sourceId ?? job.id;
    const attempt = job.sourceRetryCount ?? 0;
    const error = failureFrom(job.sourceOutput);
    const { signal: _signal, ...context } = contextFor(definition.kind, jobId, attempt, AbortSignal.abort());
    context.log.error({ err: error }, 'job failed for good');
    await definition.onFailure?.((job.data ?? {}) as Record<string, unknown>, error, context);
  };

  /** Fails the jobs left active by a process that died, so that they retry (or fail for good) now. */
  const releaseActive = async () => {
    const names = [...byKind.values()].flatMap((d) => (d.onFailure ? [d.kind, deadLetterQueue(d.kind)] : [d.kind]));
    const { rows } = await boss.getDb().executeSql(`select id, name from ${JOBS_SCHEMA}.job where state = 'active' and name = any($1::text[])`, [names]);
    const byName = new Map<string, string[]>();
    for (const row of rows as { id: string; name: string }[]) byName.set(row.name, [...(byName.get(row.name) ?? []), row.id]);
    for (const [name, ids] of byName) {
      log.warn({ queue: name, jobs: ids.length }, 'releasing jobs left active by a process that died');
      await boss.fail(name, ids, { message: 'The process running the job died.' });
    }
  };

  const statsOf = async (): Promise<QueueStats[]> => {
    const kinds = [...byKind.keys()];
    if (kinds.length === 0) return [];
    const queues = new Map((await boss.getQueues(kinds)).map((queue) => [queue.name, queue]));
    return kinds.map((kind) => {
      const queue = queues.get(kind);
      return { kind, queued: queue?.queuedCount ?? 0, active: queue?.activeCount ?? 0, failed: queue?.failedCount ?? 0 };
    });
  };

  /** Seconds since the oldest ready, not started job of each kind was created (for the queue-age gauge). */
  const oldestWaiting = async () => {
    const { rows } = await boss
      .getDb()
      .executeSql(
        `select name, extract(epoch from now() - min(created_on))::float8 as age from ${JOBS_SCHEMA}.job where state in ('created', 'retry') and start_after <= now() and name = any($1::text[]) group by name`,
        [[...byKind.keys()]],
      );
    return new Map((rows as { name: string; age: number }[]).map((row) => [row.name, Number(row.age)]));
  };
  let stopGauges = () => {};

  return {
    workers,

    async start() {
      await boss.start();
      started = true;
      stopGauges = collectQueueGauges({ stats: statsOf, oldestWaiting }, [...byKind.keys()]);
      for (const definition of byKind.values()) {
        const queueOptions = {
          expireInSeconds: definition.deadlineSeconds,
          retryLimit: definition.retryLimit ?? DEFAULT_RETRY_LIMIT,
          retryDelay: definition.retryDelaySeconds ?? DEFAULT_RETRY_DELAY_SECONDS,
          retryBackoff: true,
          // Without a heartbeat, a job active when its process was killed stays active until its
          // deadline passes (5 to 15 minutes here) before it is retried.
          heartbeatSeconds: options.heartbeatSeconds ?? DEFAULT_HEARTBEAT_SECONDS,
          ...(definition.onFailure ? { deadLetter: deadLetterQueue(definition.kind) } : {}),
        };
        if (definition.onFailure) {
          // The dead letter's own job is onFailure: a few quick retries if it throws.
          const dead = {
            expireInSeconds: 300,
            retryLimit: 5,
            retryDelay: 5,
            retryBackoff: true,
            heartbeatSeconds: options.heartbeatSeconds ?? DEFAULT_HEARTBEAT_SECONDS,
          };
          await boss.createQueue(deadLetterQueue(definition.kind), dead);
          await boss.updateQueue(deadLetterQueue(definition.kind), dead);
        }
        // `exclusive`: at most one queued-or-active job per singletonKey (see enqueue).
        await boss.createQueue(definition.kind, { policy: 'exclusive', ...queueOptions });
        // createQueue leaves an existing queue as it was: bring its options up to the code's.
        await boss.updateQueue(definition.kind, { ...queueOptions, deadLetter: queueOptions.deadLetter ?? null });
      }
      if (options.releaseActiveOnStart) await releaseActive();
      if (!workers) return;
      const workOptions = { pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2, localConcurrency: options.concurrency ?? 2 };
      for (const definition of byKind.values()) {
        await boss.work<Record<string, unknown>>(definition.kind, workOptions, async ([job]) => {
          if (job) await runJob(definition, job, job.signal);
        });
        if (definition.onFailure) {
          await boss.work<unknown>(deadLetterQueue(definition.kind), { ...workOptions, includeMetadata: true }, async ([job]) => {
            if (job) await runFailure(definition, job as JobWithMetadata<unknown>);
          });
        }
        if (definition.schedule) await boss.schedule(definition.kind, definition.schedule, {}, { tz: 'UTC' });
        else await boss.unschedule(definition.kind);
      }
      const interval = options.statsLogIntervalSeconds ?? 60;
      if (interval > 0) {
        statsTimer = setInterval(() => {
          statsOf().then(
            (stats) => {
              const busy = stats.filter((s) => s.queued + s.active + s.failed > 0);
              if (busy.length > 0) log.info({ queues: busy }, 'job queues');
            },
            (err: unknown) => log.warn({ err }, 'could not read job queue stats'),
          );
        }, interval * 1000);
        statsTimer.unref();
      }
      log.info({ kinds: [...byKind.keys()], concurrency: workOptions.localConcurrency }, 'job workers started');
    },

    async stop({ timeoutMs = 30_000 } = {}) {
      clearInterval(statsTimer);
      stopGauges();
      if (!started) return;
      started = false;
      // close: true ends pg-boss's own pool (PostgreSQL); the PGlite instance stays the caller's.
      await boss.stop({ graceful: true, timeout: timeoutMs, close: true });
    },

    async supervise() {
      await boss.supervise();
    },

    async enqueue(tx, kind, payload, enqueueOptions: EnqueueOptions = {}) {
      if (!byKind.has(kind)) throw new Error(`No job definition for kind ${kind}.`);
      if (!started) throw new Error('The job queue is not started.');
      const jobId = await boss.send(kind, withTraceContext(payload), {
        db: transactionDb(tx),
        // An exclusive queue allows one queued-or-active job per key, and a missing key counts as
        // one key: a job without its own key gets a unique one, so only keyed jobs are de-duplicated.
        singletonKey: enqueueOptions.singletonKey ?? `job-${randomUUID()}`,
        ...(enqueueOptions.startAfter ? { startAfter: enqueueOptions.startAfter } : {}),
      });
      countEnqueued(kind, jobId);
      return jobId;
    },

    stats: statsOf,

    async drain({ ignoreStartAfter = false, maxJobs = 10_000 } = {}) {
      let completed = 0;
      let failed = 0;
      for (let progressed = true; progressed && completed + failed < maxJobs; ) {
        progressed = false;
        for (const definition of byKind.values()) {
          const names = definition.onFailure ? [definition.kind, deadLetterQueue(definition.kind)] : [definition.kind];
          for (const name of names) {
            if (completed + failed >= maxJobs) break;
            const [job] = await boss.fetch<unknown>(name, { includeMetadata: true, ignoreStartAfter });
            if (!job) continue;
            progressed = true;
            try {
              if (name === definition.kind) await runJob(definition, job, AbortSignal.timeout(definition.deadlineSeconds * 1000));
              else await runFailure(definition, job);
              await boss.complete(name, job.id);
              completed++;
            } catch (err) {
              await boss.fail(name, job.id, errorOutput(err));
              failed++;
            }
          }
        }
      }
      return { completed, failed };
    },
  };
}
