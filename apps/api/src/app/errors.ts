import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import http from 'node:http';
import type { OperationInfo } from '../contract/spec.js';
import { dependencyFailure, RETRY_AFTER_SECONDS } from '../http/dependency-faults.js';
import { apiError, ApiError, errors } from '../http/errors.js';
import { validationError } from '../http/validation.js';
import { foreignKeyViolation } from '../db/sql.js';
import { randomToken } from '../lib/ids.js';
import { BODY_LIMIT_BYTES } from './body.js';
import { operationIdOf } from './route-config.js';

/** Every failure as the contract's error envelope; 405 (with Allow) for a known URL, 404 otherwise. */
export function registerErrorHandling(app: FastifyInstance, prefix: string, operations: Map<string, OperationInfo>): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const failure = toApiError(error, request, operations);
    if (failure.code === 'service_unavailable') {
      request.log.warn({ err: error, dependency_unavailable: true }, 'a dependency is unreachable: answered 503');
    } else if (failure.statusCode >= 500) {
      request.log.error({ err: error }, 'request failed');
    } else {
      request.log.info({ code: failure.code, param: failure.param }, failure.message);
    }
    for (const [name, value] of Object.entries(failure.headers)) reply.header(name, value);
    if (failure.statusCode === 405) reply.header('allow', allowedMethods(request).join(', '));
    return reply.code(failure.statusCode).type('application/json; charset=utf-8').send(failure.toBody());
  });

  // Which methods the contract has for a URL, to tell 405 from 404.
  const router = FindMyWay({ ignoreTrailingSlash: false, maxParamLength: 200 });
  for (const op of operations.values()) {
    const url = `${prefix}${op.path.replace(/{(\w+)}/g, ':$1')}`;
    router.on(op.method as 'GET', url, () => {});
  }
  const allowedMethods = (request: FastifyRequest): string[] => {
    const path = request.url.split('?')[0] ?? '';
    return ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((method) => router.find(method as 'GET', path) !== null);
  };

  app.setNotFoundHandler((request, _reply) => {
    const allowed = allowedMethods(request);
    if (allowed.length > 0) {
      throw apiError('method_not_allowed', `${request.method} is not allowed on ${request.url.split('?')[0]}; use ${allowed.join(', ')}.`);
    }
    throw apiError('route_not_found', `Unknown route: ${request.method} ${request.url.split('?')[0]}.`);
  });
}

