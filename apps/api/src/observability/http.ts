import { context, trace, type Span } from '@opentelemetry/api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { httpRequestDuration, httpRequests, statusClass } from './metrics.js';
import { contextFromHeaders, endSpan, isTracingOn, runAs, startServerSpan } from './tracing.js';

const spans = new WeakMap<FastifyRequest, Span>();
const UNTRACED = new Set(['/healthz', '/readyz']);

const operationOf = (request: FastifyRequest): string | undefined => (request.routeOptions.config as { operationId?: string } | undefined)?.operationId;

/**
 * Per request: a server span named by the operationId (the caller's `traceparent` as its parent, the
 * trace in a `traceresponse` header), the HTTP metrics, and one JSON log line with operationId, status,
 * duration, account, request and trace ids. Everything happens when the response closes, so streams
 * and clients that leave are counted too, once.
 */
export function registerRequestObservability(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (UNTRACED.has(request.url)) return done();
    const startedAt = performance.now();
    const operation = operationOf(request);
    let span: Span | undefined;
    if (isTracingOn()) {
      span = startServerSpan(operation ?? `${request.method} ${request.routeOptions.url ?? 'unrouted'}`, contextFromHeaders(request.headers), {
        'http.request.method': request.method,
        'http.route': request.routeOptions.url ?? '',
        'url.path': request.url.split('?')[0] ?? '',
        'persona.request_id': request.id,
        ...(operation ? { 'persona.operation_id': operation } : {}),
      });
      spans.set(request, span);
      const { traceId, spanId, traceFlags } = span.spanContext();
      reply.header('traceresponse', `00-${traceId}-${spanId}-0${traceFlags & 1}`);
    }
    reply.raw.once('close', () => finished(request, reply, operation, span, startedAt));
    // The rest of the request's hooks (authentication's key lookup and rate limit) run in its span.
    if (span) context.with(trace.setSpan(context.active(), span), done);
    else done();
  });
}

function finished(request: FastifyRequest, reply: FastifyReply, operation: string | undefined, span: Span | undefined, startedAt: number): void {
  const left = !reply.raw.writableFinished;
  const status = reply.raw.statusCode;
  const seconds = (performance.now() - startedAt) / 1000;
  const labels = { operation: operation ?? 'none', method: request.method, status_class: statusClass(status) };
  httpRequests.inc(labels);
  httpRequestDuration.observe(labels, seconds);
  if (span) {
    span.setAttribute('http.response.status_code', status);
    if (left) span.setAttribute('persona.client_left', true);
    endSpan(span, status >= 500 ? `HTTP ${status}` : undefined);
  }
  const auth = request.auth;
  const line = {
    operation_id: operation ?? null,
    method: request.method,
    status,
    duration_ms: Math.round(seconds * 10_000) / 10,
    ...(auth ? { account_id: auth.accountId, api_key_id: auth.apiKeyId } : {}),
    ...workspaceOf(request),
    ...(left ? { client_left: true } : {}),
    // The line is written outside the request's context (the connection closed): its ids are named here.
    ...(span ? { trace_id: span.spanContext().traceId, span_id: span.spanContext().spanId } : {}),
  };
  if (status >= 500) request.log.error(line, 'request failed');
  else request.log.info(line, 'request completed');
}

/** The workspace a request names (query or body `workspace_id`), for the log line. */
function workspaceOf(request: FastifyRequest): { workspace_id?: string } {
  const fromQuery = (request.query as { workspace_id?: unknown } | undefined)?.workspace_id;
  const fromBody = (request.body as { workspace_id?: unknown } | undefined)?.workspace_id;
  const workspace = typeof fromQuery === 'string' ? fromQuery : typeof fromBody === 'string' ? fromBody : undefined;
  return workspace ? { workspace_id: workspace } : {};
}

/** Runs an operation's handler as its feature (metric label) and inside the request's span. */
export function runOperation<T>(request: FastifyRequest, operationId: string, handler: () => T): T {
  return runAs(operationId, spans.get(request), handler);
}
