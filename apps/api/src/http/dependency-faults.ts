import { apiError, type ApiError } from './errors.js';
import { errorChain } from '../lib/error-chain.js';

/** What a 503 tells the client to wait (DECISIONS.md, Dependency faults): the database reconnects within 0.5 s. */
export const RETRY_AFTER_SECONDS = 2;

// Socket-level failures (Node's codes) and postgres.js's own connection codes.
const CONNECTION_CODES = new Set([
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'LOST_REPLY',
]);

// PostgreSQL SQLSTATEs that mean "the database is not answering now", not "this request is wrong":
// 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now, 57014 query_canceled
// (statement_timeout), 53300 too_many_connections; class 08 is every connection exception.
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '57014', '53300']);

/**
 * A statement that always answers one row (the credit hold, the charge) answered none: its reply was lost in a
 * database cut (the fault suite saw postgres.js resolve one with an empty result, about one run in three), so
 * whether it ran is unknown, as for a lost COMMIT reply; a 503 like any other outage, not a 500.
 */
export class LostReply extends Error {
  readonly code = 'LOST_REPLY';
  constructor(statement: string) {
    super(`${statement} answered no row: its reply was lost`);
  }
}

interface ErrorFields {
  code?: unknown;
  name?: unknown;
  cause?: unknown;
  $metadata?: { httpStatusCode?: number };
}

function isUnavailable(error: ErrorFields): boolean {
  const code = typeof error.code === 'string' ? error.code : '';
  if (CONNECTION_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
  // The AWS SDK (S3): a time-out, or the service's own 5xx (503 SlowDown, 500 InternalError).
  if (error.$metadata !== undefined) {
    if (error.name === 'TimeoutError' || error.name === 'RequestTimeout') return true;
    const status = error.$metadata.httpStatusCode;
    if (status !== undefined && status >= 500) return true;
  }
  return false;
}

/**
 * Whether `error` (or an error it wraps: Drizzle puts the driver's error in `cause`) means a dependency
 * — PostgreSQL, object storage — cannot be reached right now.
 */
export function isDependencyUnavailable(error: unknown): boolean {
  for (const wrapped of errorChain(error)) if (isUnavailable(wrapped as ErrorFields)) return true;
  return false;
}

/** The client's answer for any failure to reach a dependency: 503 with Retry-After (header and `error.retry_after`). */
export function serviceUnavailable(message = 'A service this request needs is unreachable right now; retry the request shortly.'): ApiError {
  return apiError('service_unavailable', message, null, { 'retry-after': RETRY_AFTER_SECONDS });
}

/** The 503 for `error` when it is a dependency outage, else undefined. */
export function dependencyFailure(error: unknown): ApiError | undefined {
  return isDependencyUnavailable(error) ? serviceUnavailable() : undefined;
}
