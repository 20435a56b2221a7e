import { createEngine, createOfflineEngine } from '@persona-api/engine';
import type http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { type DestinationStream, type Logger, type LoggerOptions, pino } from 'pino';
import { bootstrapIfEmpty } from './admin/accounts.js';
import { addNewsFeeds, loadBundledNewsIfEmpty } from './resources/news/feeds.js';
import { buildApp } from './app.js';
import { serveConsole } from './resources/console/static.js';
import type { Config } from './config.js';
import type { DatabaseHandle } from './db/client.js';
import { openConfiguredDatabase } from './db/open.js';
import { MemoryRateLimiter, type RateLimiter } from './http/rate-limit.js';
import type { JobRuntime } from './jobs/queue.js';
import { startJobQueue } from './jobs/start.js';
import { createGuardedFetcher } from './lib/guarded-fetch.js';
import { searxngProvider } from './ai/tools/web-search.js';
import { collectCreditHolds } from './observability/billing.js';
import { observedEngine } from './observability/engine.js';
import { REDACT_PATHS, REDACTED, redactLogMessage, redactLogObject } from './observability/redact.js';
import { startMetricsServer, type MetricsServer } from './observability/server.js';
import { stopTracing, traceLogFields } from './observability/tracing.js';
import { observedFetcher } from './observability/fetch.js';
import { observedStorage } from './observability/storage.js';
import { jobsNotConfigured, type Services } from './services.js';
import { loadFileSettings } from './resources/files/settings.js';
import { meetingSettingsFrom } from './resources/meetings/settings.js';
import { createStorage } from './storage/index.js';
import type { ObjectStorage } from './storage/types.js';

export interface RunningServer {
  app: FastifyInstance;
  /** GET /metrics on METRICS_PORT; absent when METRICS_PORT is unset. */
  metrics?: MetricsServer;
  url: string;
  database: DatabaseHandle;
  jobs: JobRuntime;
  storage: ObjectStorage;
  /** Stops accepting connections, lets in-flight requests and open streams finish, then closes everything. */
  shutdown(reason: string): Promise<void>;
}

export function createLogger(config: Pick<Config, 'LOG_LEVEL'>, destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
    level: config.LOG_LEVEL,
    base: { service: 'persona-api' },
    // Secret-named fields censored, secret-shaped strings masked (observability/redact.ts, tested).
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    formatters: { log: redactLogObject },
    hooks: { logMethod: redactLogMessage },
    // trace_id and span_id of the active span on every line written inside a traced request or job.
    mixin: traceLogFields,
  };
  return destination ? pino(options, destination) : pino(options);
}

/**
 * The services of a process (API server or `pnpm worker`) from its configuration. `jobs` is set by
 * startJobQueue, whose job definitions get this same object.
 */
export async function createServices(config: Config, database: DatabaseHandle, logger: Logger): Promise<Services> {
  // The signing secret is loaded (or created in the database) once, here, before anything needs closing.
  const files = await loadFileSettings(database.db, config);
  const fetcher = observedFetcher(
    createGuardedFetcher({ timeoutMs: config.SOURCE_FETCH_TIMEOUT_MS, allowPrivateAddresses: config.SOURCE_FETCH_ALLOW_PRIVATE }),
  );
  return {
    db: database.db,
    engine: observedEngine(createEngine(config.engine)),
    jobs: jobsNotConfigured,
    storage: observedStorage(await createStorage(config)),
    clock: { now: () => new Date() },
    logger,
    fetcher,
    files,
    webSearch: config.WEB_SEARCH_URL ? searxngProvider(config.WEB_SEARCH_URL, fetcher) : undefined,
    meetings: meetingSettingsFrom(config),
    responseRetentionDays: config.RESPONSE_RETENTION_DAYS,
    rateLimitMultiplier: config.RATE_LIMIT_MULTIPLIER,
  };
}

