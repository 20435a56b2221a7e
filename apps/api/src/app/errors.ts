import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import type { OperationInfo } from '../contract/spec.js';
import { apiError, ApiError, errors } from '../http/errors.js';
import { validationError } from '../http/validation.js';
import { BODY_LIMIT_BYTES } from './body.js';
import { operationIdOf } from './route-config.js';

/** Every failure as the contract's error envelope; 405 (with Allow) for a known URL, 404 otherwise. */
export function registerErrorHandling(app: FastifyInstance, prefix: string, operations: Map<string, OperationInfo>): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const failure = toApiError(error, request, operations);
    if (failure.statusCode >= 500) {
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
  if (error.statusCode === 503) {
    return apiError('service_unavailable', 'The server is shutting down; retry the request.');
  }
  return errors.internal(request.id);
}
