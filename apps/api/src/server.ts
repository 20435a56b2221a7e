import { createEngine } from '@persona-api/engine';
import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import { bootstrapIfEmpty } from './admin/accounts.js';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import type { DatabaseHandle } from './db/client.js';
import { openConfiguredDatabase } from './db/open.js';
import { MemoryRateLimiter, RedisRateLimiter, type RateLimiter } from './http/rate-limit.js';
import { createGuardedFetcher } from './lib/guarded-fetch.js';

export interface RunningServer {
  app: FastifyInstance;
  url: string;
  database: DatabaseHandle;
  /** Stops accepting connections, lets in-flight requests and open streams finish, then closes everything. */
  shutdown(reason: string): Promise<void>;
}

export function createLogger(config: Pick<Config, 'LOG_LEVEL'>): Logger {
  return pino({
    level: config.LOG_LEVEL,
    base: { service: 'persona-api' },
    // Fastify's request serializer logs no headers; this guards any custom log of them.
    redact: ['req.headers.authorization', 'headers.authorization'],
  });
}

/** Everything `pnpm start` does: database, migrations, catalogs, first-start bootstrap, limiter, HTTP. */
export async function startServer(config: Config, logger: Logger = createLogger(config)): Promise<RunningServer> {
  const database = await openConfiguredDatabase(config, 'persona-api server');
  let rateLimiter: RateLimiter | undefined;
  try {
    logger.info({ driver: database.driver }, 'database ready: migrations applied, catalogs seeded');
    const bootstrap = await bootstrapIfEmpty(database.db, { apiKey: config.BOOTSTRAP_API_KEY });
    if (bootstrap) {
      logger.info({ account_id: bootstrap.accountId, workspace_id: bootstrap.workspaceId }, 'empty database: created a development account');
      // Printed once, outside the JSON log, so a person can copy it; only its hash is stored.
      process.stdout.write(
        `\nDevelopment API key (shown once, only its hash is stored):\n\n    ${bootstrap.apiKey}\n\n` +
          `Try: curl -H "Authorization: Bearer ${bootstrap.apiKey}" http://localhost:${config.PORT}/api/v1/workspaces\n\n`,
      );
    }
    rateLimiter = config.REDIS_URL ? new RedisRateLimiter(config.REDIS_URL) : new MemoryRateLimiter();
    const limiter = rateLimiter;
    const engine = createEngine(config.engine);
    logger.info({ engine: engine.kind, upstream_model: engine.describe().upstream_model }, engine.kind === 'offline' ? 'model engine: offline (a deterministic development engine, not a language model)' : 'model engine: openai-compatible');
    const app = await buildApp({
      database,
      rateLimiter: limiter,
      logger,
      // Jobs and storage: the not-configured defaults until their implementations land.
      services: { engine, fetcher: createGuardedFetcher({ timeoutMs: config.SOURCE_FETCH_TIMEOUT_MS, allowPrivateAddresses: config.SOURCE_FETCH_ALLOW_PRIVATE }) },
      rateLimitMultiplier: config.RATE_LIMIT_MULTIPLIER,
      readinessChecks: limiter instanceof RedisRateLimiter ? [() => limiter.ping()] : [],
    });
    const url = await app.listen({ port: config.PORT, host: config.HOST });
    logger.info({ url: `${url}/api/v1`, rate_limits: config.REDIS_URL ? 'redis' : 'memory' }, 'persona-api listening');

    let closing: Promise<void> | undefined;
    const shutdown = (reason: string) => {
      closing ??= (async () => {
        logger.info({ reason }, 'shutting down: finishing in-flight requests and open streams');
        app.markShuttingDown();
        await app.close();
        await limiter.close();
        await database.close();
        logger.info('shut down cleanly');
      })();
      return closing;
    };
    return { app, url, database, shutdown };
  } catch (err) {
    await rateLimiter?.close();
    await database.close();
    throw err;
  }
}
