import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Every Prometheus metric of the process (API server and `pnpm worker` alike: the same names), in one
 * registry. Labels are bounded sets only: operationIds, model names from the configuration, feature
 * names (operationIds and job kinds), outcomes and reasons from closed lists — never ids or raw paths.
 */
export const metricsRegistry = new Registry();
const registers = [metricsRegistry];

// Runtime: prom-client's default set names three gauges `_total`, which `promtool check metrics`
// rejects; these few are what the dashboard and alerts read, in the standard names.
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();
new Gauge({
  name: 'nodejs_eventloop_lag_p99_seconds',
  help: 'p99 event-loop delay since the previous scrape.',
  registers,
  collect() {
    this.set(loopDelay.percentile(99) / 1e9);
    loopDelay.reset();
  },
});
new Gauge({
  name: 'nodejs_eventloop_lag_max_seconds',
  help: 'Longest event-loop delay since the previous scrape (read with the p99).',
  registers,
  collect() {
    this.set(loopDelay.max / 1e9);
  },
});
new Gauge({
  name: 'nodejs_heap_size_used_bytes',
  help: 'V8 heap in use.',
  registers,
  collect() {
    this.set(process.memoryUsage().heapUsed);
  },
});
new Gauge({
  name: 'process_resident_memory_bytes',
  help: 'Resident set size.',
  registers,
  collect() {
    this.set(process.memoryUsage.rss());
  },
});
new Counter({
  name: 'process_cpu_seconds_total',
  help: 'User and system CPU time of the process.',
  registers,
  collect() {
    const { user, system } = process.cpuUsage();
    this.reset();
    this.inc((user + system) / 1e6);
  },
});
new Gauge({
  name: 'process_start_time_seconds',
  help: 'Start time of the process since the Unix epoch.',
  registers,
}).set(Math.round(Date.now() / 1000 - process.uptime()));
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const DB_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5];
const JOB_BUCKETS = [0.05, 0.25, 1, 5, 15, 60, 300, 900];

export const httpRequests = new Counter({
  name: 'persona_http_requests_total',
  help: 'HTTP requests answered, by contract operationId (or "none" outside the contract), method and status class.',
  labelNames: ['operation', 'method', 'status_class'] as const,
  registers,
});
export const httpRequestDuration = new Histogram({
  name: 'persona_http_request_duration_seconds',
  help: 'Time from the request arriving to the response finishing (a stream: until its last event).',
  labelNames: ['operation', 'method', 'status_class'] as const,
  buckets: LATENCY_BUCKETS,
  registers,
});

export const modelCalls = new Counter({
  name: 'persona_model_calls_total',
  help: 'Model engine calls by model, feature (operationId or job kind) and outcome (ok or the engine error code).',
  labelNames: ['model', 'feature', 'outcome'] as const,
  registers,
});
export const modelCallDuration = new Histogram({
  name: 'persona_model_call_duration_seconds',
  help: 'Duration of a model engine call, a stream until its last event.',
  labelNames: ['model', 'feature', 'outcome'] as const,
  buckets: LATENCY_BUCKETS,
  registers,
});
export const modelTimeToFirstToken = new Histogram({
  name: 'persona_model_time_to_first_token_seconds',
  help: 'Time from a streamed model call starting to its first output event.',
  labelNames: ['model', 'feature'] as const,
  buckets: LATENCY_BUCKETS,
  registers,
});
export const modelTokens = new Counter({
  name: 'persona_model_tokens_total',
  help: 'Tokens of model calls by model, feature and type (input or output).',
  labelNames: ['model', 'feature', 'type'] as const,
  registers,
});

export const credits = new Counter({
  name: 'persona_credits_total',
  help: 'Credits charged and refunded (kind), by feature (operationId or job kind).',
  labelNames: ['feature', 'kind'] as const,
  registers,
});
export const creditHoldsOpen = new Gauge({
  name: 'persona_credit_holds_open',
  help: 'Credit holds of running token-priced calls not yet charged or released (whole database).',
  registers,
});
export const creditsHeld = new Gauge({
  name: 'persona_credits_held',
  help: 'Credits those open holds keep from being spent twice (whole database).',
  registers,
});

export const rateLimitRefusals = new Counter({
  name: 'persona_rate_limit_refusals_total',
  help: 'Requests refused with 429 rate_limit_exceeded.',
  registers,
});