/** Every failure becomes the spec's envelope; internals (stack, SQL) only reach the log. */
function toApiError(error: FastifyError, request: FastifyRequest, operations: Map<string, OperationInfo>): ApiError {
  if (error instanceof ApiError) return error;
  if (error.validation) {
    const operationId = operationIdOf(request);
    const headerNames = (operationId && operations.get(operationId)?.headerNames) || {};
    return validationError(error.validation as never, error.validationContext, headerNames);
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return apiError('invalid_json', 'The request body is not valid JSON.');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return apiError('request_too_large', `The request body is larger than ${BODY_LIMIT_BYTES} bytes.`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return apiError('unsupported_media_type', 'Unsupported Content-Type: send the request body as application/json.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return apiError('invalid_parameter', 'The Content-Length header does not match the request body.', 'Content-Length');
    default:
      break;
  }
  // Bodies that the JSON parser rejects without a Fastify code (e.g. a prototype-poisoning key).
  if (error instanceof SyntaxError || error.statusCode === 400) {
    return apiError('invalid_json', 'The request body is not valid JSON.');
  }
  // A row this request names was deleted by another request while it ran (DECISIONS.md, Errors).
  const constraint = foreignKeyViolation(error);
  if (constraint !== null) return deletedMeanwhile(constraint);
  // The database or storage unreachable: 503 with Retry-After, not a 500 (DECISIONS.md, Dependency faults).
  const unavailable = dependencyFailure(error);
  if (unavailable) return unavailable;
  if (error.statusCode === 503) {
    return apiError('service_unavailable', 'The server is shutting down; retry the request.', null, { 'retry-after': RETRY_AFTER_SECONDS });
  }
  return errors.internal(request.id);
}

/** The request id of an answer sent before Fastify made a request (a request Node could not parse). */
export const newRequestId = () => `req_${randomToken(12)}`;

/** Path parameters are refused beyond this many characters (Fastify's router limit); ids are at most 64. */
export const MAX_PARAM_LENGTH = 200;

/**
 * Fastify's `frameworkErrors`: a path that is not valid percent-encoding, or a path parameter longer than
 * MAX_PARAM_LENGTH, fail in the router before any hook runs. They get what any request gets: the request
 * id, authentication and the rate limit with its headers (a bad key is the 401 it would be anywhere),
 * then the 400 in the envelope, naming the parameter when the route is known.
 */
export function frameworkErrorHandler(
  prefix: string,
  operations: Map<string, OperationInfo>,
  authenticate: () => (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
) {
  // Routes without the length limit, to name the parameter that is too long.
  const router = FindMyWay({ maxParamLength: 1_000_000 });
  for (const op of operations.values()) {
    router.on(op.method as 'GET', `${prefix}${op.path.replace(/{(\w+)}/g, ':$1')}`, () => {}, { requiresAuth: op.requiresAuth });
  }
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    reply.header('x-request-id', request.id);
    const path = request.raw.url?.split('?')[0] ?? '';
    let failure: ApiError;
    let requiresAuth = true;
    if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
      const found = router.find(request.raw.method as 'GET', path);
      requiresAuth = (found?.store as { requiresAuth?: boolean } | undefined)?.requiresAuth ?? true;
      const param = Object.entries(found?.params ?? {}).find(([, value]) => (value ?? '').length > MAX_PARAM_LENGTH)?.[0] ?? null;
      failure = apiError('invalid_parameter', `${param ?? 'A path parameter'} is longer than ${MAX_PARAM_LENGTH} characters.`, param);
    } else {
      failure = apiError('invalid_parameter', 'The URL path is not valid percent-encoding (e.g. %ZZ).');
    }
    const send = (answer: ApiError) => {
      for (const [name, value] of Object.entries(answer.headers)) reply.header(name, value);
      request.log.info({ code: answer.code, param: answer.param }, answer.message);
      reply.code(answer.statusCode).type('application/json; charset=utf-8').send(JSON.stringify(answer.toBody()));
    };
    const hasKey = typeof request.headers.authorization === 'string';
    if (!requiresAuth && !hasKey) return send(failure);
    authenticate()(request, reply).then(
      () => send(failure),
      (refused: unknown) => send(refused instanceof ApiError ? refused : (dependencyFailure(refused) ?? errors.internal(request.id))),
    );
  };
}

/**
 * Node's `clientError`: a request it cannot parse (a broken chunked body, headers over 16 KiB, a
 * request that took too long to arrive). No request exists, so no key was read and no rate limit
 * applies; the answer is still the envelope with a request id, and the connection is closed.
 */
export function clientErrorHandler(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  let failure: ApiError;
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    failure = apiError('request_timeout', 'The request did not arrive in time.');
  } else if (err.code === 'HPE_HEADER_OVERFLOW') {
    failure = apiError('headers_too_large', 'The request line and headers are larger than 16 KiB; send long values in a JSON body.');
  } else {
    failure = apiError('malformed_request', 'The request is not valid HTTP/1.1 (its framing, chunked encoding or header syntax).');
  }
  const requestId = newRequestId();
  this.log.info({ request_id: requestId, code: failure.code, err_code: err.code }, failure.message);
  if (socket.writable) {
    const body = JSON.stringify(failure.toBody());
    const status = `${failure.statusCode} ${http.STATUS_CODES[failure.statusCode] ?? ''}`;
    socket.write(
      `HTTP/1.1 ${status}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\nconnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** The parameters a foreign key of the schema can stand for. */
const REFERENCE_PARAMS = ['brand_voice_id', 'workspace_id', 'project_id', 'persona_id', 'meeting_id', 'folder_id', 'thread_id', 'file_id'];

/**
 * A foreign-key violation: the request checked what it names, and another request deleted it before the
 * write. The 404 the request would have got a moment later, naming the parameter when the constraint
 * (drizzle's `<table>_<column>_<table>_<column>_fk`) says which; never a 500.
 */
function deletedMeanwhile(constraint: string): ApiError {
  const param = REFERENCE_PARAMS.find((name) => constraint.includes(`_${name}_`)) ?? null;
  return apiError(
    'resource_not_found',
    `${param ? `The resource named by ${param}` : 'A resource this request refers to'} was deleted while the request ran.`,
    param,
  );
}