/** Everything `pnpm start` does: database, migrations, catalogs, first-start bootstrap, limiter, jobs, HTTP. */
export async function startServer(config: Config, logger: Logger = createLogger(config)): Promise<RunningServer> {
  const database = await openConfiguredDatabase(config, 'persona-api server');
  let rateLimiter: RateLimiter | undefined;
  let jobs: JobRuntime | undefined;
  let metrics: MetricsServer | undefined;
  let services: Services;
  try {
    services = await createServices(config, database, logger);
  } catch (err) {
    await database.close();
    throw err;
  }
  const { storage, engine } = services;
  try {
    logger.info({ driver: database.driver }, 'database ready: migrations applied, catalogs seeded');
    // Two instances starting together on an empty database must not both create the development account.
    const bootstrap = await database.exclusively(() => bootstrapIfEmpty(database.db, { apiKey: config.BOOTSTRAP_API_KEY }));
    if (bootstrap) {
      logger.info({ account_id: bootstrap.accountId, workspace_id: bootstrap.workspaceId }, 'empty database: created a development account');
      // Printed once, outside the JSON log, so a person can copy it; only its hash is stored.
      process.stdout.write(
        `\nDevelopment API key (shown once, only its hash is stored):\n\n    ${bootstrap.apiKey}\n\n` +
          `Try: curl -H "Authorization: Bearer ${bootstrap.apiKey}" http://localhost:${config.PORT}/api/v1/workspaces\n\n`,
      );
    }
    await addNewsFeeds(database.db, config.NEWS_FEEDS, new Date());
    // The bundled files are classified offline: a start never waits on, or fails with, a model server.
    const bundledStories = await database.exclusively(() => loadBundledNewsIfEmpty(database.db, createOfflineEngine(), new Date()));
    if (bundledStories > 0) logger.info({ stories: bundledStories }, 'empty news corpus: loaded the bundled feeds');
    rateLimiter = config.REDIS_URL
      ? new (await import('./http/rate-limit-redis.js')).RedisRateLimiter(config.REDIS_URL, {
          // Each fallback is counted in persona_rate_limit_fallbacks_total; this warning comes at most once a second.
          onFallback: (err) => logger.warn({ err, rate_limit_fallback: true }, 'Redis unreachable: rate limits are per process until it is back'),
        })
      : new MemoryRateLimiter();
    const limiter = rateLimiter;
    jobs = await startJobQueue(config, { database, services, workers: config.WORKERS === 'on' });
    const queue = jobs;
    logger.info(
      { workers: config.WORKERS, storage: storage.kind },
      config.WORKERS === 'on' ? 'job workers run in this process' : 'job workers off: run `pnpm worker`',
    );
    logger.info(
      { engine: engine.kind, upstream_model: engine.describe().upstream_model },
      engine.kind === 'offline' ? 'model engine: offline (a deterministic development engine, not a language model)' : 'model engine: openai-compatible',
    );
    const app = await buildApp({
      database,
      rateLimiter: limiter,
      logger,
      services,
      readinessChecks: [() => storage.ping(), ...(limiter.ping ? [limiter.ping.bind(limiter)] : [])],
    });
    await serveConsole(app);
    const connections = trackConnections(app.server);
    const stopHoldGauges = collectCreditHolds(database.db);
    metrics = await startConfiguredMetrics(config, logger);
    const metricsServer = metrics;
    const url = await app.listen({ port: config.PORT, host: config.HOST });
    logger.info({ url: `${url}/api/v1`, rate_limits: config.REDIS_URL ? 'redis' : 'memory' }, 'persona-api listening');

    let closing: Promise<void> | undefined;
    // What no request has compiled yet is compiled now, in the background (http/deferred-compiles.ts).
    const warmUpStarted = performance.now();
    app.deferredCompiles
      .warmUp(() => closing !== undefined)
      .then(
        (compiled) => logger.debug({ compiled, ms: Math.round(performance.now() - warmUpStarted) }, 'validators and serializers compiled'),
        (err: unknown) => logger.error({ err }, 'a validator or serializer of the contract does not compile'),
      );
    const shutdown = (reason: string) => {
      closing ??= (async () => {
        logger.info({ reason }, 'shutting down: finishing in-flight requests and open streams');
        app.markShuttingDown();
        // Requests that reached the socket just before the signal are parsed and served in this window.
        await new Promise((resolve) => setTimeout(resolve, Math.min(config.SHUTDOWN_DRAIN_MS, config.SHUTDOWN_TIMEOUT_MS)));
        // Node's close would destroy every connection without a request in progress, including one whose
        // request has arrived but is not parsed yet (the event loop was busy): that client sees a reset.
        // Only keep-alive connections that were answered and wait for nothing more are closed; a new one
        // gets its request served (with Connection: close) until the shutdown timeout.
        connections.closeOnlyAnswered(config.SHUTDOWN_DRAIN_MS * 4);
        await app.close();
        stopHoldGauges();
        await metricsServer?.close();
        // Running jobs get the grace period to finish; then they are released to run again.
        await queue.stop({ timeoutMs: config.SHUTDOWN_TIMEOUT_MS });
        await storage.close();
        await limiter.close();
        await database.close();
        await stopTracing();
        logger.info('shut down cleanly');
      })();
      return closing;
    };
    return { app, url, database, jobs: queue, storage, shutdown, ...(metricsServer ? { metrics: metricsServer } : {}) };
  } catch (err) {
    await metrics?.close();
    await jobs?.stop({ timeoutMs: 1_000 });
    await storage.close();
    await rateLimiter?.close();
    await database.close();
    throw err;
  }
}

/** The metrics endpoint when METRICS_PORT is set (API server and worker alike). */
export async function startConfiguredMetrics(config: Config, logger: Logger): Promise<MetricsServer | undefined> {
  if (config.METRICS_PORT === undefined) return undefined;
  const metrics = await startMetricsServer({ port: config.METRICS_PORT, host: config.METRICS_HOST, token: config.METRICS_TOKEN });
  logger.info({ url: metrics.url, token: config.METRICS_TOKEN ? 'required' : 'none' }, 'metrics endpoint listening');
  return metrics;
}

/**
 * The server's connections and whether each has had a request answered, so that shutdown closes the
 * answered idle ones and leaves those whose first request may still be arriving.
 */
function trackConnections(server: http.Server) {
  const answered = new WeakSet<Socket>();
  const busy = new WeakSet<Socket>();
  const open = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => {
    const socket = request.socket;
    busy.add(socket);
    response.once('close', () => {
      busy.delete(socket);
      answered.add(socket);
    });
  });
  const closeAnsweredIdle = () => {
    for (const socket of open) if (answered.has(socket) && !busy.has(socket)) socket.destroy();
  };
  return {
    /** From now on, Node's idle sweep spares unanswered connections; after `graceMs` those still silent are closed too. */
    closeOnlyAnswered(graceMs: number) {
      server.closeIdleConnections = closeAnsweredIdle;
      setTimeout(() => {
        for (const socket of open) if (!busy.has(socket)) socket.destroy();
      }, graceMs).unref();
    },
  };
}
