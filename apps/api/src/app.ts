import { randomBytes } from 'node:crypto';
import { createEngine, type Engine } from '@persona-api/engine';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type RouteOptions,
} from 'fastify';
import openapiGlue from 'fastify-openapi-glue';
import FindMyWay from 'find-my-way';
import { DEFAULT_SOURCE_FETCH, type SourceFetchOptions } from './ai/sources.js';
import { apiKeyFinder, bearerToken, type AuthContext } from './auth/api-keys.js';
import { UsageRecorder } from './billing/usage-recorder.js';
import { STREAMED, type HandlerMap, type OperationId } from './contract/handler-types.js';
import { basePath, listOperations, loadSpec, withOpenFreeFormObjects, type OpenApiDocument, type OperationInfo } from './contract/spec.js';
import type { DatabaseHandle } from './db/client.js';
import { handlers as defaultHandlers } from './handlers/index.js';
import type { RequestContext, RequestMeter } from './http/context.js';
import { ApiError, CLIENT_CLOSED_REQUEST, errors } from './http/errors.js';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  IDEMPOTENCY_HEADER,
  purgeExpiredIdempotencyKeys,
  releaseIdempotencyKey,
  requestFingerprint,
} from './http/idempotency.js';
import type { RateLimiter } from './http/rate-limit.js';
import { contractValidatorCompiler, validationError } from './http/validation.js';

/** Request bodies are limited to 1 MiB (DECISIONS.md). */
export const BODY_LIMIT_BYTES = 1024 * 1024;
const REQUEST_ID_SHAPE = /^[A-Za-z0-9._:-]{1,128}$/;

export interface AppOptions {
  database: DatabaseHandle;
  rateLimiter: RateLimiter;
  logger: FastifyBaseLogger;
  /** Defaults to the bundle built by @persona-api/openapi. */
  spec?: OpenApiDocument;
  /** Replaces some handlers (tests, and later packages that bring their own). */
  handlers?: Partial<HandlerMap>;
  now?: () => Date;
  /** Multiplies each tier's limit (load tests only); 1 by default. */
  rateLimitMultiplier?: number;
  /** Extra readiness checks (e.g. Redis); a throw makes /readyz answer 503. */
  readinessChecks?: (() => Promise<void>)[];
  /** The model engine; by default the one MODEL_* in the environment describes (offline without MODEL_BASE_URL). */
  engine?: Engine;
  /** Persona-suggestion URL sources; by default 5 s per page and no private addresses. */
  sourceFetch?: Partial<SourceFetchOptions>;
}

