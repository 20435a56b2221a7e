import type { FastifyInstance } from 'fastify';
import type { JobQueue } from '../jobs/types.js';

export interface HealthOptions {
  /** Checks the database answers. */
  ping(): Promise<void>;
  /** Extra readiness checks (e.g. Redis); a throw makes /readyz answer 503. */
  readinessChecks: (() => Promise<void>)[];
  isShuttingDown(): boolean;
  /** The job queue, when the server has one: its depth and failures per kind appear in the body. */
  jobs?: JobQueue;
}

export function registerHealth(app: FastifyInstance, options: HealthOptions): void {
  // Liveness and readiness stay outside /api/v1, unauthenticated and unlimited.
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    if (options.isShuttingDown()) return reply.code(503).send({ status: 'shutting_down' });
    try {
      // A dependency that hangs is as down as one that refuses: readiness answers within a second.
      await withinReadinessBound(options.ping());
      for (const check of options.readinessChecks) await withinReadinessBound(check());
      return options.jobs ? { status: 'ok', jobs: await options.jobs.stats() } : { status: 'ok' };
    } catch (err) {
      app.log.warn({ err }, 'readiness check failed');
      return reply.code(503).send({ status: 'unavailable' });
    }
  });
}

const READINESS_CHECK_TIMEOUT_MS = 1_000;

function withinReadinessBound(check: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`readiness check took over ${READINESS_CHECK_TIMEOUT_MS} ms`)), READINESS_CHECK_TIMEOUT_MS);
  });
  return Promise.race([check, timeout]).finally(() => clearTimeout(timer));
}
