import type { components } from '@persona-api/types';

export type ErrorType = components['schemas']['ErrorType'];
export type ErrorCode = components['schemas']['ErrorCode'];
export type ErrorBody = components['schemas']['ErrorResponse'];

/** The fixed status family of each error type (DECISIONS.md, Errors). */
const TYPE_OF_STATUS: Record<number, ErrorType> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'insufficient_credits',
  403: 'invalid_request_error',
  404: 'not_found',
  405: 'invalid_request_error',
  409: 'invalid_request_error',
  413: 'invalid_request_error',
  415: 'invalid_request_error',
  429: 'rate_limit_error',
};

/** nginx's status for a request whose client went away before the answer: never seen by anyone. */
export const CLIENT_CLOSED_REQUEST = 499;

/** An error the client is meant to see: it becomes the spec's envelope with this status. */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly type: ErrorType;

  constructor(
    readonly statusCode: number,
    readonly code: ErrorCode,
    message: string,
    readonly param: string | null = null,
    /** Extra response headers, e.g. Retry-After. */
    readonly headers: Record<string, string | number> = {},
  ) {
    super(message);
    this.type = TYPE_OF_STATUS[statusCode] ?? 'api_error';
  }

  toBody(): ErrorBody {
    return { error: { message: this.message, type: this.type, code: this.code, param: this.param } };
  }
}

export const errors = {
  invalidApiKey: () =>
    new ApiError(
      401,
      'invalid_api_key',
      'Invalid API key provided. Keys start with svc_live_ and can be created under Developer → API Keys.',
    ),
  notFound: (what: string, id: string, param = 'id') => new ApiError(404, 'resource_not_found', `No such ${what}: ${id}.`, param),
  permissionDenied: (message: string, param: string | null = null) => new ApiError(403, 'permission_denied', message, param),
  invalidParameter: (param: string | null, message: string) => new ApiError(400, 'invalid_parameter', message, param),
  invalidCursor: () =>
    new ApiError(400, 'invalid_cursor', 'The cursor is not valid for this list; take next_cursor from the previous page.', 'cursor'),
  conflict: (code: 'invalid_state' | 'duplicate_resource', message: string, param: string | null = null) =>
    new ApiError(409, code, message, param),
  notImplemented: () =>
    new ApiError(501, 'not_implemented', 'This operation is described by the contract but not implemented by this server yet.'),
  internal: (requestId: string) =>
    new ApiError(
      500,
      'internal_error',
      `The server had an error while processing your request. Quote request id ${requestId} when reporting it.`,
    ),
};
