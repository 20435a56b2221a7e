import type { ErrorCode, ErrorResponse, ErrorType } from '@persona-api/types';

export type { ErrorCode, ErrorType };
export type ErrorBody = ErrorResponse;

/** The fixed status family of each error type (DECISIONS.md, Errors). */
const TYPE_OF_STATUS: Record<number, ErrorType> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'insufficient_credits',
  403: 'invalid_request_error',
  404: 'not_found',
  405: 'invalid_request_error',
  408: 'invalid_request_error',
  409: 'invalid_request_error',
  413: 'invalid_request_error',
  415: 'invalid_request_error',
  // DECISIONS.md: range_not_satisfiable is in the invalid_request_error family.
  416: 'invalid_request_error',
  431: 'invalid_request_error',
  429: 'rate_limit_error',
};

/**
 * The status of every error code (DECISIONS.md, Errors: the closed ErrorCode list by status). Typed
 * over the whole enum, so a code added to the contract is a tsc error until it has a status here.
 */
export const STATUS_OF_CODE: Record<ErrorCode, number> = {
  invalid_parameter: 400,
  missing_parameter: 400,
  unknown_parameter: 400,
  unsupported_parameter: 400,
  invalid_json: 400,
  invalid_cursor: 400,
  parameter_conflict: 400,
  invalid_model: 400,
  persona_not_customizable: 400,
  file_too_large: 400,
  upload_not_found: 400,
  checksum_mismatch: 400,
  malformed_request: 400,
  previous_response_not_found: 400,
  context_length_exceeded: 400,
  invalid_api_key: 401,
  invalid_upload_signature: 401,
  invalid_session: 401,
  invalid_credentials: 401,
  insufficient_credits: 402,
  usage_limit_exceeded: 402,
  permission_denied: 403,
  resource_not_found: 404,
  route_not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  idempotency_key_reused: 409,
  idempotency_key_in_use: 409,
  invalid_state: 409,
  duplicate_resource: 409,
  request_too_large: 413,
  range_not_satisfiable: 416,
  unsupported_media_type: 415,
  headers_too_large: 431,
  rate_limit_exceeded: 429,
  internal_error: 500,
  not_implemented: 501,
  // Legacy chat's status for it; /responses reports it inside a 200 `failed` response instead.
  structured_output_invalid: 502,
  upstream_error: 502,
  service_unavailable: 503,
  upstream_timeout: 504,
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
    const body: ErrorBody = { error: { message: this.message, type: this.type, code: this.code, param: this.param } };
    // A 503 carries its Retry-After in the envelope too (DECISIONS.md, Dependency faults).
    const retryAfter = this.headers['retry-after'];
    if (this.code === 'service_unavailable' && retryAfter !== undefined) body.error.retry_after = Number(retryAfter);
    return body;
  }
}

/** The error the catalog defines for `code`: status and type follow from the code. */
export function apiError(code: ErrorCode, message: string, param: string | null = null, headers: Record<string, string | number> = {}): ApiError {
  return new ApiError(STATUS_OF_CODE[code], code, message, param, headers);
}

/** The catalog's messages that more than one place sends. */
export const errors = {
  invalidApiKey: () => apiError('invalid_api_key', 'Invalid API key provided. Keys start with svc_live_ and can be created under Developer → API Keys.'),
  notFound: (what: string, id: string, param = 'id') => apiError('resource_not_found', `No such ${what}: ${id}.`, param),
  permissionDenied: (message: string, param: string | null = null) => apiError('permission_denied', message, param),
  missingParameter: (param: string, message: string) => apiError('missing_parameter', message, param),
  parameterConflict: (param: string, message: string) => apiError('parameter_conflict', message, param),
  invalidParameter: (param: string | null, message: string) => apiError('invalid_parameter', message, param),
  invalidCursor: () => apiError('invalid_cursor', 'The cursor is not valid for this list; take next_cursor from the previous page.', 'cursor'),
  conflict: (code: 'invalid_state' | 'duplicate_resource', message: string, param: string | null = null) => apiError(code, message, param),
  notImplemented: () => apiError('not_implemented', 'This operation is described by the contract but not implemented by this server yet.'),
  internal: (requestId: string) =>
    apiError('internal_error', `The server had an error while processing your request. Quote request id ${requestId} when reporting it.`),
};