interface RouteConfig {
  operationId: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext | null;
    meter: RequestMeter;
    idempotencyKey: string | null;
  }
  interface FastifyInstance {
    /** Makes /readyz answer 503 while the server drains. */
    markShuttingDown(): void;
    usageRecorder: UsageRecorder;
  }
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const spec = withOpenFreeFormObjects(options.spec ?? loadSpec());
  const now = options.now ?? (() => new Date());
  const { db } = options.database;
  const prefix = basePath(spec);
  const operations = new Map<string, OperationInfo>(listOperations(spec).map((op) => [op.operationId, op]));
  const handlers: Partial<HandlerMap> = { ...defaultHandlers, ...options.handlers };
  const engine = options.engine ?? createEngine();
  const sourceFetch: SourceFetchOptions = { ...DEFAULT_SOURCE_FETCH, ...options.sourceFetch };
  let shuttingDown = false;

  const app = Fastify({
    loggerInstance: options.logger,
    bodyLimit: BODY_LIMIT_BYTES,
    logController: new LogController({
      requestIdLogLabel: 'request_id',
      disableRequestLogging: (request) => request.url === '/healthz' || request.url === '/readyz',
    }),
    // Echo a well-formed incoming X-Request-Id (behind a proxy that sets one), else make one.
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID_SHAPE.test(incoming) ? incoming : `req_${randomBytes(12).toString('base64url')}`;
    },
    routerOptions: { maxParamLength: 200 },
  });

  app.decorate('markShuttingDown', () => {
    shuttingDown = true;
  });
  const usageRecorder = new UsageRecorder(db, app.log);
  app.decorate('usageRecorder', usageRecorder);
  app.decorateRequest('auth', null);
  app.decorateRequest('meter', null as unknown as RequestMeter);
  app.decorateRequest('idempotencyKey', null);

  // JSON only: without the text/plain parser a wrong Content-Type is a 415, not a confusing 400.
  app.removeContentTypeParser('text/plain');
  // Any other media type is a 415, except on an operation whose body is raw bytes (the upload
  // target), which gets the request stream unread: the handler checks size and checksum as it goes.
  const rawOrUnsupported = (request: FastifyRequest, payload: NodeJS.ReadableStream, done: (err: Error | null, body?: unknown) => void) => {
    const operationId = (request.routeOptions.config as Partial<RouteConfig> | undefined)?.operationId;
    if (operationId && operations.get(operationId)?.rawBody) return done(null, payload);
    done(new ApiError(415, 'unsupported_media_type', 'Unsupported Content-Type: send the request body as application/json.'));
  };
  // Named as well as '*', because glue checks that every media type of the contract has a parser.
  app.addContentTypeParser(['application/octet-stream', 'text/event-stream'], rawOrUnsupported);
  app.addContentTypeParser('*', rawOrUnsupported);
  app.setValidatorCompiler(contractValidatorCompiler(spec));

  app.addHook('onRequest', async (request, reply) => {
    request.meter = { promptTokens: 0, completionTokens: 0 };
    reply.header('x-request-id', request.id);
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const apiError = toApiError(error, request, operations);
    if (apiError.statusCode >= 500) {
      request.log.error({ err: error }, 'request failed');
    } else {
      request.log.info({ code: apiError.code, param: apiError.param }, apiError.message);
    }
    for (const [name, value] of Object.entries(apiError.headers)) reply.header(name, value);
    if (apiError.statusCode === 405) reply.header('allow', allowedMethods(request).join(', '));
    return reply.code(apiError.statusCode).type('application/json; charset=utf-8').send(apiError.toBody());
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

  app.setNotFoundHandler((request, reply) => {
    const allowed = allowedMethods(request);
    if (allowed.length > 0) {
      throw new ApiError(405, 'method_not_allowed', `${request.method} is not allowed on ${request.url.split('?')[0]}; use ${allowed.join(', ')}.`);
    }
    throw new ApiError(404, 'route_not_found', `Unknown route: ${request.method} ${request.url.split('?')[0]}.`);
  });

  // Liveness and readiness stay outside /api/v1, unauthenticated and unlimited.
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    if (shuttingDown) return reply.code(503).send({ status: 'shutting_down' });
    try {
      await options.database.ping();
      for (const check of options.readinessChecks ?? []) await check();
      return { status: 'ok' };
    } catch (err) {
      app.log.warn({ err }, 'readiness check failed');
      return reply.code(503).send({ status: 'unavailable' });
    }
  });

  const findApiKey = apiKeyFinder(db);
  const authenticate = async (request: FastifyRequest, reply: FastifyReply) => {
    const token = bearerToken(request.headers.authorization);
    const auth = token ? await findApiKey(token) : null;
    if (!auth) throw errors.invalidApiKey();
    request.auth = auth;
    const decision = await options.rateLimiter.consume(auth.apiKeyId, auth.requestsPerMinute * (options.rateLimitMultiplier ?? 1));
    reply.header('ratelimit-limit', decision.limit);
    reply.header('ratelimit-remaining', decision.remaining);
    reply.header('ratelimit-reset', decision.resetSeconds);
    if (!decision.allowed) {
      throw new ApiError(
        429,
        'rate_limit_exceeded',
        `Rate limit of ${decision.limit} requests per minute exceeded for this API key. Retry after ${decision.retryAfterSeconds} seconds.`,
        null,
        { 'retry-after': decision.retryAfterSeconds },
      );
    }
  };

  // POST + Idempotency-Key: replay a stored response, or claim the key for this request.
  const idempotency = async (request: FastifyRequest, reply: FastifyReply) => {
    const key = request.headers['idempotency-key'];
    if (typeof key !== 'string' || !request.auth) return;
    const path = request.url.split('?')[0] ?? '';
    // The Persona-Id header chooses the persona as the body's persona_id does, so it is part of the request.
    const persona = request.headers['persona-id'];
    const fingerprinted = typeof persona === 'string' ? { body: request.body, 'Persona-Id': persona } : request.body;
    const claim = await claimIdempotencyKey(db, request.auth.apiKeyId, key, requestFingerprint(request.method, path, fingerprinted), now());
    if (claim.kind === 'replay') {
      reply.header('idempotent-replayed', 'true');
      if (claim.response.contentType) reply.header('content-type', claim.response.contentType);
      // Stored already serialized: skip the response schema.
      return reply.code(claim.response.status).serializer((payload: unknown) => payload as string).send(claim.response.body);
    }
    request.idempotencyKey = key;
  };

  const storeIdempotentResponse = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const key = request.idempotencyKey;
    if (!key || !request.auth) return payload;
    request.idempotencyKey = null;
    // A server error, or a client that left (499): a retry must run the request again.
    if (reply.statusCode >= 500 || reply.statusCode === CLIENT_CLOSED_REQUEST || typeof payload !== 'string') {
      await releaseIdempotencyKey(db, request.auth.apiKeyId, key);
    } else {
      const contentType = reply.getHeader('content-type');
      await completeIdempotencyKey(db, request.auth.apiKeyId, key, {
        status: reply.statusCode,
        body: payload,
        contentType: typeof contentType === 'string' ? contentType : null,
      });
    }
    return payload;
  };

  // Runs once per request: from onResponse, or for a stream whose client left (see below).
  const settled = new WeakSet<FastifyRequest>();
  const afterResponse = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.auth || settled.has(request)) return;
    settled.add(request);
    // A streamed (hijacked) reply that never sent a stored response must not keep its key claimed.
    if (request.idempotencyKey) await releaseIdempotencyKey(db, request.auth.apiKeyId, request.idempotencyKey);
    usageRecorder.record({
      apiKeyId: request.auth.apiKeyId,
      at: now(),
      status: reply.statusCode,
      latencyMs: reply.elapsedTime,
      promptTokens: request.meter.promptTokens,
      completionTokens: request.meter.completionTokens,
    });
  };
  app.addHook('onResponse', afterResponse);

  const makeContext = (request: FastifyRequest, reply: FastifyReply, operationId: string): RequestContext => ({
    db,
    get auth(): AuthContext {
      if (!request.auth) throw new Error(`operation ${operationId} has no authenticated caller`);
      return request.auth;
    },
    requestId: request.id,
    operationId,
    log: request.log,
    now,
    meter: request.meter,
    engine,
    sourceFetch,
    recordForReplay: async (response) => {
      const key = request.idempotencyKey;
      if (!key || !request.auth) return;
      request.idempotencyKey = null;
      await completeIdempotencyKey(db, request.auth.apiKeyId, key, response);
    },
    request,
    reply,
  });

  await app.register(openapiGlue, {
    specification: spec,
    prefix,
    operationResolver: (operationId: string, method: string) => {
      const op = operations.get(operationId);
      const handler = handlers[operationId as OperationId] as
        | ((input: unknown, ctx: RequestContext) => Promise<unknown>)
        | undefined;
      const config: RouteConfig = { operationId };
      // Glue spreads these over the route it generates (method, url and schemas come from the contract).
      const routeOptions = {
        config,
        onRequest: op?.requiresAuth === false ? [] : [authenticate],
        preHandler: method === 'POST' ? [idempotency] : [],
        onSend: method === 'POST' ? [storeIdempotentResponse] : [],
        handler: async (request: FastifyRequest, reply: FastifyReply) => {
          // The contract may have grown since this server was built: answer 501, as for a known gap.
          if (!handler) throw errors.notImplemented();
          const input = { params: request.params, query: request.query ?? {}, body: request.body, headers: request.headers };
          const running = handler(input, makeContext(request, reply, operationId));
          // A client that closes the connection before the response is complete makes Node emit neither
          // 'finish' nor 'error', so Fastify never runs onResponse. Once the handler is done (a stream may
          // still be charging for what it sent), release the Idempotency-Key and count the request here;
          // afterResponse runs once, whichever comes first.
          reply.raw.once('close', () => {
            if (reply.raw.writableFinished) return;
            const settle = () => setImmediate(() => void afterResponse(request, reply).catch((err: unknown) => request.log.warn({ err }, 'settling a closed request failed')));
            running.then(settle, settle);
          });
          const result = await running;
          if (result === STREAMED) return reply;
          return reply.code(200).send(result);
        },
      };
      return routeOptions as unknown as RouteOptions;
    },
  });

  // Idempotency keys older than 24 h are ignored on lookup; this only keeps the table small.
  const purge = setInterval(() => {
    purgeExpiredIdempotencyKeys(db, now()).catch((err: unknown) => app.log.warn({ err }, 'idempotency purge failed'));
  }, 60 * 60 * 1000);
  purge.unref();

  app.addHook('onClose', async () => {
    clearInterval(purge);
    await usageRecorder.close();
  });

  return app;
}

