import { EventSourceParserStream } from 'eventsource-parser/stream';
import { ApiError, StreamError, isRecord } from './errors.js';

/**
 * Turns the stream's events into the object the same request returns without streaming.
 * `result()` is undefined until the events that carry it have arrived.
 */
export interface StreamCollector {
  push(event: Record<string, unknown>): void;
  result(): unknown;
}

/**
 * A streamed response: an async iterable of the contract's typed events that ends at `data: [DONE]`.
 * Consume it once, with `for await`, or call `finalResponse()` to get the final object (after or instead
 * of iterating). Cancel with the `signal` passed to the call, with `abort()`, or by leaving the loop.
 */
export class EventStream<Event, Final> implements AsyncIterable<Event> {
  /** The HTTP response whose body is being read. */
  readonly response: Response;
  /** The server's `X-Request-Id`. */
  readonly requestId: string | null;
  readonly #body: NonNullable<Response['body']>;
  readonly #collector: StreamCollector;
  readonly #controller: AbortController;
  #iterating = false;
  #finished = false;

  constructor(response: Response, collector: StreamCollector, controller: AbortController) {
    if (!response.body) throw new StreamError('The streamed response has no body.');
    this.response = response;
    this.requestId = response.headers.get('x-request-id');
    this.#body = response.body;
    this.#collector = collector;
    this.#controller = controller;
  }

  /** Stops the stream: the connection is closed and a pending iteration rejects with an AbortError. */
  abort(reason?: unknown): void {
    this.#controller.abort(reason);
  }

  [Symbol.asyncIterator](): AsyncIterator<Event> {
    if (this.#iterating) throw new StreamError('A stream can be iterated only once.');
    this.#iterating = true;
    return this.#events();
  }

  /**
   * Reads the rest of the stream and resolves to the final object: the response of a `response.completed`
   * (or `response.failed`) event, the generation of `generation.completed`, the message of
   * `agent.message.completed`, or a `chat.completion` assembled from chat chunks.
   */
  async finalResponse(): Promise<Final> {
    if (!this.#iterating) {
      for await (const _event of this) {
        // draining: the collector sees every event
      }
    } else if (!this.#finished) {
      throw new StreamError('finalResponse() needs the whole stream, but a loop is reading it or left it early.');
    }
    const final = this.#collector.result();
    if (final === undefined) throw new StreamError('The stream ended without the event that carries the final object.');
    return final as Final;
  }

  async *#events(): AsyncGenerator<Event, void, undefined> {
    const reader = this.#body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
    try {
      for (;;) {
        const { done, value: message } = await reader.read();
        if (done) throw new StreamError('The stream ended before `data: [DONE]`.');
        if (message.data === '[DONE]') break;
        const payload = parseJson(message.data);
        if (!isRecord(payload)) throw new StreamError(`Unexpected stream payload: ${message.data.slice(0, 200)}`);
        if (isErrorPayload(payload)) throw ApiError.fromStreamEvent(this.response, payload);
        this.#collector.push(payload);
        yield payload as Event;
      }
      this.#finished = true;
    } finally {
      // On [DONE], an error or a `break` in the caller's loop: release the connection.
      await reader.cancel().catch(() => {});
    }
  }
}

function parseJson(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch (cause) {
    throw new StreamError(`A stream event's data is not JSON: ${data.slice(0, 200)}`, { cause });
  }
}

/** `{"type": "error", …}` (named-event streams) or `{"error": {…}}` (chat chunks). */
function isErrorPayload(payload: Record<string, unknown>): boolean {
  return payload.type === 'error' || (payload.type === undefined && payload.object === undefined && isRecord(payload.error));
}

/**
 * Picks the collector from the first event: chat chunks (`object: chat.completion.chunk`) are assembled,
 * every other stream is read for its terminal event.
 */
export function defaultCollector(request: Record<string, unknown>): StreamCollector {
  let inner: StreamCollector | undefined;
  return {
    push(event) {
      inner ??= event.object === 'chat.completion.chunk' ? chatCompletionCollector(request) : terminalEventCollector();
      inner.push(event);
    },
    result: () => inner?.result(),
  };
}

const TERMINAL_EVENT = /\.(completed|failed|incomplete)$/;
const EVENT_BOOKKEEPING = new Set(['type', 'sequence_number']);

/**
 * The default collector, generic over the contract's named-event streams: the last event whose type ends
 * in `.completed` / `.failed` / `.incomplete` carries the final object as its one object-valued field
 * (`response`, `generation`, `message`). The type tests prove this holds for every streaming operation.
 */
export function terminalEventCollector(): StreamCollector {
  let final: unknown;
  return {
    push(event) {
      if (typeof event.type !== 'string' || !TERMINAL_EVENT.test(event.type)) return;
      const carried = Object.entries(event).filter(([key, value]) => !EVENT_BOOKKEEPING.has(key) && isRecord(value));
      if (carried.length === 1) final = carried[0]?.[1];
    },
    result: () => final,
  };
}

interface ToolCallDraft {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/**
 * Assembles a `chat.completion` from `chat.completion.chunk`s (the legacy unnamed-chunk format): content
 * and tool-call fragments are concatenated, the finish reason and usage taken from the chunks that carry
 * them. `persona_id` and the structured-output setting come from the request.
 */
export function chatCompletionCollector(request: Record<string, unknown>): StreamCollector {
  let head: { id: unknown; created: unknown; model: unknown } | undefined;
  let content: string | null = null;
  let finishReason: unknown = null;
  let usage: unknown;
  const toolCalls = new Map<number, ToolCallDraft>();
  const responseFormat = isRecord(request.response_format) ? request.response_format : undefined;

  return {
    push(chunk) {
      head ??= { id: chunk.id, created: chunk.created, model: chunk.model };
      if (isRecord(chunk.usage)) usage = chunk.usage;
      for (const choice of Array.isArray(chunk.choices) ? chunk.choices : []) {
        if (!isRecord(choice)) continue;
        if (choice.finish_reason != null) finishReason = choice.finish_reason;
        const delta = isRecord(choice.delta) ? choice.delta : {};
        if (typeof delta.content === 'string') content = (content ?? '') + delta.content;
        for (const fragment of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
          if (!isRecord(fragment) || typeof fragment.index !== 'number') continue;
          const draft = toolCalls.get(fragment.index) ?? { id: '', type: 'function', function: { name: '', arguments: '' } };
          const fn = isRecord(fragment.function) ? fragment.function : {};
          if (typeof fragment.id === 'string') draft.id = fragment.id;
          if (typeof fn.name === 'string') draft.function.name += fn.name;
          if (typeof fn.arguments === 'string') draft.function.arguments += fn.arguments;
          toolCalls.set(fragment.index, draft);
        }
      }
    },
    result() {
      if (!head || finishReason === null) return undefined;
      if (usage === undefined) {
        throw new StreamError('The chat stream carried no usage chunk; send `stream_options: { include_usage: true }`.');
      }
      const message: Record<string, unknown> = { role: 'assistant', content, refusal: null };
      if (toolCalls.size > 0) message.tool_calls = [...toolCalls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
      if (responseFormat?.type === 'json_schema') message.parsed = content === null ? null : JSON.parse(content);
      return {
        ...head,
        object: 'chat.completion',
        persona_id: request.persona_id,
        choices: [{ index: 0, message, finish_reason: finishReason, logprobs: null }],
        usage,
      };
    },
  };
}
