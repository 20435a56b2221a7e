import { jobDuration, jobOldestWaiting, jobQueueDepth, jobsCompleted, jobsEnqueued, jobsFailed, jobsRetried, jobsStarted, onScrape } from './metrics.js';
import { currentTraceCarrier, endSpan, runAs, startJobSpan } from './tracing.js';

/** The payload field that carries the enqueuing request's W3C trace context (`traceparent`). */
export const TRACE_FIELD = '_trace';

/** The payload as stored: with the trace context of the request (or job) enqueuing it, when tracing. */
export function withTraceContext<Payload extends Record<string, unknown>>(payload: Payload): Payload {
  const carrier = currentTraceCarrier();
  return carrier ? { ...payload, [TRACE_FIELD]: carrier } : payload;
}

export function countEnqueued(kind: string, jobId: string | null): void {
  if (jobId) jobsEnqueued.inc({ kind });
}

/**
 * Runs one job attempt with its metrics (started, retried, completed, failed, duration) and its span,
 * linked to the request that enqueued it. `run` gets the payload without the trace field.
 */
export async function observeJobRun<T>(
  kind: string,
  job: { id: string; retryCount: number; data: unknown },
  run: (payload: Record<string, unknown>) => Promise<T>,
): Promise<T> {
  const { [TRACE_FIELD]: carrier, ...payload } = (job.data ?? {}) as Record<string, unknown>;
  jobsStarted.inc({ kind });
  if (job.retryCount > 0) jobsRetried.inc({ kind });
  const span = startJobSpan(kind, carrier, {
    'messaging.system': 'pg-boss',
    'messaging.destination.name': kind,
    'messaging.message.id': job.id,
    'persona.job.attempt': job.retryCount,
  });
  const startedAt = performance.now();
  try {
    const result = await runAs(kind, span, () => run(payload));
    jobsCompleted.inc({ kind });
    jobDuration.observe({ kind, outcome: 'completed' }, (performance.now() - startedAt) / 1000);
    endSpan(span);
    return result;
  } catch (error) {
    jobsFailed.inc({ kind });
    jobDuration.observe({ kind, outcome: 'failed' }, (performance.now() - startedAt) / 1000);
    endSpan(span, error);
    throw error;
  }
}

export interface QueueGauges {
  stats(): Promise<{ kind: string; queued: number; active: number; failed: number }[]>;
  /** Seconds since the oldest job of each kind became ready to run (created or retry, start time passed). */
  oldestWaiting(): Promise<Map<string, number>>;
}

/** Queue depth and age of the oldest waiting job per kind, read at each scrape. Returns the removal. */
export function collectQueueGauges(queue: QueueGauges, kinds: readonly string[]): () => void {
  return onScrape(async () => {
    const [stats, oldest] = await Promise.all([queue.stats(), queue.oldestWaiting()]);
    for (const { kind, queued, active, failed } of stats) {
      jobQueueDepth.set({ kind, state: 'queued' }, queued);
      jobQueueDepth.set({ kind, state: 'active' }, active);
      jobQueueDepth.set({ kind, state: 'failed' }, failed);
    }
    for (const kind of kinds) jobOldestWaiting.set({ kind }, oldest.get(kind) ?? 0);
  });
}