/** Every failure becomes the spec's envelope; internals (stack, SQL) only reach the log. */
function toApiError(error: FastifyError, request: FastifyRequest, operations: Map<string, OperationInfo>): ApiError {
  if (error instanceof ApiError) return error;
  if (error.validation) {
    const operationId = (request.routeOptions.config as Partial<RouteConfig> | undefined)?.operationId;
    const headerNames = (operationId && operations.get(operationId)?.headerNames) || {};
    return validationError(error.validation as never, error.validationContext, headerNames);
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError(400, 'invalid_json', 'The request body is not valid JSON.');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(413, 'request_too_large', `The request body is larger than ${BODY_LIMIT_BYTES} bytes.`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(415, 'unsupported_media_type', 'Unsupported Content-Type: send the request body as application/json.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError(400, 'invalid_parameter', 'The Content-Length header does not match the request body.', 'Content-Length');
    default:
      break;
  }
  // Bodies that the JSON parser rejects without a Fastify code (e.g. a prototype-poisoning key).
  if (error instanceof SyntaxError || error.statusCode === 400) {
    return new ApiError(400, 'invalid_json', 'The request body is not valid JSON.');
  }
  if (error.statusCode === 503) {
    return new ApiError(503, 'service_unavailable', 'The server is shutting down; retry the request.');
  }
  return errors.internal(request.id);
}
