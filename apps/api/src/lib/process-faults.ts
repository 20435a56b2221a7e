import type { Logger } from 'pino';
import { uncaughtErrors } from '../observability/metrics.js';

/**
 * An exception nothing caught (a library's timer callback, an event without a listener) is logged and the
 * process keeps running (DECISIONS.md, Dependency faults): exiting would drop every request and job in
 * flight, the opposite of draining. Each is logged with `uncaught: true` and counted in persona_uncaught_errors_total.
 */
export function surviveUncaughtErrors(logger: Logger): void {
  process.on('uncaughtException', (err, origin) => {
    uncaughtErrors.inc({ origin: 'uncaughtException' });
    logger.error({ err, origin, uncaught: true }, 'uncaught exception: logged; the process keeps running');
  });
  process.on('unhandledRejection', (reason) => {
    uncaughtErrors.inc({ origin: 'unhandledRejection' });
    // postgres.js keeps the statement of a failed query on a non-enumerable `query`: it names the caller.
    const statement = reason && typeof reason === 'object' && 'query' in reason ? String((reason as { query: unknown }).query).slice(0, 300) : undefined;
    logger.error({ err: reason, statement, origin: 'unhandledRejection', uncaught: true }, 'unhandled rejection: logged; the process keeps running');
  });
}
