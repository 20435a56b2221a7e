// Dependency faults (issue 28) in isolation: which failures count as "a dependency is unreachable", the 503
// envelope they become, and the Redis limiter's fall-back when Redis cannot be reached at all.
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { DrizzleQueryError } from 'drizzle-orm/errors';
import { dependencyFailure, isDependencyUnavailable, LostReply, RETRY_AFTER_SECONDS } from '../../src/http/dependency-faults.js';
import { RedisRateLimiter, REDIS_COMMAND_TIMEOUT_MS } from '../../src/http/rate-limit-redis.js';
import pino from 'pino';
import { surviveUncaughtErrors } from '../../src/lib/process-faults.js';
import { rateLimitFallbacks, uncaughtErrors } from '../../src/observability/metrics.js';
import { contract } from '../support/contract.js';

const withCode = (code: string) => Object.assign(new Error(code), { code });

describe('dependency faults', () => {
  it('tells an unreachable dependency from a failing request', () => {
    // Connection-level failures of postgres.js and Node, wrapped by Drizzle or not.
    for (const code of ['CONNECTION_CLOSED', 'CONNECT_TIMEOUT', 'ECONNREFUSED', 'ECONNRESET', '57P01', '57014', '08006']) {
      expect(isDependencyUnavailable(withCode(code)), code).toBe(true);
      expect(isDependencyUnavailable(new DrizzleQueryError('select 1', [], withCode(code))), `wrapped ${code}`).toBe(true);
    }
    // A one-row statement (the credit hold, the charge) whose reply came back empty in a cut.
    expect(isDependencyUnavailable(new LostReply('the charge'))).toBe(true);
    // S3: a time-out or the service's own 5xx; a 404 or 403 is not an outage.
    expect(isDependencyUnavailable(Object.assign(new Error('slow down'), { name: 'SlowDown', $metadata: { httpStatusCode: 503 } }))).toBe(true);
    expect(isDependencyUnavailable(Object.assign(new Error('t'), { name: 'TimeoutError', $metadata: {} }))).toBe(true);
    expect(isDependencyUnavailable(Object.assign(new Error('no'), { name: 'AccessDenied', $metadata: { httpStatusCode: 403 } }))).toBe(false);
    // A constraint violation, a bug, or nothing at all: not an outage (these stay 4xx/500).
    for (const error of [withCode('23505'), withCode('22P02'), new TypeError('x is undefined'), null, 'text']) {
      expect(isDependencyUnavailable(error), String(error)).toBe(false);
    }
  });

  it('answers an outage with 503 service_unavailable, Retry-After in the header and the envelope, as the contract declares', () => {
    const failure = dependencyFailure(withCode('ECONNREFUSED'));
    expect(failure?.statusCode).toBe(503);
    expect(failure?.headers).toEqual({ 'retry-after': RETRY_AFTER_SECONDS });
    const body = failure!.toBody();
    expect(body.error).toMatchObject({ type: 'api_error', code: 'service_unavailable', retry_after: RETRY_AFTER_SECONDS });
    const problems = contract().check(
      'GET',
      '/api/v1/workspaces',
      503,
      { 'x-request-id': 'req_test', 'content-type': 'application/json; charset=utf-8', 'retry-after': String(RETRY_AFTER_SECONDS) },
      JSON.stringify(body),
    );
    expect(problems).toEqual([]);
    expect(dependencyFailure(new Error('a bug'))).toBeUndefined();
  });

  it('rate-limits per process, within the command bound, when Redis refuses connections', async () => {
    // A port nothing listens on: every connection is refused.
    const port = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = server.address() as net.AddressInfo;
        server.close(() => resolve(free));
      });
    });
    const fallbacks: unknown[] = [];
    const limiter = new RedisRateLimiter(`redis://127.0.0.1:${port}`, {
      windowMs: 60_000,
      keyPrefix: 'persona-test:rl:',
      onFallback: (err) => fallbacks.push(err),
    });
    const countedBefore = (await rateLimitFallbacks.get()).values[0]?.value ?? 0;
    try {
      const started = performance.now();
      const decisions = [];
      for (let index = 0; index < 4; index++) decisions.push(await limiter.consume('key_a', 3));
      // Each request waited at most the command time-out, never a reconnect cycle.
      expect(performance.now() - started).toBeLessThan(4 * REDIS_COMMAND_TIMEOUT_MS + 500);
      // Still a limit: the per-process window lets 3 through and refuses the 4th.
      expect(decisions.map((decision) => decision.allowed)).toEqual([true, true, true, false]);
      // Told once (at most once a second), with the cause.
      expect(fallbacks).toHaveLength(1);
      // ...and every fallback counted for the metric.
      expect(((await rateLimitFallbacks.get()).values[0]?.value ?? 0) - countedBefore).toBe(4);
      await expect(limiter.ping()).rejects.toThrow();
    } finally {
      await limiter.close();
    }
  });

  it('logs and counts an uncaught rejection instead of exiting', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const before = { rejection: process.listeners('unhandledRejection'), exception: process.listeners('uncaughtException') };
    const counted = async () => (await uncaughtErrors.get()).values.find((value) => value.labels.origin === 'unhandledRejection')?.value ?? 0;
    const countedBefore = await counted();
    surviveUncaughtErrors(logger);
    try {
      const fault = Object.assign(new Error('write CONNECTION_CLOSED'), { query: 'select 1' });
      process.emit('unhandledRejection', fault, Promise.resolve());
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ uncaught: true, origin: 'unhandledRejection', statement: 'select 1' });
      expect((await counted()) - countedBefore).toBe(1);
    } finally {
      for (const listener of process.listeners('unhandledRejection')) if (!before.rejection.includes(listener)) process.off('unhandledRejection', listener);
      for (const listener of process.listeners('uncaughtException')) if (!before.exception.includes(listener)) process.off('uncaughtException', listener);
    }
  });
});
