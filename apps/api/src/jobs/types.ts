import type { FastifyBaseLogger } from 'fastify';
import type { Executor, Transaction } from '../db/client.js';

/** What a running job gets besides its payload. */
export interface JobContext {
  jobId: string;
  /** 0 on the first run, then 1, 2… on retries. */
  attempt: number;
  /** Aborted when the job's deadline passes or the worker shuts down; long work must watch it. */
  signal: AbortSignal;
  log: FastifyBaseLogger;
}

/**
 * One kind of background work, declared by the resource module that owns it. Jobs are idempotent by
 * the resource id in their payload: the resource row, not the queue, is the source of truth.
 */
export interface JobDefinition<Payload extends Record<string, unknown> = Record<string, unknown>> {
  /** Queue name, e.g. `brand-voice.learn`; unique across modules. */
  kind: string;
  run(payload: Payload, context: JobContext): Promise<void>;
  /** After this many seconds a run is abandoned and counts as a failure. */
  deadlineSeconds: number;
  /** Retries after a failed or abandoned run (default 2), with exponential backoff from `retryDelaySeconds`. */
  retryLimit?: number;
  retryDelaySeconds?: number;
  /**
   * Called once when the job has failed for good (retries used up or deadline passed): mark the
   * resource `failed` and refund its charge here. Receives the last error.
   */
  onFailure?(payload: Payload, error: unknown, context: Omit<JobContext, 'signal'>): Promise<void>;
  /** A cron expression (UTC) for scheduled jobs: cleanups and expiries. Such jobs take an empty payload. */
  schedule?: string;
}

export interface EnqueueOptions {
  /** Run no earlier than this (e.g. a meeting's `join_at`). */
  startAfter?: Date;
  /** At most one queued-or-running job per key and kind (e.g. the resource id). */
  singletonKey?: string;
}

export interface QueueStats {
  kind: string;
  queued: number;
  active: number;
  failed: number;
}

/** The durable queue (pg-boss on the application's own database, PGlite or PostgreSQL). */
export interface JobQueue {
  /**
   * Enqueues a job inside `tx`, the transaction that writes the row and the charge that need it:
   * a rollback leaves no job. Resolves with the job id, or null when `singletonKey` already has one.
   */
  enqueue<Payload extends Record<string, unknown>>(
    tx: Transaction | Executor,
    kind: string,
    payload: Payload,
    options?: EnqueueOptions,
  ): Promise<string | null>;
  stats(): Promise<QueueStats[]>;
}