// Dependency faults (DECISIONS.md, Dependency faults): what the process survived instead of exiting, and the
// time the rate limiter spent on its per-process fallback while Redis was unreachable.
export const uncaughtErrors = new Counter({
  name: 'persona_uncaught_errors_total',
  help: 'Exceptions and rejections nothing caught, logged while the process kept running, by origin.',
  labelNames: ['origin'] as const,
  registers,
});

export const rateLimitFallbacks = new Counter({
  name: 'persona_rate_limit_fallbacks_total',
  help: 'Rate-limit checks answered by the per-process window because Redis did not answer in time.',
  registers,
});

export const jobsEnqueued = new Counter({ name: 'persona_jobs_enqueued_total', help: 'Jobs enqueued, by kind.', labelNames: ['kind'] as const, registers });
export const jobsStarted = new Counter({ name: 'persona_jobs_started_total', help: 'Job runs started, by kind.', labelNames: ['kind'] as const, registers });
export const jobsCompleted = new Counter({
  name: 'persona_jobs_completed_total',
  help: 'Job runs completed, by kind.',
  labelNames: ['kind'] as const,
  registers,
});
export const jobsFailed = new Counter({
  name: 'persona_jobs_failed_total',
  help: 'Job runs that threw (retried if attempts are left), by kind.',
  labelNames: ['kind'] as const,
  registers,
});
export const jobsRetried = new Counter({
  name: 'persona_jobs_retried_total',
  help: 'Job runs that were a retry (attempt > 0), by kind.',
  labelNames: ['kind'] as const,
  registers,
});
export const jobDuration = new Histogram({
  name: 'persona_job_duration_seconds',
  help: 'Duration of a job run, by kind and outcome (completed, failed).',
  labelNames: ['kind', 'outcome'] as const,
  buckets: JOB_BUCKETS,
  registers,
});
export const jobQueueDepth = new Gauge({
  name: 'persona_job_queue_depth',
  help: 'Jobs per kind and state (queued, active, failed), as pg-boss last counted them (whole database).',
  labelNames: ['kind', 'state'] as const,
  registers,
});
export const jobOldestWaiting = new Gauge({
  name: 'persona_job_oldest_waiting_seconds',
  help: 'Age of the oldest job of a kind that is ready to run and not started (0 when none waits).',
  labelNames: ['kind'] as const,
  registers,
});

export const storageBytes = new Counter({
  name: 'persona_storage_bytes_total',
  help: 'Bytes written to (in) and read from (out) object storage, by driver.',
  labelNames: ['driver', 'direction'] as const,
  registers,
});

export const guardedFetchRefusals = new Counter({
  name: 'persona_guarded_fetch_refusals_total',
  help: 'Fetches of caller-given URLs refused or failed, by reason (blocked_address, too_large, timeout, …).',
  labelNames: ['reason'] as const,
  registers,
});

export const dbStatementDuration = new Histogram({
  name: 'persona_db_statement_duration_seconds',
  help: 'Duration of an application database statement (pool wait included), by driver and SQL verb.',
  labelNames: ['driver', 'operation'] as const,
  buckets: DB_BUCKETS,
  registers,
});
export const dbStatementsInFlight = new Gauge({
  name: 'persona_db_statements_in_flight',
  help: 'Application database statements sent and not yet answered (a pool that runs dry shows here).',
  labelNames: ['driver'] as const,
  registers,
});
export const dbPoolSize = new Gauge({
  name: 'persona_db_pool_max_connections',
  help: 'Connections the application pool may open (PGlite: 1).',
  labelNames: ['driver'] as const,
  registers,
});

/** `2xx`, `4xx`…: the status as a bounded label. */
export const statusClass = (status: number) => `${Math.floor(status / 100)}xx`;

type ScrapeCollector = () => Promise<void>;
const collectors = new Set<ScrapeCollector>();

/**
 * Adds work run before each scrape (gauges read from the database: queue depth, open holds). Returns
 * the removal. A collector that fails leaves its gauges as they were; the scrape still answers.
 */
export function onScrape(collect: ScrapeCollector): () => void {
  collectors.add(collect);
  return () => collectors.delete(collect);
}

/** The text exposition of every metric, after the scrape collectors ran. */
export async function scrapeMetrics(): Promise<string> {
  await Promise.all([...collectors].map((collect) => collect().catch(() => undefined)));
  return metricsRegistry.metrics();
}
