import { createEngine } from '@persona-api/engine';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { authentication } from './app/auth.js';
import { BODY_LIMIT_BYTES, registerBodyParsing } from './app/body.js';
import { clientErrorHandler, frameworkErrorHandler, MAX_PARAM_LENGTH, newRequestId, registerErrorHandling } from './app/errors.js';
import { registerHealth } from './app/health.js';
import { idempotencyHooks } from './app/idempotency.js';
import { type McpEndpointOptions, registerMcpEndpoint } from './app/mcp.js';
import { registerOperations } from './app/routes.js';
import { apiKeyFinder, apiKeysChannel, type AuthContext } from './auth/api-keys.js';
import { UsageRecorder } from './billing/usage-recorder.js';
import type { HandlerMap } from './contract/handler-types.js';
import { contractQueryParser } from './http/query.js';
import { basePath, listOperations, loadSpec, withOpenFreeFormObjects, type OpenApiDocument, type OperationInfo } from './contract/spec.js';
import type { Database, DatabaseHandle } from './db/client.js';
import type { RequestContext, RequestMeter } from './http/context.js';
import { DeferredCompiles } from './http/deferred-compiles.js';
import type { RateLimiter } from './http/rate-limit.js';
import { createGuardedFetcher } from './lib/guarded-fetch.js';
import { observedEngine } from './observability/engine.js';
import { observedFetcher } from './observability/fetch.js';
import { registerRequestObservability } from './observability/http.js';
import { observedStorage } from './observability/storage.js';
import { handlers as defaultHandlers } from './resources/index.js';
import { meetingsUnconfigured } from './resources/meetings/settings.js';
import { registerMeetingBotWebhook } from './resources/meetings/webhook.js';
import { filesNotConfigured, jobsNotConfigured, storageNotConfigured, type Services } from './services.js';
import { personaCacheFor, personasChannel } from './resources/personas/cache.js';

export { BODY_LIMIT_BYTES };
const REQUEST_ID_SHAPE = /^[A-Za-z0-9._:-]{1,128}$/;

export interface AppOptions {
  database: DatabaseHandle;
  rateLimiter: RateLimiter;
  logger: FastifyBaseLogger;
  /** Defaults to the bundle built by @persona-api/openapi. */
  spec?: OpenApiDocument;
  /** Replaces some handlers (tests, and later packages that bring their own). */
  handlers?: Partial<HandlerMap>;
  /** Extra readiness checks (e.g. Redis); a throw makes /readyz answer 503. */
  readinessChecks?: (() => Promise<void>)[];
  /**
   * What handlers reach as `ctx.services`; each left out gets its default: the database of
   * `database`, the engine MODEL_* describes (offline without MODEL_BASE_URL), the system clock, the
   * app's logger, a guarded fetcher with its default policy, and jobs and storage that refuse to work
   * until given.
   */
  services?: Partial<Services>;
  /** The MCP endpoint's tools (default: those generated from the contract) and job polling interval. */
  mcp?: Pick<McpEndpointOptions, 'tools' | 'jobPollIntervalMs'>;
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
    /** Validators and serializers compiled at first use; the server warms the rest up after it listens. */
    deferredCompiles: DeferredCompiles;
  }
}

