import { creditsForTokens, isEngineError, type EngineStreamEvent, type EngineUsage, type GenerateResult } from '@persona-api/engine';
import { citationsOf, offlineResearchResult, runServerTools, sourcesMessage, wantsServerTools, type ServerResearch } from '../../ai/tools/server-tools.js';
import type { Handler, Streamed } from '../../contract/handler-types.js';
import type { RequestContext } from '../../http/context.js';
import { clientDisconnectSignal, streamErrorEvent, streamFailure } from '../../http/sse.js';
import { newId } from '../../lib/ids.js';
import { unix } from '../../lib/wire.js';
import { drainEngineStream, openModelStream } from '../../ai/engine-stream.js';
import {
  ANALYSIS_CREDITS,
  apiErrorOf,
  generateUnderHold,
  prepareModelCall,
  promptTokensOf,
  responseErrorOf,
  settleModelCall,
  usageOfCutStream,
  withPersona,
  type PreparedCall,
  type Settlement,
} from '../../ai/model-call.js';
import { type Annotate, outputOf, ResponseEventWriter, responseObject, responseUsage, type ResponseState } from '../../ai/responses/output.js';
import {
  conversationIdOf,
  inputCharacters,
  MAX_INPUT_CHARS,
  readResponseRequest,
  type ResolvedInputItem,
  type ResponseObject,
  type ResponseRequest,
} from '../../ai/responses/request.js';
import { errors } from '../../http/errors.js';
import { appendTurn, type ConversationRead, readConversationTurns } from '../conversations/turns.js';
import { outputCharacters, restoreConversation } from '../../ai/responses/conversation.js';
import { resolveItemReferences } from '../../ai/responses/items.js';
import { personaIdOf } from '../../ai/persona-header.js';
import { deleteStoredResponse, findStoredResponse } from './stored.js';
import { listInputItems } from './input-items.js';

interface Call {
  id: string;
  createdAt: number;
  request: ResponseRequest;
  prepared: PreparedCall;
  body: Record<string, unknown>;
  /** What the server-side tools ran and found, when they were offered (DECISIONS.md, Responses). */
  research: ServerResearch | null;
  /** The offline rule's answer from the server tools' sources, computed instead of the engine's. */
  override: GenerateResult | null;
  /** Characters of this turn's own input (references resolved), stored for `previous_response_id`. */
  inputChars: number;
  /** This turn's own input, references resolved: what a conversation gets appended. */
  input: string | ResolvedInputItem[];
  /** The conversation it read and, once completed, is appended to (`conversation`). */
  conversation: ConversationRead | null;
}

/** The response object of this call in a given state (stored, returned, and sent in stream events). */
function snapshotOf(call: Call, state: ResponseState): ResponseObject {
  const object = responseObject(call.id, call.createdAt, call.request.settings, state, {
    jsonSchema: call.request.jsonSchema,
    analysis: call.request.analysis,
  });
  // `server_tool_calls` only on the final response, and only when tools ran.
  if (state.status !== 'in_progress' && call.research && call.research.calls.length > 0) object.server_tool_calls = call.research.calls;
  return object;
}

/** The annotations of this call's text: its citations of the server tools' sources. */
const annotateFor =
  (call: Call): Annotate =>
  (text) =>
    call.research ? citationsOf(text, call.research.sources) : [];

/** The answer's usage with the server tools' selection round added. */
function withResearch(call: Call, usage: EngineUsage): EngineUsage {
  if (!call.research) return usage;
  return {
    ...usage,
    input_tokens: usage.input_tokens + call.research.usage.input_tokens,
    output_tokens: usage.output_tokens + call.research.usage.output_tokens,
  };
}

/** The offline rule's answer as engine stream events (word deltas, usage, done). */
async function* eventsOf(result: GenerateResult): AsyncIterable<EngineStreamEvent> {
  for (const delta of result.text.match(/\s*\S+\s*/g) ?? []) yield { type: 'text_delta', delta };
  yield { type: 'usage', usage: result.usage };
  yield { type: 'done', result };
}

/**
 * settleModelCall with the fields every outcome of a response shares; `state` is given the credits
 * actually charged, which the stored and returned response's usage reports.
 */
async function settleResponse(
  ctx: RequestContext,
  call: Call,
  { state, ...settlement }: Pick<Settlement, 'status' | 'stream' | 'usage' | 'credits'> & { state: (charged: number) => ResponseState },
): Promise<{ response: ResponseObject; budgetAlert: string | undefined }> {
  const { output } = state(settlement.credits);
  const settled = await settleModelCall(ctx, call.prepared, {
    ...settlement,
    id: call.id,
    object: 'response',
    request: call.body,
    turnChars: call.inputChars + outputCharacters(output),
    body: (charged) => snapshotOf(call, state(charged)) as Record<string, unknown>,
    conversation: call.conversation,
    // A completed turn joins its conversation in the same statement as its charge (DECISIONS.md, Conversations).
    alsoWrite: call.conversation && settlement.status === 'completed' ? appendTurn(ctx, call.conversation.id, call.input, output) : null,
  });
  return { response: settled.body as ResponseObject, budgetAlert: settled.budgetAlert };
}

