import { sql } from 'drizzle-orm';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import { createJobQueue, JobFailedError, type JobRuntime } from '../../src/jobs/queue.js';
import type { JobContext, JobDefinition } from '../../src/jobs/types.js';
import { openTestDatabase } from '../support/database.js';
import { openTestJobQueue } from '../support/jobs.js';

const until = async (condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

describe('job queue on the application database', () => {
  let database: DatabaseHandle;
  const runs: { kind: string; payload: Record<string, unknown>; attempt: number }[] = [];
  const failures: { payload: Record<string, unknown>; error: unknown; context: Omit<JobContext, 'signal'> }[] = [];
  const record: JobDefinition['run'] = async () => {};

  const succeeds: JobDefinition<{ id: string }> = {
    kind: 'test.succeeds',
    deadlineSeconds: 30,
    async run(payload, context) {
      runs.push({ kind: 'test.succeeds', payload, attempt: context.attempt });
      // Jobs write through the application database while pg-boss holds the job.
      await database.db.execute(sql`select 1`);
    },
  };
  const alwaysFails: JobDefinition<{ id: string }> = {
    kind: 'test.fails',
    deadlineSeconds: 30,
    retryLimit: 2,
    retryDelaySeconds: 1,
    async run(payload, context) {
      runs.push({ kind: 'test.fails', payload, attempt: context.attempt });
      throw new Error(`attempt ${context.attempt} broke`);
    },
    async onFailure(payload, error, context) {
      failures.push({ payload, error, context });
    },
  };
  let queue: JobRuntime;

  beforeAll(async () => {
    database = await openTestDatabase();
    await database.db.execute(sql`create table job_test_rows (id text primary key)`);
    queue = await openTestJobQueue(database, [succeeds, alwaysFails, { kind: 'test.noop', deadlineSeconds: 5, run: record }]);
  });
  afterAll(async () => {
    await queue?.stop();
    await database?.close();
  });

  it('enqueues in the caller’s transaction: a rollback leaves no job, a commit leaves one', async () => {
    runs.length = 0;
    await expect(
      database.db.transaction(async (tx) => {
        await tx.execute(sql`insert into job_test_rows (id) values ('rolled-back')`);
        expect(await queue.enqueue(tx, 'test.succeeds', { id: 'rolled-back' })).toEqual(expect.any(String));
        throw new Error('the handler failed after enqueueing');
      }),
    ).rejects.toThrow('the handler failed');
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`insert into job_test_rows (id) values ('committed')`);
      await queue.enqueue(tx, 'test.succeeds', { id: 'committed' });
    });
    expect(await queue.drain()).toEqual({ completed: 1, failed: 0 });
    expect(runs).toEqual([{ kind: 'test.succeeds', payload: { id: 'committed' }, attempt: 0 }]);
    expect(await queue.drain()).toEqual({ completed: 0, failed: 0 });
  });

  it('keeps one queued job per singletonKey, and several without a key', async () => {
    runs.length = 0;
    const first = await queue.enqueue(database.db, 'test.succeeds', { id: 'a' }, { singletonKey: 'a' });
    const second = await queue.enqueue(database.db, 'test.succeeds', { id: 'a' }, { singletonKey: 'a' });
    expect(first).toEqual(expect.any(String));
    expect(second).toBeNull();
    await queue.enqueue(database.db, 'test.succeeds', { id: 'x' });
    await queue.enqueue(database.db, 'test.succeeds', { id: 'y' });
    expect(await queue.drain()).toEqual({ completed: 3, failed: 0 });
    // Once the keyed job is done, the key is free again.
    expect(await queue.enqueue(database.db, 'test.succeeds', { id: 'a' }, { singletonKey: 'a' })).toEqual(expect.any(String));
    await queue.drain();
    expect(runs.map((run) => run.payload.id).sort()).toEqual(['a', 'a', 'x', 'y']);
  });

  it('holds a delayed job until its time', async () => {
    runs.length = 0;
    await queue.enqueue(database.db, 'test.succeeds', { id: 'later' }, { startAfter: new Date(Date.now() + 3_600_000) });
    expect(await queue.drain()).toEqual({ completed: 0, failed: 0 });
    expect(await queue.drain({ ignoreStartAfter: true })).toEqual({ completed: 1, failed: 0 });
    expect(runs.map((run) => run.payload.id)).toEqual(['later']);
  });

  it('retries with backoff, then calls onFailure exactly once with the last error', async () => {
    runs.length = 0;
    failures.length = 0;
    const jobId = await queue.enqueue(database.db, 'test.fails', { id: 'doomed' });
    // The first failure schedules a retry after the backoff: not ready yet.
    expect(await queue.drain()).toEqual({ completed: 0, failed: 1 });
    expect(runs.map((run) => run.attempt)).toEqual([0]);
    expect(failures).toEqual([]);
    // Retries ready at once, then the dead letter that runs onFailure.
    expect(await queue.drain({ ignoreStartAfter: true })).toEqual({ completed: 1, failed: 2 });
    expect(runs.map((run) => run.attempt)).toEqual([0, 1, 2]);
    expect(failures).toHaveLength(1);
    expect(failures[0]?.payload).toEqual({ id: 'doomed' });
    expect(failures[0]?.error).toBeInstanceOf(JobFailedError);
    expect((failures[0]!.error as Error).message).toBe('attempt 2 broke');
    expect(failures[0]?.context).toMatchObject({ jobId, attempt: 2 });
    expect(await queue.drain({ ignoreStartAfter: true })).toEqual({ completed: 0, failed: 0 });
    expect(failures).toHaveLength(1);
  });

  it('counts queued and failed jobs per kind', async () => {
    await queue.enqueue(database.db, 'test.noop', {});
    await queue.enqueue(database.db, 'test.noop', {});
    await queue.supervise();
    const stats = await queue.stats();
    expect(stats.find((s) => s.kind === 'test.noop')).toEqual({ kind: 'test.noop', queued: 2, active: 0, failed: 0 });
    expect(stats.find((s) => s.kind === 'test.fails')?.failed).toBe(1);
    await queue.drain();
  });

  it('refuses a kind nobody defined', async () => {
    await expect(queue.enqueue(database.db, 'test.unknown', {})).rejects.toThrow('No job definition for kind test.unknown');
  });
});

