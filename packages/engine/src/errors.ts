import type { EngineUsage } from './types.js';

/**
 * Why an engine call failed. `status` is the HTTP status the server answers with before a stream starts
 * (DECISIONS.md: upstream_error 502, upstream_timeout 504); after it started the server reports the code in
 * `response.failed` instead. `aborted` (the caller's AbortSignal fired) uses nginx's 499 "client closed
 * request": nobody is left to read it.
 */
export type EngineErrorCode = 'upstream_error' | 'upstream_timeout' | 'structured_output_invalid' | 'invalid_request' | 'aborted' | 'internal_error';

const STATUS: Record<EngineErrorCode, number> = {
  upstream_error: 502,
  upstream_timeout: 504,
  structured_output_invalid: 502,
  invalid_request: 400,
  aborted: 499,
  internal_error: 500,
};

export interface EngineErrorOptions {
  /** HTTP status the upstream answered with, when it answered. */
  upstream_status?: number;
  /** Tokens used before the failure (a cut stream), counted with the tokenizer when the upstream did not say. */
  usage?: EngineUsage;
  /** Extra text for logs (upstream error body, already redacted); never shown to API callers. */
  detail?: string;
  cause?: unknown;
}

export class EngineError extends Error {
  override readonly name = 'EngineError';
  readonly code: EngineErrorCode;
  readonly status: number;
  readonly upstream_status: number | undefined;
  readonly usage: EngineUsage | undefined;
  readonly detail: string | undefined;

  constructor(code: EngineErrorCode, message: string, options: EngineErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = STATUS[code];
    this.upstream_status = options.upstream_status;
    this.usage = options.usage;
    this.detail = options.detail;
  }
}

export function isEngineError(error: unknown): error is EngineError {
  return error instanceof EngineError;
}

export function abortedError(signal: AbortSignal | undefined): EngineError {
  return new EngineError('aborted', 'The request was cancelled by the caller.', { cause: signal?.reason });
}