/**
 * The terminal state of a generated answer. Output that does not validate against the json_schema is
 * `failed` with `structured_output_invalid`, the raw text kept in `output` (DECISIONS.md); it costs nothing.
 */
function outcome(call: Call, result: GenerateResult): { state: Omit<ResponseState, 'output' | 'usage'>; credits: number } {
  const invalid = call.request.jsonSchema && result.tool_calls.length === 0 && result.structured_output_error !== null;
  if (invalid) {
    return {
      state: {
        status: 'failed',
        error: { code: 'structured_output_invalid', message: (result.structured_output_error ?? '').slice(0, 2000) },
        parsed: null,
        analysis: null,
      },
      credits: 0,
    };
  }
  const usage = withResearch(call, result.usage);
  const total = usage.input_tokens + usage.output_tokens;
  return {
    state: { status: 'completed', incomplete: result.finish_reason === 'length', parsed: result.parsed, analysis: result.analysis },
    credits: creditsForTokens(total) + (call.request.analysis ? ANALYSIS_CREDITS : 0) + (call.research?.credits ?? 0),
  };
}

async function respond(call: Call, ctx: RequestContext, signal: AbortSignal): Promise<ResponseObject> {
  // Nothing was sent yet: an engine failure is an HTTP error (502 upstream_error, 504 upstream_timeout).
  const result = call.override ?? (await generateUnderHold(ctx, call.prepared, signal));
  const { state, credits } = outcome(call, result);
  const output = outputOf(result, annotateFor(call));
  const usage = withResearch(call, result.usage);
  const settled = await settleResponse(ctx, call, {
    status: state.status === 'failed' ? 'failed' : 'completed',
    stream: false,
    usage,
    credits,
    state: (charged) => ({ ...state, output, usage: responseUsage(usage, charged) }),
  });
  if (settled.budgetAlert) ctx.setHeader('budget-alert', settled.budgetAlert);
  return settled.response;
}

async function respondStreamed(call: Call, ctx: RequestContext, signal: AbortSignal): Promise<Streamed> {
  const opened = await openModelStream(ctx, call.prepared, signal, call.override ? eventsOf(call.override) : undefined);
  if ('abandoned' in opened) return opened.abandoned;
  const { started, stream } = opened;
  const writer = new ResponseEventWriter((event) => stream.send(event, event.type), annotateFor(call));
  writer.start(snapshotOf(call, { status: 'in_progress', output: [], usage: null }));

  const { result, failure } = await drainEngineStream(
    started,
    (event) => {
      if (event.type === 'text_delta') writer.textDelta(event.delta);
      else if (event.type === 'tool_call_start') writer.toolCallStart(event.index, event.call_id, event.name);
      else if (event.type === 'tool_call_arguments_delta') writer.toolCallDelta(event.index, event.delta);
      else if (event.type === 'tool_call_done') writer.toolCallDone(event.index, event.arguments);
    },
    () => stream.drained(),
  );

  try {
    if (signal.aborted || stream.closed) {
      // The client left: the upstream request is closed already; charge for what was sent.
      const usage = usageOfCutStream(call.prepared, writer.text, writer.calls);
      await settleResponse(ctx, call, {
        status: 'cancelled',
        stream: true,
        usage,
        credits: creditsForTokens(usage.input_tokens + usage.output_tokens),
        state: (charged) => ({ status: 'in_progress', output: writer.outputSoFar(), usage: responseUsage(usage, charged) }),
      });
      return stream.abandon();
    }
    if (!result) {
      // The model server failed after the stream started: response.failed, nothing charged.
      const error = responseErrorOf(ctx, failure ?? new Error('The engine stream ended without a result.'));
      const usage = (isEngineError(failure) && failure.usage) || usageOfCutStream(call.prepared, writer.text, writer.calls);
      const settled = await settleResponse(ctx, call, {
        status: 'failed',
        stream: true,
        usage,
        credits: 0,
        state: () => ({ status: 'failed', error, output: writer.outputSoFar(), usage: responseUsage(usage, 0) }),
      });
      writer.finish(settled.response);
      return await stream.done();
    }
    const { state, credits } = outcome(call, result);
    writer.finishItems(result.finish_reason === 'length');
    const usage = withResearch(call, result.usage);
    const settled = await settleResponse(ctx, call, {
      status: state.status === 'failed' ? 'failed' : 'completed',
      stream: true,
      usage,
      credits,
      state: (charged) => ({ ...state, output: writer.output, usage: responseUsage(usage, charged) }),
    });
    writer.finish(settled.response);
    return await stream.done();
  } catch (error) {
    // Not tied to a generated response (e.g. the database failed while storing it): an `error` event.
    ctx.log.error({ err: error }, 'streamed response failed after it started');
    if (stream.closed) return stream.abandon();
    stream.send(streamErrorEvent(writer.nextSequence(), streamFailure(error, ctx.requestId, 'the response')), 'error');
    return await stream.done();
  }
}

