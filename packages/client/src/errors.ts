import type { ErrorCode, ErrorType } from '@persona-api/types';

/** Base class of every error this client throws, so one `instanceof` catches them all. */
export class PersonaApiError extends Error {
  override name = 'PersonaApiError';
}

/**
 * The server answered with an error: an HTTP status outside 2xx, or an error event inside a stream.
 * Fields mirror the contract's `{"error": {"message", "type", "code", "param"}}` envelope.
 */
export class ApiError extends PersonaApiError {
  override name = 'ApiError';
  /** HTTP status; for an error sent inside a stream, the stream's own status (200). */
  readonly status: number;
  /** Broad class of the error (`invalid_request_error`, `rate_limit_error`…); null when the body had none. */
  readonly type: ErrorType | null;
  /** Machine-readable code (`resource_not_found`…). Typed from the contract; newer servers may send others. */
  readonly code: ErrorCode | null;
  /** The request field at fault as a dotted path (`tools.3.name`), or null. */
  readonly param: string | null;
  /** The server's `X-Request-Id`: quote it when reporting a problem. */
  readonly requestId: string | null;
  /** The response headers (e.g. `Retry-After`, `RateLimit-*`). */
  readonly headers: Headers;
  /** The parsed error body as received (for fields this class does not surface). */
  readonly body: unknown;

  constructor(init: {
    status: number;
    message: string;
    type?: ErrorType | null;
    code?: ErrorCode | null;
    param?: string | null;
    requestId?: string | null;
    headers?: Headers;
    body?: unknown;
  }) {
    super(init.message);
    this.status = init.status;
    this.type = init.type ?? null;
    this.code = init.code ?? null;
    this.param = init.param ?? null;
    this.requestId = init.requestId ?? null;
    this.headers = init.headers ?? new Headers();
    this.body = init.body;
  }

  /** Maps an error response (already parsed by openapi-fetch) to an ApiError. */
  static fromResponse(response: Response, body: unknown): ApiError {
    const error = errorFields(isRecord(body) && isRecord(body.error) ? body.error : undefined);
    return new ApiError({
      status: response.status,
      message: error.message ?? (typeof body === 'string' && body !== '' ? body : `HTTP ${response.status} ${response.statusText}`.trim()),
      type: error.type,
      code: error.code,
      param: error.param,
      requestId: response.headers.get('x-request-id'),
      headers: response.headers,
      body,
    });
  }

  /**
   * Maps an error sent inside a stream: `{"type": "error", "code", "message", "param"}` (responses,
   * generations), `{"type": "error", "error": {...}}` (agent) or `{"error": {...}}` (chat completions).
   */
  static fromStreamEvent(response: Response, event: Record<string, unknown>): ApiError {
    const error = errorFields(isRecord(event.error) ? event.error : event);
    return new ApiError({
      status: response.status,
      message: error.message ?? 'The stream reported an error.',
      type: error.type,
      code: error.code,
      param: error.param,
      requestId: response.headers.get('x-request-id'),
      headers: response.headers,
      body: event,
    });
  }
}

/** The request never got an HTTP response (DNS, refused connection, reset), after any retries. */
export class ApiConnectionError extends PersonaApiError {
  override name = 'ApiConnectionError';
  constructor(message = 'Connection error.', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** No response headers arrived within `timeout` milliseconds, after any retries. */
export class ApiTimeoutError extends ApiConnectionError {
  override name = 'ApiTimeoutError';
  constructor(timeoutMs: number) {
    super(`Request timed out after ${timeoutMs} ms.`);
  }
}

/** A stream ended without `data: [DONE]`, or without the event that carries the final object. */
export class StreamError extends PersonaApiError {
  override name = 'StreamError';
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function errorFields(source: Record<string, unknown> | undefined) {
  const text = (key: string) => (typeof source?.[key] === 'string' ? (source[key] as string) : null);
  return {
    message: text('message'),
    // A stream's flat error event has `type: "error"` (the event name), not an error class.
    type: source && source.type !== 'error' ? (text('type') as ErrorType | null) : null,
    code: text('code') as ErrorCode | null,
    param: text('param'),
  };
}
