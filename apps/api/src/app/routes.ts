import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import openapiGlue from 'fastify-openapi-glue';
import { STREAMED, type HandlerMap, type OperationId } from '../contract/handler-types.js';
import { serializerSchema, type OpenApiDocument, type OperationInfo } from '../contract/spec.js';
import type { Database } from '../db/client.js';
import type { RequestContext } from '../http/context.js';
import { errors } from '../http/errors.js';
import { withCursorOwner } from '../lib/pagination.js';
import { runOperation } from '../observability/http.js';
import { ATOMIC_OPERATIONS } from './idempotency.js';
import type { RouteConfig } from './route-config.js';

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

export interface OperationRoutes {
  spec: OpenApiDocument;
  prefix: string;
  operations: Map<string, OperationInfo>;
  handlers: Partial<HandlerMap>;
  /** The built-in handlers (resources/index.ts), to tell them from replacements. */
  defaultHandlers: Partial<HandlerMap>;
  authenticate: Hook;
  idempotency: {
    claim: Hook;
    store: (request: FastifyRequest, reply: FastifyReply, payload: unknown) => Promise<unknown>;
    atomically: (request: FastifyRequest, reply: FastifyReply, work: (db: Database) => Promise<unknown>) => Promise<unknown>;
  };
  makeContext(request: FastifyRequest, reply: FastifyReply, operationId: string, db?: Database): RequestContext;
  /** Per-request settling (usage counters, key release), run once. */
  afterResponse: Hook;
}

/** One route per contract operation (fastify-openapi-glue: method, URL and schemas from the contract), calling its handler. */
export async function registerOperations(app: FastifyInstance, options: OperationRoutes): Promise<void> {
  // Responses are serialised from the contract's schemas, nullable scalars and tagged unions in the form the serializer writes fastest.
  app.addHook('onRoute', (route) => {
    if (route.schema?.response) route.schema = { ...route.schema, response: serializerSchema(route.schema.response) };
  });
  await app.register(openapiGlue, {
    specification: options.spec,
    prefix: options.prefix,
    operationResolver: (operationId: string, method: string) => {
      const op = options.operations.get(operationId);
      const handler = options.handlers[operationId as OperationId] as ((input: unknown, ctx: RequestContext) => Promise<unknown>) | undefined;
      const config: RouteConfig = { operationId };
      // Only the built-in handler is known to do database work alone; a replacement (tests) runs as usual.
      const atomic = ATOMIC_OPERATIONS.has(operationId) && handler !== undefined && options.defaultHandlers[operationId as OperationId] === handler;
      // Glue spreads these over the route it generates (method, url and schemas come from the contract).
      const routeOptions = {
        config,
        onRequest: op?.requiresAuth === false ? [] : [options.authenticate],
        preHandler: method === 'POST' ? [options.idempotency.claim] : [],
        onSend: method === 'POST' ? [options.idempotency.store] : [],
        handler: async (request: FastifyRequest, reply: FastifyReply) => {
          // The contract may have grown since this server was built: answer 501, as for a known gap.
          if (!handler) throw errors.notImplemented();
          const input = { params: request.params, query: request.query ?? {}, body: request.body, headers: request.headers };
          const run = () =>
            atomic
              ? options.idempotency.atomically(request, reply, (db) => handler(input, options.makeContext(request, reply, operationId, db)))
              : handler(input, options.makeContext(request, reply, operationId));
          const running = withCursorOwner(request.auth?.accountId ?? null, () => runOperation(request, operationId, run));
          // A client that closes the connection before the response is complete makes Node emit neither
          // 'finish' nor 'error', so Fastify never runs onResponse. Once the handler is done (a stream may
          // still be charging for what it sent), release the Idempotency-Key and count the request here;
          // afterResponse runs once, whichever comes first.
          reply.raw.once('close', () => {
            if (reply.raw.writableFinished) return;
            const settle = () =>
              setImmediate(
                () => void options.afterResponse(request, reply).catch((err: unknown) => request.log.warn({ err }, 'settling a closed request failed')),
              );
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
}