type CreateInput = Parameters<Handler<'createResponse'>>[0];

/**
 * A `/responses` body read as the call reads it (DECISIONS.md, Responses): the persona, `input` with its
 * references resolved, the turns its `previous_response_id` or `conversation` restores within what `input`
 * leaves of the limit, and the engine request. One reading for the call and for its input-token count.
 */
async function readCallBody(ctx: RequestContext, body: CreateInput['body'], headers: CreateInput['headers']) {
  const personaId = personaIdOf(body.persona_id, headers);
  if (body.conversation != null && body.previous_response_id) {
    throw errors.parameterConflict('conversation', 'Send either conversation or previous_response_id: a conversation keeps its own history.');
  }
  if (body.conversation != null && body.store === false) {
    throw errors.parameterConflict('store', 'A conversation keeps every turn: send store: false without conversation, or keep the turn.');
  }
  const input = await resolveItemReferences(ctx, body.input);
  const inputChars = inputCharacters(input);
  // An input over the limit alone is readResponseRequest's 400, without reading the chain or the conversation.
  const bounds = { budget: MAX_INPUT_CHARS - inputChars, truncation: body.truncation ?? 'disabled' } as const;
  let history: ResolvedInputItem[] = [];
  let conversation: ConversationRead | null = null;
  if (inputChars <= MAX_INPUT_CHARS) {
    if (body.previous_response_id) history = await restoreConversation(ctx, body.previous_response_id, bounds);
    else if (body.conversation != null) ({ history, read: conversation } = await readConversationTurns(ctx, conversationIdOf(body.conversation), bounds));
  }
  return { personaId, input, inputChars, conversation, request: readResponseRequest(body, input, personaId, history, inputChars) };
}

export const countResponseInputTokens: Handler<'countResponseInputTokens'> = async ({ body, headers }, ctx) => {
  const read = await readCallBody(ctx, body, headers);
  const { request } = await withPersona(ctx, read.personaId, read.request.engine);
  const inputTokens = promptTokensOf(request);
  return { object: 'response.input_tokens', input_tokens: inputTokens, credits: creditsForTokens(inputTokens) };
};

export const createResponse: Handler<'createResponse'> = async ({ body, headers }, ctx) => {
  const { personaId, input, inputChars, conversation, request } = await readCallBody(ctx, body, headers);
  const prepared = await prepareModelCall(ctx, {
    personaId,
    request: request.engine,
    extraCredits: request.analysis ? ANALYSIS_CREDITS : 0,
    overlapHold: true,
    stream: request.stream,
    keep: body.store !== false,
  });
  // Server-side tools, when the question asks for sources (DECISIONS.md): run before the answer, their
  // passages given to the model to cite; offline, the answer is the extractive rule over them.
  let research: ServerResearch | null = null;
  let override: GenerateResult | null = null;
  if (wantsServerTools(prepared.request)) {
    // The tools are paid from the hold's workspace: taken first.
    await prepared.held;
    research = await runServerTools(ctx, prepared.request, prepared.workspaceId).catch((error: unknown) => {
      throw apiErrorOf(ctx, error);
    });
    const message = sourcesMessage(research);
    if (message) {
      prepared.request = { ...prepared.request, messages: [...prepared.request.messages, message] };
      if (ctx.engine.kind === 'offline') {
        const question = [...prepared.request.messages].reverse().find((entry) => entry.role === 'user')?.content ?? '';
        override = offlineResearchResult(question, research, promptTokensOf(prepared.request));
      }
    }
  }
  const call: Call = {
    id: newId('resp'),
    createdAt: unix(ctx.now()),
    request,
    prepared,
    body: body as unknown as Record<string, unknown>,
    research,
    override,
    inputChars,
    input,
    conversation,
  };
  // A client that goes away cancels the model call (and closes the upstream connection).
  const signal = clientDisconnectSignal(ctx.reply);
  return request.stream ? respondStreamed(call, ctx, signal) : respond(call, ctx, signal);
};

export const getResponse: Handler<'getResponse'> = async ({ params }, ctx) => findStoredResponse(ctx.db, ctx.auth.accountId, params.id);

export const deleteResponse: Handler<'deleteResponse'> = async ({ params }, ctx) => {
  await deleteStoredResponse(ctx.db, ctx.auth.accountId, params.id);
  return { id: params.id, object: 'response', deleted: true };
};

export const listResponseInputItems: Handler<'listResponseInputItems'> = async ({ params, query }, ctx) => listInputItems(ctx, params.id, query ?? {});
