import { rateLimitRefusals } from '../observability/metrics.js';
import { apiError } from './errors.js';

/**
 * Sliding-window log: a request is let through when fewer than `limit` requests were let through in
 * the `windowMs` before it. Exact at the boundary (no fixed-window burst of 2×limit), which a
 * counter-based limiter such as rate-limiter-flexible's fixed windows does not give. Refused
 * requests are not counted, so a client that keeps retrying gets in as soon as the window allows.
 */
export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until the window has room for at least one more request (0 when it has now). */
  resetSeconds: number;
  /** Whole seconds to wait before retrying, at least 1; set when refused. */
  retryAfterSeconds: number;
}

/**
 * Counts one request against `key`'s window and answers it the one way every limited door does (API
 * requests, MCP messages, console sign-ins): the RateLimit headers, and past the limit a 429
 * `rate_limit_exceeded` with Retry-After, counted in persona_rate_limit_refusals_total.
 */
export async function enforceRateLimit(
  limiter: RateLimiter,
  key: string,
  limit: number,
  setHeader: (name: string, value: number) => void,
  refusal: (decision: RateLimitDecision) => string,
): Promise<void> {
  const decision = await limiter.consume(key, limit);
  setHeader('ratelimit-limit', decision.limit);
  setHeader('ratelimit-remaining', decision.remaining);
  setHeader('ratelimit-reset', decision.resetSeconds);
  if (!decision.allowed) {
    rateLimitRefusals.inc();
    throw apiError('rate_limit_exceeded', refusal(decision), null, { 'retry-after': decision.retryAfterSeconds });
  }
}

export interface RateLimiter {
  consume(key: string, limit: number): Promise<RateLimitDecision>;
  /** Rejects while the store shared with other instances does not answer (a readiness check); absent without one. */
  ping?(): Promise<void>;
  close(): Promise<void>;
}

export const RATE_LIMIT_WINDOW_MS = 60_000;

export function decide(allowed: boolean, limit: number, countAfter: number, oldestMs: number | undefined, nowMs: number, windowMs: number): RateLimitDecision {
  const remaining = Math.max(0, limit - countAfter);
  // The oldest counted request leaves the window at oldest + window; only then is there room again.
  const msUntilRoom = remaining > 0 || oldestMs === undefined ? 0 : Math.max(0, oldestMs + windowMs - nowMs);
  const resetSeconds = Math.ceil(msUntilRoom / 1000);
  return { allowed, limit, remaining, resetSeconds, retryAfterSeconds: Math.max(1, resetSeconds) };
}

/** One process's limiter. Timestamps per key are kept sorted; old ones are dropped on each call. */
export class MemoryRateLimiter implements RateLimiter {
  private readonly log = new Map<string, number[]>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly windowMs = RATE_LIMIT_WINDOW_MS,
  ) {
    // Forget idle keys so the map does not grow with every key ever seen.
    this.sweeper = setInterval(() => this.sweep(), windowMs);
    this.sweeper.unref();
  }

  async consume(key: string, limit: number): Promise<RateLimitDecision> {
    const nowMs = this.now();
    const windowStart = nowMs - this.windowMs;
    let stamps = this.log.get(key);
    if (!stamps) {
      stamps = [];
      this.log.set(key, stamps);
    }
    let expired = 0;
    while (expired < stamps.length && (stamps[expired] as number) <= windowStart) expired++;
    if (expired > 0) stamps.splice(0, expired);
    const allowed = stamps.length < limit;
    if (allowed) stamps.push(nowMs);
    return decide(allowed, limit, stamps.length, stamps[0], nowMs, this.windowMs);
  }

  private sweep(): void {
    const windowStart = this.now() - this.windowMs;
    for (const [key, stamps] of this.log) {
      if ((stamps.at(-1) ?? 0) <= windowStart) this.log.delete(key);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.log.clear();
  }
}
