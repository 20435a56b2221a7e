import { ConfigError, loadConfig } from './config.js';
import { openConfiguredDatabase } from './db/open.js';
import { startJobQueue } from './jobs/start.js';
import { surviveUncaughtErrors } from './lib/process-faults.js';
import { collectCreditHolds } from './observability/billing.js';
import { startTracing, stopTracing } from './observability/tracing.js';
import { createLogger, createServices, startConfiguredMetrics } from './server.js';

// `pnpm worker`: only the background workers, beside an API started with WORKERS=off.
let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
  throw err;
}
if (!config.DATABASE_URL) {
  // One process owns a PGlite data directory: the API server runs the workers itself.
  process.stderr.write(
    'pnpm worker needs PostgreSQL (DATABASE_URL). With the embedded PGlite database one process owns the data directory: run `pnpm start` with WORKERS=on (the default) instead.\n',
  );
  process.exit(1);
}

const logger = createLogger(config).child({ process: 'worker' });
surviveUncaughtErrors(logger);
await startTracing('persona-api');
try {
  const database = await openConfiguredDatabase(config, 'persona-api worker');
  const services = await createServices(config, database, logger);
  const { storage } = services;
  const jobs = await startJobQueue(config, { database, services, workers: true });
  // The same metric names as the API server's, on the worker's own METRICS_PORT.
  const stopHoldGauges = collectCreditHolds(database.db);
  const metrics = await startConfiguredMetrics(config, logger);
  logger.info({ storage: storage.kind }, 'persona-api worker running');
  const timeoutMs = config.SHUTDOWN_TIMEOUT_MS;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.info({ reason: signal }, 'worker shutting down: finishing running jobs');
      const force = setTimeout(() => process.exit(1), timeoutMs + 5_000);
      force.unref();
      (async () => {
        await jobs.stop({ timeoutMs });
        stopHoldGauges();
        await metrics?.close();
        await storage.close();
        await database.close();
        await stopTracing();
      })().then(
        () => process.exit(0),
        (err: unknown) => {
          logger.error({ err }, 'worker shutdown failed');
          process.exit(1);
        },
      );
    });
  }
} catch (err) {
  logger.fatal({ err }, 'worker could not start');
  process.exitCode = 1;
}
