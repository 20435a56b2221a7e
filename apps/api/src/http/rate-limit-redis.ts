// The rate limiter shared by every instance through Redis. Its own module, imported only when REDIS_URL is set
// (server.ts), so a server without Redis never loads ioredis (bench/README.md, "Cold start").
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { rateLimitFallbacks } from '../observability/metrics.js';
import { decide, MemoryRateLimiter, RATE_LIMIT_WINDOW_MS, type RateLimitDecision, type RateLimiter } from './rate-limit.js';

// Redis's own primitives: a sorted set per key scored by time, trimmed, counted and added to in one
// atomic script, so every server instance sharing the Redis enforces one limit.
const SLIDING_WINDOW_SCRIPT = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local allowed = 0
if count < limit then
  redis.call('ZADD', key, now, ARGV[4])
  count = count + 1
  allowed = 1
end
redis.call('PEXPIRE', key, window)
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
return {allowed, count, oldest[2] or false}
`;

type SlidingWindowCommand = (key: string, now: number, windowMs: number, limit: number, member: string) => Promise<[number, number, string | null]>;

/** How long a request waits on Redis before the limiter falls back (DECISIONS.md, Dependency faults). */
export const REDIS_COMMAND_TIMEOUT_MS = 250;

/**
 * Redis reached through ioredis, bounded: no queue of commands while disconnected (they fail at once), a
 * command times out after REDIS_COMMAND_TIMEOUT_MS, and reconnects are tried at least once a second, so
 * the limiter is back on Redis within about a second of Redis returning.
 */
export function boundedRedis(url: string): Redis {
  return new Redis(url, {
    enableOfflineQueue: false,
    // A backstop only: the limiter's own bound (withinCommandBound) is REDIS_COMMAND_TIMEOUT_MS.
    commandTimeout: 4 * REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: 1_000,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => Math.min(100 * attempt, 1_000),
  });
}

/**
 * Redis's answer, or a time-out after `ms`. The time-out is decided one turn of the event loop after its timer
 * fires: when the loop was busy (a long synchronous stretch, PGlite in the same thread), timers run before
 * sockets are read, and an answer already waiting in the socket would otherwise lose to it.
 */
function withinCommandBound<T>(command: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => setImmediate(() => reject(new Error(`Redis did not answer within ${ms} ms`))), ms);
    command.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

export interface RedisRateLimiterOptions {
  now?: () => number;
  windowMs?: number;
  keyPrefix?: string;
  /** Told (at most once a second) when a request was limited by the per-process fallback. */
  onFallback?: (err: unknown) => void;
  /** How long a request waits on Redis (and on a connection under way) before the fallback decides it. */
  commandTimeoutMs?: number;
}

export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis & { slidingWindow: SlidingWindowCommand };
  private sequence = 0;
  private readonly instanceTag = randomBytes(6).toString('hex');
  /** This process's own window, used while Redis cannot be reached (fail open, still limited per process). */
  private readonly fallback: MemoryRateLimiter;
  private lastFallbackWarning = 0;
  private readonly now: () => number;
  private readonly windowMs: number;
  private readonly keyPrefix: string;
  private readonly onFallback: (err: unknown) => void;
  private readonly commandTimeoutMs: number;

  constructor(redisOrUrl: Redis | string, options: RedisRateLimiterOptions = {}) {
    this.now = options.now ?? Date.now;
    this.windowMs = options.windowMs ?? RATE_LIMIT_WINDOW_MS;
    this.keyPrefix = options.keyPrefix ?? 'persona-api:rl:';
    this.onFallback = options.onFallback ?? (() => {});
    this.commandTimeoutMs = options.commandTimeoutMs ?? REDIS_COMMAND_TIMEOUT_MS;
    const redis = typeof redisOrUrl === 'string' ? boundedRedis(redisOrUrl) : redisOrUrl;
    // ioredis emits connection errors as events; unheard, they are printed on every reconnect attempt.
    redis.on('error', () => {});
    redis.defineCommand('slidingWindow', { numberOfKeys: 1, lua: SLIDING_WINDOW_SCRIPT });
    this.redis = redis as Redis & { slidingWindow: SlidingWindowCommand };
    this.fallback = new MemoryRateLimiter(this.now, this.windowMs);
  }

  async consume(key: string, limit: number): Promise<RateLimitDecision> {
    const nowMs = this.now();
    // A unique member per request: two requests in the same millisecond both count.
    const member = `${nowMs}:${this.instanceTag}:${this.sequence++}`;
    try {
      await this.connectingAtMost(this.commandTimeoutMs);
      const [allowed, count, oldest] = await withinCommandBound(
        this.redis.slidingWindow(this.keyPrefix + key, nowMs, this.windowMs, limit, member),
        this.commandTimeoutMs,
      );
      return decide(allowed === 1, limit, count, oldest === null ? undefined : Number(oldest), nowMs, this.windowMs);
    } catch (err) {
      rateLimitFallbacks.inc();
      if (Date.now() - this.lastFallbackWarning >= 1_000) {
        this.lastFallbackWarning = Date.now();
        this.onFallback(err);
      }
      return this.fallback.consume(key, limit);
    }
  }

  /** While a connection attempt is under way (e.g. just after start), waits for it, but never longer than `ms`. */
  private connectingAtMost(ms: number): Promise<void> {
    if (this.redis.status !== 'connecting' && this.redis.status !== 'connect') return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.redis.off('ready', done);
        this.redis.off('end', done);
        this.redis.off('close', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.redis.once('ready', done);
      this.redis.once('close', done);
      this.redis.once('end', done);
    });
  }

  async ping(): Promise<void> {
    await this.redis.ping();
  }

  async close(): Promise<void> {
    await this.fallback.close();
    // quit() waits for a reply that never comes while Redis is down.
    if (this.redis.status === 'ready') await this.redis.quit();
    else this.redis.disconnect();
  }
}
