import { SpanKind, type Span } from '@opentelemetry/api';
import { EngineError, type Engine, type EngineStreamEvent, type EngineUsage } from '@persona-api/engine';
import { modelCallDuration, modelCalls, modelTimeToFirstToken, modelTokens } from './metrics.js';
import { currentFeature, endSpan, startChildSpan } from './tracing.js';

/** `ok`, or the engine's error code (a closed list), as the outcome label. */
const outcomeOf = (error: unknown) => (error instanceof EngineError ? error.code : 'internal_error');

/**
 * One model call's metrics and span, with OpenTelemetry's GenAI attributes (gen_ai.operation.name,
 * gen_ai.request.model, gen_ai.usage.*, gen_ai.response.finish_reasons). `feature` in metrics is the
 * operationId or job kind the call serves; the engine feature (persona profile, news summary…) is a span attribute.
 */
function beginModelCall(engine: Engine, engineFeature: string | null, maxTokens: number | undefined) {
  const model = engine.describe().upstream_model ?? 'offline';
  const feature = currentFeature();
  const startedAt = performance.now();
  let firstTokenAt: number | undefined;
  const span: Span | undefined = startChildSpan(
    `chat ${model}`,
    {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': engine.kind === 'offline' ? 'persona.offline' : 'openai',
      'gen_ai.request.model': model,
      ...(maxTokens !== undefined ? { 'gen_ai.request.max_tokens': maxTokens } : {}),
      ...(engineFeature ? { 'persona.engine.feature': engineFeature } : {}),
      'persona.feature': feature,
    },
    SpanKind.CLIENT,
  );
  return {
    firstToken() {
      if (firstTokenAt !== undefined) return;
      firstTokenAt = performance.now();
      const seconds = (firstTokenAt - startedAt) / 1000;
      modelTimeToFirstToken.observe({ model, feature }, seconds);
      span?.setAttribute('gen_ai.response.time_to_first_token', seconds);
      span?.addEvent('gen_ai.first_token');
    },
    finish(result: { usage?: EngineUsage | undefined; finishReason?: string; responseModel?: string }, error?: unknown) {
      const outcome = error === undefined ? 'ok' : outcomeOf(error);
      modelCalls.inc({ model, feature, outcome });
      modelCallDuration.observe({ model, feature, outcome }, (performance.now() - startedAt) / 1000);
      const usage = result.usage ?? (error instanceof EngineError ? error.usage : undefined);
      if (usage) {
        modelTokens.inc({ model, feature, type: 'input' }, usage.input_tokens);
        modelTokens.inc({ model, feature, type: 'output' }, usage.output_tokens);
        span?.setAttributes({ 'gen_ai.usage.input_tokens': usage.input_tokens, 'gen_ai.usage.output_tokens': usage.output_tokens });
      }
      if (result.finishReason) span?.setAttribute('gen_ai.response.finish_reasons', [result.finishReason]);
      if (result.responseModel) span?.setAttribute('gen_ai.response.model', result.responseModel);
      if (error !== undefined) span?.setAttribute('error.type', outcome);
      endSpan(span, error);
    },
  };
}

async function* observedStream(
  events: AsyncIterable<EngineStreamEvent>,
  call: ReturnType<typeof beginModelCall>,
): AsyncGenerator<EngineStreamEvent, void, undefined> {
  let usage: EngineUsage | undefined;
  let finishReason: string | undefined;
  let responseModel: string | undefined;
  let failure: unknown;
  try {
    for await (const event of events) {
      if (event.type === 'usage') usage = event.usage;
      else if (event.type === 'done') {
        usage = event.result.usage;
        finishReason = event.result.finish_reason;
        responseModel = event.result.model;
      } else call.firstToken();
      yield event;
    }
  } catch (error) {
    failure = error;
    throw error;
  } finally {
    // A stream left early (the client went away) ends without `done`: counted as `aborted`.
    const error = failure ?? (finishReason === undefined ? new EngineError('aborted', 'stream ended before its result') : undefined);
    call.finish({ usage, ...(finishReason ? { finishReason } : {}), ...(responseModel ? { responseModel } : {}) }, error);
  }
}

type CallResult = Parameters<ReturnType<typeof beginModelCall>['finish']>[0];

async function observedCall<T>(call: ReturnType<typeof beginModelCall>, work: Promise<T>, resultOf: (result: T) => CallResult): Promise<T> {
  try {
    const result = await work;
    call.finish(resultOf(result));
    return result;
  } catch (error) {
    call.finish({}, error);
    throw error;
  }
}

/**
 * The engine handlers and jobs get (services.engine), with every call measured: calls, duration, time to
 * first token, tokens by model and feature, and a GenAI span. Delegates to `engine` (its own internal
 * calls are not counted twice).
 */
const observed = new WeakSet<Engine>();

export function observedEngine(engine: Engine): Engine {
  if (observed.has(engine)) return engine;
  const wrapped: Engine = {
    get kind() {
      return engine.kind;
    },
    describe: () => engine.describe(),
    inputTokensOf: (feature, input) => engine.inputTokensOf(feature, input),
    generate: (request, signal) =>
      observedCall(beginModelCall(engine, null, request.max_output_tokens ?? undefined), engine.generate(request, signal), (result) => ({
        usage: result.usage,
        finishReason: result.finish_reason,
        responseModel: result.model,
      })),
    stream: (request, signal) => observedStream(engine.stream(request, signal), beginModelCall(engine, null, request.max_output_tokens ?? undefined)),
    streamText: (feature, input, options) => observedStream(engine.streamText(feature, input, options), beginModelCall(engine, feature.name, undefined)),
    run: (feature, input, options) =>
      observedCall(beginModelCall(engine, feature.name, undefined), engine.run(feature, input, options), (result) => ({ usage: result.usage })),
    generatePersona: (input, signal) => observedCall(beginModelCall(engine, 'persona_profile', undefined), engine.generatePersona(input, signal), () => ({})),
    suggestPersonas: (input, signal) =>
      observedCall(beginModelCall(engine, 'persona_suggestions', undefined), engine.suggestPersonas(input, signal), () => ({})),
  };
  observed.add(wrapped);
  return wrapped;
}