describe('job workers', () => {
  let database: DatabaseHandle;
  const logger = pino({ level: 'silent' });
  const fast = { pollingIntervalSeconds: 0.5, statsLogIntervalSeconds: 0, poolSize: 3 } as const;
  const queues: JobRuntime[] = [];
  const open = async (definitions: JobDefinition<any>[], extra: object = {}) => {
    const queue = createJobQueue({ database, logger, definitions, workers: true, ...fast, ...extra });
    queues.push(queue);
    await queue.start();
    return queue;
  };

  beforeAll(async () => {
    database = await openTestDatabase();
    await database.db.execute(sql`create table job_effects (id text not null, at timestamptz not null default now())`);
  });
  afterAll(async () => {
    for (const queue of queues) await queue.stop({ timeoutMs: 1_000 });
    await database?.close();
  });

  it('runs each job once with two queue instances working one database', async () => {
    const effect: JobDefinition<{ id: string }> = {
      kind: 'test.effect',
      deadlineSeconds: 30,
      async run(payload) {
        await database.db.execute(sql`insert into job_effects (id) values (${payload.id})`);
      },
    };
    const [a, b] = [await open([effect], { concurrency: 3 }), await open([effect], { concurrency: 3 })];
    const total = 60;
    await database.db.transaction(async (tx) => {
      for (let i = 0; i < total; i++) await (i % 2 ? a : b).enqueue(tx, 'test.effect', { id: `e${i}` });
    });
    const count = async () => Number((await selectRows<{ n: string }>(database, sql`select count(*) as n from job_effects`))[0]?.n);
    await until(async () => (await count()) >= total, 'all jobs to run');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const rows = await selectRows<{ id: string; runs: string }>(database, sql`select id, count(*) as runs from job_effects group by id`);
    expect(rows).toHaveLength(total);
    expect(rows.every((row) => Number(row.runs) === 1)).toBe(true);
    await a.stop();
    await b.stop();
  });

  it('abandons a run past its deadline: the signal aborts and onFailure runs once', async () => {
    let aborted = false;
    const failed: unknown[] = [];
    const slow: JobDefinition = {
      kind: 'test.slow',
      deadlineSeconds: 1,
      retryLimit: 0,
      async run(_payload, { signal }) {
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        aborted = true;
      },
      async onFailure(_payload, error) {
        failed.push(error);
      },
    };
    const queue = await open([slow], { tuning: { superviseIntervalSeconds: 1, monitorIntervalSeconds: 1 } });
    await queue.enqueue(database.db, 'test.slow', {});
    await until(() => failed.length > 0, 'onFailure after the deadline');
    expect(aborted).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(failed).toHaveLength(1);
    await queue.stop();
  });

  it('runs a scheduled definition from its cron expression', async () => {
    let ticks = 0;
    const tick: JobDefinition = {
      kind: 'test.tick',
      deadlineSeconds: 5,
      // Every second (a seconds field), so the test does not wait a minute.
      schedule: '* * * * * *',
      async run(payload) {
        expect(payload).toEqual({});
        ticks++;
      },
    };
    const queue = await open([tick], { tuning: { cronMonitorIntervalSeconds: 1, cronWorkerIntervalSeconds: 1 } });
    await until(() => ticks > 0, 'a scheduled run', 30_000);
    await queue.stop();
  });

  it('lets a running job finish on a graceful stop', async () => {
    let finished = false;
    let started = false;
    const steady: JobDefinition = {
      kind: 'test.steady',
      deadlineSeconds: 30,
      async run() {
        started = true;
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        finished = true;
      },
    };
    const queue = await open([steady]);
    await queue.enqueue(database.db, 'test.steady', {});
    await until(() => started, 'the job to start');
    await queue.stop({ timeoutMs: 10_000 });
    expect(finished).toBe(true);
    const [job] = await selectRows<{ state: string }>(database, sql`select state from pgboss.job where name = 'test.steady'`);
    expect(job?.state).toBe('completed');
  });
});

async function selectRows<T>(database: DatabaseHandle, query: ReturnType<typeof sql>): Promise<T[]> {
  const result = (await database.db.execute(query)) as unknown as { rows?: T[] } | T[];
  return Array.isArray(result) ? result : (result.rows ?? []);
}
