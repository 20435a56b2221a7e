import { SpanKind, type Span } from '@opentelemetry/api';
import type { PGlite } from '@electric-sql/pglite';
import type postgres from 'postgres';
import { dbPoolSize, dbStatementDuration, dbStatementsInFlight } from './metrics.js';
import { endSpan, startChildSpan } from './tracing.js';

type Driver = 'pglite' | 'postgres';
const VERBS = new Set([
  'select',
  'insert',
  'update',
  'delete',
  'with',
  'begin',
  'commit',
  'rollback',
  'savepoint',
  'release',
  'set',
  'lock',
  'create',
  'alter',
  'drop',
]);
const MAX_TEXT_IN_SPAN = 2_000;

/** The statement's SQL verb, lower case, from a closed list (a bounded metric label). */
function verbOf(text: string): string {
  const word = /^\s*(\w+)/.exec(text)?.[1]?.toLowerCase() ?? '';
  return VERBS.has(word) ? word : 'other';
}

/** Times one statement (metric) and, inside a traced request or job, gives it a span; call the result when it settles. */
function beginStatement(driver: Driver, text: string): (error?: unknown) => void {
  const operation = verbOf(text);
  const startedAt = performance.now();
  dbStatementsInFlight.inc({ driver });
  const span: Span | undefined = startChildSpan(
    operation.toUpperCase(),
    () => ({
      'db.system.name': 'postgresql',
      'db.operation.name': operation.toUpperCase(),
      'db.query.text': text.length > MAX_TEXT_IN_SPAN ? `${text.slice(0, MAX_TEXT_IN_SPAN)}…` : text,
      'persona.db.driver': driver,
    }),
    SpanKind.CLIENT,
  );
  let settled = false;
  return (error) => {
    if (settled) return;
    settled = true;
    dbStatementsInFlight.dec({ driver });
    dbStatementDuration.observe({ driver, operation }, (performance.now() - startedAt) / 1000);
    endSpan(span, error);
  };
}

/**
 * The PGlite client Drizzle is given, timing each statement (and its transactions' statements). pg-boss
 * keeps the unwrapped client: its polling is not application work.
 */
export function observedPglite<T extends Pick<PGlite, 'query' | 'transaction'>>(client: T): T {
  dbPoolSize.set({ driver: 'pglite' }, 1);
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property === 'query') {
        return async (text: string, ...rest: unknown[]) => {
          const done = beginStatement('pglite', text);
          try {
            const result = await (target.query as (...args: unknown[]) => Promise<unknown>).call(target, text, ...rest);
            done();
            return result;
          } catch (error) {
            done(error);
            throw error;
          }
        };
      }
      if (property === 'transaction') {
        return (work: (tx: T) => Promise<unknown>) => target.transaction((tx) => work(observedPglite(tx as unknown as T)));
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * The postgres.js client Drizzle is given, timing each statement: Drizzle sends every statement through
 * `unsafe`, and transactions and savepoints hand it a client of their own, wrapped the same way.
 */
export function observedPostgres<T extends postgres.Sql>(client: T, poolSize?: number): T {
  if (poolSize !== undefined) dbPoolSize.set({ driver: 'postgres' }, poolSize);
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property === 'unsafe') {
        return (text: string, ...rest: unknown[]) => {
          const done = beginStatement('postgres', text);
          const pending = (target.unsafe as (...args: unknown[]) => postgres.PendingQuery<postgres.Row[]>)(text, ...rest);
          // postgres.js runs a query a microtask after its first `then`, so `.values()` set by Drizzle
          // right after this still applies. This observer's own rejection handler keeps it from being unhandled.
          pending.then(
            () => done(),
            (error: unknown) => done(error),
          );
          return pending;
        };
      }
      if (property === 'begin' || property === 'savepoint') {
        const original = Reflect.get(target, property, target) as (...args: unknown[]) => unknown;
        return (...args: unknown[]) =>
          original.apply(
            target,
            args.map((arg) => (typeof arg === 'function' ? (tx: postgres.Sql) => (arg as (tx: postgres.Sql) => unknown)(observedPostgres(tx)) : arg)),
          );
      }
      return Reflect.get(target, property, receiver);
    },
  });
}
