import { AsyncLocalStorage } from 'node:async_hooks';
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type Tracer,
} from '@opentelemetry/api';

/**
 * OpenTelemetry tracing, configured only by the standard OTEL_* variables (OTLP over http/protobuf or
 * http/json, endpoint, headers, sampler, service name). Off unless an exporter or endpoint is named;
 * while off no span is created anywhere (the hooks test `tracingOn` first), so it costs a boolean check.
 */
let tracingOn = false;
let shutdownSdk: (() => Promise<void>) | undefined;

export const isTracingOn = () => tracingOn;

/** Whether the environment asks for traces: OTEL_TRACES_EXPORTER (not `none`) or an OTLP endpoint, and OTEL_SDK_DISABLED not true. */
export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = env.OTEL_TRACES_EXPORTER?.trim();
  if (exporters) return exporters !== 'none';
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/**
 * Starts the OpenTelemetry SDK when the environment asks for traces (once per process). Metrics stay on
 * Prometheus (/metrics) and logs on stdout, so the SDK's own metric and log exporters are off unless set.
 */
export async function startTracing(serviceName: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  if (tracingOn || !tracingRequested(env)) return tracingOn;
  env.OTEL_SERVICE_NAME ||= serviceName;
  env.OTEL_METRICS_EXPORTER ||= 'none';
  env.OTEL_LOGS_EXPORTER ||= 'none';
  // Loaded only when wanted: a server without tracing never loads the SDK and its exporters.
  const { NodeSDK } = await import('@opentelemetry/sdk-node');
  const sdk = new NodeSDK();
  sdk.start();
  shutdownSdk = () => sdk.shutdown();
  cachedTracer = undefined;
  tracingOn = true;
  return true;
}

/** Exports what is buffered (tests, and before a process exits). */
export async function flushTracing(): Promise<void> {
  const provider = trace.getTracerProvider() as { getDelegate?: () => { forceFlush?: () => Promise<void> } };
  await provider.getDelegate?.().forceFlush?.();
}

export async function stopTracing(): Promise<void> {
  const stop = shutdownSdk;
  shutdownSdk = undefined;
  tracingOn = false;
  await stop?.();
  // Lets a later startTracing (another configuration, in tests) register its own globals.
  trace.disable();
  context.disable();
  propagation.disable();
}

// Looked up once per start: the global provider hands out a new proxy tracer on every call.
let cachedTracer: Tracer | undefined;
export const tracer = (): Tracer => {
  cachedTracer ??= trace.getTracer('persona-api');
  return cachedTracer;
};

/**
 * What the current work is for, as a bounded metric label: the operationId of the request, or the kind of
 * the job, being served. Model calls, credits and charges read it, so their metrics say which feature
 * consumed them without each call site passing it.
 */
const featureStore = new AsyncLocalStorage<string>();
export const currentFeature = () => featureStore.getStore() ?? 'other';

/** Runs `work` as part of `feature` and, when tracing is on, inside `span`'s context. */
export function runAs<T>(feature: string, span: Span | undefined, work: () => T): T {
  if (!span) return featureStore.run(feature, work);
  return featureStore.run(feature, () => context.with(trace.setSpan(context.active(), span), work));
}

/** The caller's `traceparent` (and `tracestate`) as the parent of a request's span. */
export const contextFromHeaders = (headers: Record<string, unknown>): Context => propagation.extract(ROOT_CONTEXT, headers);

export function startServerSpan(name: string, parent: Context, attributes: Attributes): Span {
  return tracer().startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
}

/**
 * A child of the active span; undefined when tracing is off, nothing is being traced (no orphan roots), or
 * the active span was sampled out: a parent-based sampler drops its children anyway, and skipping them here
 * makes an unsampled request cost what an untraced one does (no span, no attributes, no context switch).
 * `attributes` may be a function, built only for a span that will be recorded.
 */
export function startChildSpan(name: string, attributes: Attributes | (() => Attributes), kind: SpanKind = SpanKind.INTERNAL): Span | undefined {
  if (!tracingOn) return undefined;
  const parent = trace.getActiveSpan();
  if (!parent?.isRecording()) return undefined;
  return tracer().startSpan(name, { kind, attributes: typeof attributes === 'function' ? attributes() : attributes }, context.active());
}

export function endSpan(span: Span | undefined, error?: unknown): void {
  if (!span) return;
  if (error !== undefined) {
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
  }
  span.end();
}

/** Runs `work` in a child span of the active one (ffmpeg, parsers, outgoing fetches); just `work` when not tracing. */
export async function inSpan<T>(name: string, attributes: Attributes, work: () => Promise<T>, kind: SpanKind = SpanKind.INTERNAL): Promise<T> {
  const span = startChildSpan(name, attributes, kind);
  if (!span) return work();
  try {
    const result = await context.with(trace.setSpan(context.active(), span), work);
    endSpan(span);
    return result;
  } catch (error) {
    endSpan(span, error);
    throw error;
  }
}

/** The W3C trace context of the active span, to store with a job; undefined when not tracing. */
export function currentTraceCarrier(): Record<string, string> | undefined {
  if (!tracingOn || !trace.getActiveSpan()) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ? carrier : undefined;
}

/** A link to the span whose context `carrier` holds (the request that enqueued a job). */
export function linkFrom(carrier: unknown): Link[] {
  if (!carrier || typeof carrier !== 'object') return [];
  const spanContext = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, carrier as Record<string, string>));
  return spanContext ? [{ context: spanContext, attributes: { 'persona.link': 'enqueued_by' } }] : [];
}

/** A job run's span: a new trace (a job outlives its request) linked to the request that enqueued it. */
export function startJobSpan(kind: string, carrier: unknown, attributes: Attributes): Span | undefined {
  if (!tracingOn) return undefined;
  return tracer().startSpan(`job ${kind}`, { kind: SpanKind.CONSUMER, attributes, links: linkFrom(carrier), root: true });
}

/** `trace_id` and `span_id` of the active span for a log line; empty when not tracing. */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  if (!tracingOn) return {};
  const spanContext = trace.getActiveSpan()?.spanContext();
  return spanContext ? { trace_id: spanContext.traceId, span_id: spanContext.spanId } : {};
}
