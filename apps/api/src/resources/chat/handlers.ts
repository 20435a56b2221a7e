import { creditsForTokens, isEngineError, type EngineUsage, type GenerateResult } from '@persona-api/engine';
import type { components } from '@persona-api/types';
import type { Handler, Streamed } from '../../contract/handler-types.js';
import type { RequestContext } from '../../http/context.js';
import { apiError, type ApiError } from '../../http/errors.js';
import { clientDisconnectSignal } from '../../http/sse.js';
import { newId } from '../../lib/ids.js';
import { unix } from '../../lib/wire.js';
import { readChatRequest, type ChatRequest } from '../../ai/chat.js';
import { drainEngineStream, openModelStream } from '../../ai/engine-stream.js';
import { apiErrorOf, generateUnderHold, prepareModelCall, settleModelCall, usageOfCutStream, type PreparedCall } from '../../ai/model-call.js';
import { personaIdOf } from '../../ai/persona-header.js';

type ChatCompletion = components['schemas']['ChatCompletion'];
type ChatChunk = components['schemas']['ChatCompletionChunk'];
type ChatUsage = components['schemas']['ChatCompletionUsage'];
type ChatStreamError = components['schemas']['ChatCompletionStreamError'];

/** The longest `delta.content` / arguments piece of one chunk (the contract's bound). */
const MAX_DELTA = 10_000;

interface Call {
  id: string;
  created: number;
  personaId: string;
  request: ChatRequest;
  prepared: PreparedCall;
  body: Record<string, unknown>;
  /** Stored beside the completion, so a list reads it without the request (stored.ts). */
  metadata: Record<string, string>;
}

const chatUsage = (usage: EngineUsage, credits: number): ChatUsage => ({
  prompt_tokens: usage.input_tokens,
  completion_tokens: usage.output_tokens,
  total_tokens: usage.input_tokens + usage.output_tokens,
  credits_used: credits,
});

function completionOf(call: Call, result: GenerateResult, credits: number): ChatCompletion {
  const toolCalls = result.tool_calls.map((tool) => ({
    id: tool.call_id,
    type: 'function' as const,
    function: { name: tool.name, arguments: tool.arguments },
  }));
  return {
    id: call.id,
    object: 'chat.completion',
    created: call.created,
    model: 'service-1',
    persona_id: call.personaId,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: toolCalls.length > 0 && result.text.length === 0 ? null : result.text,
          refusal: null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          ...(call.request.jsonSchema ? { parsed: result.parsed as ChatCompletion['choices'][number]['message']['parsed'] } : {}),
        },
        finish_reason: result.finish_reason,
        logprobs: null,
      },
    ],
    usage: chatUsage(result.usage, credits),
  };
}

/** json_schema output that does not validate (after the engine's retry): nothing is charged. */
const invalidStructuredOutput = (call: Call, result: GenerateResult) =>
  call.request.jsonSchema && result.tool_calls.length === 0 && result.structured_output_error !== null;

function structuredOutputError(result: GenerateResult): ApiError {
  return apiError(
    'structured_output_invalid',
    `The model's output did not match the response_format schema: ${result.structured_output_error ?? ''}`.slice(0, 2000),
  );
}

async function complete(call: Call, ctx: RequestContext, signal: AbortSignal): Promise<ChatCompletion> {
  const result = await generateUnderHold(ctx, call.prepared, signal);
  const invalid = invalidStructuredOutput(call, result);
  const settled = await settleModelCall(ctx, call.prepared, {
    id: call.id,
    object: 'chat.completion',
    status: invalid ? 'failed' : 'completed',
    stream: false,
    usage: result.usage,
    credits: invalid ? 0 : creditsForTokens(result.usage.input_tokens + result.usage.output_tokens),
    request: call.body,
    metadata: call.metadata,
    body: (charged) => completionOf(call, result, charged) as unknown as Record<string, unknown>,
  });
  if (invalid) throw structuredOutputError(result);
  if (settled.budgetAlert) ctx.setHeader('budget-alert', settled.budgetAlert);
  return settled.body as unknown as ChatCompletion;
}

function pieces(text: string): string[] {
  const out: string[] = [];
  for (let index = 0; index < text.length; index += MAX_DELTA) out.push(text.slice(index, index + MAX_DELTA));
  return out;
}