/**
 * The API server: one Fastify app whose routes, validation and response shapes come from the contract.
 * The parts live in src/app/ (body parsing, errors, health, authentication, idempotency, routes);
 * this composes them around one `Services` object.
 */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const spec = withOpenFreeFormObjects(options.spec ?? loadSpec());
  const services: Services = {
    db: options.database.db,
    engine: options.services?.engine ?? createEngine(),
    jobs: jobsNotConfigured,
    storage: storageNotConfigured,
    files: filesNotConfigured,
    meetings: meetingsUnconfigured,
    clock: { now: () => new Date() },
    logger: options.logger,
    fetcher: createGuardedFetcher(),
    rateLimiter: options.rateLimiter,
    rateLimitMultiplier: 1,
    ...options.services,
  };
  // One multiplier for every limit it raises: the API keys' tiers (REST and /mcp) and the console's.
  const { rateLimitMultiplier } = services;
  // Measured (metrics, spans) however they were given; wrapping twice is a no-op.
  services.engine = observedEngine(services.engine);
  services.storage = observedStorage(services.storage);
  services.fetcher = observedFetcher(services.fetcher);
  const { db, engine } = services;
  const now = () => services.clock.now();
  const prefix = basePath(spec);
  const operations = new Map<string, OperationInfo>(listOperations(spec).map((op) => [op.operationId, op]));
  const handlers: Partial<HandlerMap> = { ...defaultHandlers, ...options.handlers };
  let shuttingDown = false;
  const findApiKey = apiKeyFinder(db, undefined, now);
  // Revocations and tier changes, from any instance or the admin CLI, empty the key cache at once.
  const unsubscribeKeys = await apiKeysChannel.subscribe(options.database, () => findApiKey.forget());
  // Custom personas a call answers as, read once per user and id until a change is announced.
  const personaCache = personaCacheFor(db);
  const unsubscribePersonas = await personasChannel.subscribe(options.database, () => personaCache.forget());
  const authenticate = authentication(findApiKey, options.rateLimiter, rateLimitMultiplier);

  const deferredCompiles = new DeferredCompiles();
  const app = Fastify({
    loggerInstance: options.logger,
    schemaController: { compilersFactory: { buildSerializer: deferredCompiles.serializerFactory() } },
    bodyLimit: BODY_LIMIT_BYTES,
    // A request (headers and body) must arrive within 30 s: a client that trickles bytes or sends nothing
    // gives its connection back (408 in the envelope). Responses, streams included, are not limited.
    requestTimeout: 30_000,
    logController: new LogController({
      requestIdLogLabel: 'request_id',
      // observability/http.ts writes the one line per request (with operationId, ids and trace id).
      disableRequestLogging: true,
    }),
    // Echo a well-formed incoming X-Request-Id (behind a proxy that sets one), else make one.
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID_SHAPE.test(incoming) ? incoming : newRequestId();
    },
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH, querystringParser: contractQueryParser(operations.values()) },
    // Requests that arrive while the server closes are served (with Connection: close), not answered
    // with Fastify's own 503 outside the envelope.
    return503OnClosing: false,
    // Errors raised before any hook (router, HTTP parser) still answer in the envelope with a request id.
    frameworkErrors: frameworkErrorHandler(prefix, operations, () => authenticate),
    clientErrorHandler,
  });

  app.decorate('markShuttingDown', () => {
    shuttingDown = true;
  });
  const usageRecorder = new UsageRecorder(db, app.log);
  app.decorate('usageRecorder', usageRecorder);
  app.decorate('deferredCompiles', deferredCompiles);
  app.decorateRequest('auth', null);
  app.decorateRequest('meter', null as unknown as RequestMeter);
  app.decorateRequest('idempotencyKey', null);

  registerBodyParsing(app, spec, operations, deferredCompiles);
  registerRequestObservability(app);

  app.addHook('onRequest', async (request, reply) => {
    request.meter = { promptTokens: 0, completionTokens: 0 };
    reply.header('x-request-id', request.id);
    // Draining: still served, but the client reconnects (to another instance) for its next request.
    if (shuttingDown) reply.header('connection', 'close');
  });

  registerErrorHandling(app, prefix, operations);
  registerHealth(app, {
    ping: () => options.database.ping(),
    readinessChecks: options.readinessChecks ?? [],
    isShuttingDown: () => shuttingDown,
    ...(services.jobs === jobsNotConfigured ? {} : { jobs: services.jobs }),
  });

  registerMeetingBotWebhook(app, services);

  const idempotency = idempotencyHooks(db, now, operations);

  // Runs once per request: from onResponse, or for a stream whose client left (see below).
  const settled = new WeakSet<FastifyRequest>();
  const afterResponse = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.auth || settled.has(request)) return;
    settled.add(request);
    // A streamed (hijacked) reply that never sent a stored response must not keep its key claimed.
    if (request.idempotencyKey) await idempotency.release(request);
    usageRecorder.record({
      apiKeyId: request.auth.apiKeyId,
      accountId: request.auth.accountId,
      at: now(),
      status: reply.statusCode,
      latencyMs: reply.elapsedTime,
      promptTokens: request.meter.promptTokens,
      completionTokens: request.meter.completionTokens,
    });
  };
  app.addHook('onResponse', afterResponse);

  // `requestDb`: the transaction an atomic operation runs in (app/idempotency.ts), for ctx.db and services.db alike.
  const makeContext = (request: FastifyRequest, reply: FastifyReply, operationId: string, requestDb: Database = db): RequestContext => ({
    services: requestDb === db ? services : { ...services, db: requestDb },
    db: requestDb,
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
    setHeader: (name, value) => {
      reply.header(name, value);
    },
    recordForReplay: (response) => idempotency.record(request, response),
    request,
    reply,
  });

  await registerOperations(app, {
    spec,
    prefix,
    operations,
    handlers,
    defaultHandlers,
    authenticate,
    idempotency,
    makeContext,
    afterResponse,
  });

  // MCP clients (agents) reach the same operations as tools at /mcp (packages/mcp).
  registerMcpEndpoint(app, { prefix, findApiKey, rateLimiter: options.rateLimiter, rateLimitMultiplier, ...options.mcp });

  app.addHook('onClose', async () => {
    await unsubscribeKeys();
    await unsubscribePersonas();
    await usageRecorder.close();
  });

  return app;
}
