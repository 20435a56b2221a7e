import { ConfigError, loadConfig } from './config.js';
import { surviveUncaughtErrors } from './lib/process-faults.js';
import { startTracing } from './observability/tracing.js';
import { createLogger, startServer } from './server.js';

// `pnpm start`: configuration from the environment only, validated before anything else runs.
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

const logger = createLogger(config);
surviveUncaughtErrors(logger);
// Before anything is served: OTEL_* decide whether traces are exported (off when unset).
await startTracing('persona-api');
const timeoutMs = config.SHUTDOWN_TIMEOUT_MS;

try {
  const server = await startServer(config, logger);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      // Requests and streams that outlive the grace period are cut off.
      const force = setTimeout(() => {
        logger.error({ timeout_ms: timeoutMs }, 'shutdown timed out; exiting with requests still open');
        process.exit(1);
      }, timeoutMs);
      force.unref();
      server.shutdown(signal).then(
        () => process.exit(0),
        (err: unknown) => {
          logger.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
} catch (err) {
  logger.fatal({ err }, 'could not start');
  process.exitCode = 1;
}