async function completeStreamed(call: Call, ctx: RequestContext, signal: AbortSignal): Promise<Streamed> {
  const opened = await openModelStream(ctx, call.prepared, signal);
  if ('abandoned' in opened) return opened.abandoned;
  const { started, stream } = opened;
  const chunk = (delta: ChatChunk['choices'][number]['delta'], finish: ChatChunk['choices'][number]['finish_reason'] = null): ChatChunk => ({
    id: call.id,
    object: 'chat.completion.chunk',
    created: call.created,
    model: 'service-1',
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  });
  // Unnamed events, as OpenAI's chat stream.
  const send = (data: ChatChunk | ChatStreamError) => stream.send(data);

  let text = '';
  const calls = new Map<number, { call_id: string; name: string; arguments: string }>();
  send(chunk({ role: 'assistant', content: '' }));
  const { result, failure } = await drainEngineStream(
    started,
    (event) => {
      if (event.type === 'text_delta') {
        text += event.delta;
        for (const piece of pieces(event.delta)) send(chunk({ content: piece }));
      } else if (event.type === 'tool_call_start') {
        calls.set(event.index, { call_id: event.call_id, name: event.name, arguments: '' });
        send(chunk({ tool_calls: [{ index: event.index, id: event.call_id, type: 'function', function: { name: event.name, arguments: '' } }] }));
      } else if (event.type === 'tool_call_arguments_delta' || event.type === 'tool_call_done') {
        const call = calls.get(event.index);
        if (!call) return;
        // `done` carries the complete arguments: send whatever the deltas did not.
        const delta =
          event.type === 'tool_call_done' ? (event.arguments.startsWith(call.arguments) ? event.arguments.slice(call.arguments.length) : '') : event.delta;
        call.arguments += delta;
        for (const piece of pieces(delta)) send(chunk({ tool_calls: [{ index: event.index, function: { arguments: piece } }] }));
      }
    },
    () => stream.drained(),
  );

  const errorLine = (error: ApiError): ChatStreamError => ({ object: 'error', error: error.toBody().error });
  try {
    if (signal.aborted || stream.closed) {
      // The client left: the upstream request is closed already; charge for what was sent.
      const usage = usageOfCutStream(call.prepared, text, [...calls.values()]);
      await settleModelCall(ctx, call.prepared, {
        id: call.id,
        object: 'chat.completion',
        status: 'cancelled',
        stream: true,
        usage,
        credits: creditsForTokens(usage.input_tokens + usage.output_tokens),
        request: call.body,
        body: (charged) => ({ id: call.id, object: 'chat.completion', created: call.created, partial_content: text, usage: chatUsage(usage, charged) }),
      });
      return stream.abandon();
    }
    if (!result || invalidStructuredOutput(call, result)) {
      // A failure after the stream started is one error line, then [DONE]; nothing is charged.
      const error = result ? structuredOutputError(result) : apiErrorOf(ctx, failure ?? new Error('The engine stream ended without a result.'));
      const usage = result?.usage ?? ((isEngineError(failure) && failure.usage) || usageOfCutStream(call.prepared, text, [...calls.values()]));
      await settleModelCall(ctx, call.prepared, {
        id: call.id,
        object: 'chat.completion',
        status: 'failed',
        stream: true,
        usage,
        credits: 0,
        request: call.body,
        body: () => ({ id: call.id, object: 'chat.completion', created: call.created, error: error.toBody().error, usage: chatUsage(usage, 0) }),
      });
      send(errorLine(error));
      return await stream.done();
    }
    const settled = await settleModelCall(ctx, call.prepared, {
      id: call.id,
      object: 'chat.completion',
      status: 'completed',
      stream: true,
      usage: result.usage,
      credits: creditsForTokens(result.usage.input_tokens + result.usage.output_tokens),
      request: call.body,
      metadata: call.metadata,
      body: (charged) => completionOf(call, result, charged) as unknown as Record<string, unknown>,
    });
    send(chunk({}, result.finish_reason));
    if (call.request.includeUsage) send({ ...chunk({}), choices: [], usage: (settled.body as unknown as ChatCompletion).usage });
    return await stream.done();
  } catch (error) {
    ctx.log.error({ err: error }, 'streamed chat completion failed after it started');
    if (stream.closed) return stream.abandon();
    send(errorLine(apiErrorOf(ctx, error)));
    return await stream.done();
  }
}

export const createChatCompletion: Handler<'createChatCompletion'> = async ({ body, headers }, ctx) => {
  const personaId = personaIdOf(body.persona_id, headers);
  const request = readChatRequest(body);
  const prepared = await prepareModelCall(ctx, { personaId, request: request.engine, overlapHold: true, stream: request.stream, keep: body.store !== false });
  const call: Call = {
    id: newId('chatcmpl'),
    created: unix(ctx.now()),
    personaId,
    request,
    prepared,
    body: body as unknown as Record<string, unknown>,
    metadata: body.metadata ?? {},
  };
  const signal = clientDisconnectSignal(ctx.reply);
  return request.stream ? completeStreamed(call, ctx, signal) : complete(call, ctx, signal);
};
