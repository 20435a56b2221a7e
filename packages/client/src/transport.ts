import { ApiConnectionError, ApiTimeoutError } from './errors.js';

export type Fetch = (input: Request, init?: RequestInit) => Promise<Response>;

/** What `onRetry` is told before the client waits and sends a request again. */
export interface RetryInfo {
  /** The attempt that failed, from 1. */
  attempt: number;
  /** How long the client waits before the next attempt. */
  delayMs: number;
  method: string;
  url: string;
  /** The response that is retried (429 or 5xx), or undefined for a network error or timeout. */
  response?: Response;
  /** The network error or timeout that is retried. */
  error?: unknown;
}

export interface TransportOptions {
  fetch: Fetch;
  maxRetries: number;
  timeout: number;
  /** The longest `Retry-After` the client waits for; a longer one is returned to the caller as the error it is. */
  maxRetryAfter: number;
  onRetry?: ((info: RetryInfo) => void) | undefined;
}

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
const INITIAL_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 8_000;

/**
 * A fetch that retries and times out, handed to openapi-fetch as its `fetch`. A 429 is retried for
 * every method (the server refused it before doing anything) after `Retry-After`; a 5xx, a network
 * error or a timeout only when repeating the request is safe: an idempotent method, or a POST that
 * carries an `Idempotency-Key` (the server replays the first result).
 */
export function createTransport(options: TransportOptions): (request: Request) => Promise<Response> {
  return async function send(request: Request): Promise<Response> {
    const safeToRepeat = IDEMPOTENT_METHODS.has(request.method) || request.headers.has('idempotency-key');
    for (let attempt = 1; ; attempt++) {
      const attemptsLeft = options.maxRetries + 1 - attempt;
      let response: Response;
      try {
        // Each attempt sends a clone: a body can only be read once.
        response = await fetchWithTimeout(options.fetch, request.clone(), request.signal, options.timeout);
      } catch (error) {
        if (request.signal.aborted) throw error; // the caller cancelled: never retry, keep their AbortError
        const failure = error instanceof ApiTimeoutError ? error : new ApiConnectionError(`Connection error: ${errorMessage(error)}`, { cause: error });
        if (!safeToRepeat || attemptsLeft <= 0) throw failure;
        const delayMs = backoffMs(attempt);
        options.onRetry?.({ attempt, delayMs, method: request.method, url: request.url, error: failure });
        await sleep(delayMs, request.signal);
        continue;
      }

      const delayMs = attemptsLeft > 0 ? retryDelayMs(response, attempt, safeToRepeat, options.maxRetryAfter) : undefined;
      if (delayMs === undefined) return response;
      await response.body?.cancel().catch(() => {}); // free the connection of the discarded response
      options.onRetry?.({ attempt, delayMs, method: request.method, url: request.url, response });
      await sleep(delayMs, request.signal);
    }
  };
}

/** The wait before retrying this response, or undefined when it must not be retried. */
function retryDelayMs(response: Response, attempt: number, safeToRepeat: boolean, maxRetryAfter: number) {
  const retryable = response.status === 429 || (response.status >= 500 && safeToRepeat);
  if (!retryable) return undefined;
  const retryAfter = parseRetryAfterMs(response.headers.get('retry-after'));
  if (retryAfter === undefined) return backoffMs(attempt);
  return retryAfter <= maxRetryAfter ? retryAfter : undefined;
}

/** `Retry-After` as milliseconds: delta-seconds (what this API sends) or an HTTP date. */
export function parseRetryAfterMs(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** Exponential backoff (0.5 s, 1 s, 2 s… capped at 8 s) with up to 25 % jitter so clients spread out. */
export function backoffMs(attempt: number): number {
  const base = Math.min(INITIAL_BACKOFF_MS * 2 ** (attempt - 1), MAX_BACKOFF_MS);
  return Math.round(base * (1 - Math.random() * 0.25));
}

/**
 * The timeout covers the wait for the response headers only, like the `openai` SDK: a stream may then
 * run as long as it needs. The caller's signal keeps governing the body.
 */
async function fetchWithTimeout(fetch: Fetch, request: Request, callerSignal: AbortSignal, timeoutMs: number) {
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), timeoutMs);
  try {
    return await fetch(request, { signal: AbortSignal.any([callerSignal, timeout.signal]) });
  } catch (error) {
    if (timeout.signal.aborted && !callerSignal.aborted) throw new ApiTimeoutError(timeoutMs);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
  }
  return String(error);
}
