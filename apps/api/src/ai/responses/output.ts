import type { EngineUsage, GenerateResult } from '@persona-api/engine';
import type { components } from '@persona-api/types';
import { newId } from '../../lib/ids.js';
import type { ResponseObject, ResponseSettings } from './request.js';

type OutputItem = components['schemas']['ResponseOutputItem'];
type OutputMessage = components['schemas']['ResponseOutputMessage'];
type FunctionCallItem = components['schemas']['ResponseFunctionCall'];
type StreamEvent = components['schemas']['ResponseStreamEvent'];
type ResponseUsage = components['schemas']['ResponseUsage'];
type ResponseError = components['schemas']['ResponseError'];
type ItemStatus = OutputMessage['status'];
type UrlCitation = components['schemas']['ResponseUrlCitation'];
/** The annotations of a finished message's text (citations of server-side tool sources). */
export type Annotate = (text: string) => UrlCitation[];
const noAnnotations: Annotate = () => [];

/** The longest `delta` of one event (the contract's bound); longer engine deltas are split. */
const MAX_DELTA = 10_000;

export function responseUsage(usage: EngineUsage, creditsUsed: number): ResponseUsage {
  return {
    input_tokens: usage.input_tokens,
    input_tokens_details: { cached_tokens: usage.cached_tokens },
    output_tokens: usage.output_tokens,
    output_tokens_details: { reasoning_tokens: usage.reasoning_tokens },
    total_tokens: usage.input_tokens + usage.output_tokens,
    credits_used: creditsUsed,
  };
}

export interface ResponseState {
  status: ResponseObject['status'];
  output: OutputItem[];
  usage: ResponseUsage | null;
  error?: ResponseError | null;
  incomplete?: boolean;
  parsed?: Record<string, unknown> | null;
  analysis?: ResponseObject['analysis'];
}

/** A response object in the contract's field order; `parsed`/`analysis` only when they were asked for. */
export function responseObject(
  id: string,
  createdAt: number,
  settings: ResponseSettings,
  state: ResponseState,
  options: { jsonSchema: boolean; analysis: boolean },
): ResponseObject {
  const { object, model, persona_id, instructions, ...rest } = settings;
  return {
    id,
    object,
    created_at: createdAt,
    status: state.status,
    error: state.error ?? null,
    incomplete_details: state.incomplete ? { reason: 'max_output_tokens' } : null,
    model,
    persona_id,
    instructions,
    output: state.output,
    ...rest,
    usage: state.usage,
    // The contract types free-form JSON as an empty record.
    ...(options.jsonSchema ? { parsed: (state.parsed ?? null) as ResponseObject['parsed'] } : {}),
    ...(options.analysis ? { analysis: state.analysis ?? null } : {}),
  };
}

export function messageItem(text: string, status: ItemStatus, annotate: Annotate = noAnnotations): OutputMessage {
  return { id: newId('msg'), type: 'message', role: 'assistant', status, content: [{ type: 'output_text', text, annotations: annotate(text) }] };
}

/** The output of a non-streamed answer: the message (unless the model only called tools), then its calls. */
export function outputOf(result: GenerateResult, annotate: Annotate = noAnnotations): OutputItem[] {
  const items: OutputItem[] = [];
  if (result.text.length > 0 || result.tool_calls.length === 0)
    items.push(messageItem(result.text, result.finish_reason === 'length' ? 'incomplete' : 'completed', annotate));
  for (const call of result.tool_calls) {
    items.push({ id: newId('fc'), type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments, status: 'completed' });
  }
  return items;
}

function split(text: string): string[] {
  if (text.length <= MAX_DELTA) return [text];
  const parts: string[] = [];
  for (let index = 0; index < text.length; index += MAX_DELTA) parts.push(text.slice(index, index + MAX_DELTA));
  return parts;
}

type OpenItem =
  | { kind: 'message'; index: number; item: OutputMessage; text: string }
  | { kind: 'call'; index: number; item: FunctionCallItem; engineIndex: number };

/**
 * Turns the engine's stream into the contract's event sequence (DECISIONS.md, Responses): one item at a
 * time, `response.output_item.added` → its content events → `response.output_item.done`, with
 * `sequence_number` counting from 0. `send` writes one event; the caller writes `[DONE]`.
 */
export class ResponseEventWriter {
  private sequence = 0;
  private open: OpenItem | null = null;
  readonly output: OutputItem[] = [];
  /** What the client has been sent, for charging a stream it left. */
  text = '';
  readonly calls: { call_id: string; name: string; arguments: string }[] = [];
  private readonly callItems = new Map<number, { item: FunctionCallItem; call: { arguments: string } }>();

  constructor(
    private readonly sendEvent: (event: StreamEvent) => void,
    private readonly annotate: Annotate = noAnnotations,
  ) {}

  /** The sequence number the next event gets (for an `error` event written by the caller). */
  nextSequence(): number {
    return this.sequence++;
  }

  private emit(event: DistributiveOmit<StreamEvent, 'sequence_number'>): void {
    this.sendEvent({ ...event, sequence_number: this.sequence++ } as StreamEvent);
  }

  /** `response.created` and `response.in_progress`, with the in-progress snapshot. */
  start(snapshot: ResponseObject): void {
    this.emit({ type: 'response.created', response: snapshot });
    this.emit({ type: 'response.in_progress', response: snapshot });
  }

  textDelta(delta: string): void {
    if (delta.length === 0) return;
    const open = this.open?.kind === 'message' ? this.open : this.openMessage();
    for (const piece of split(delta)) {
      open.text += piece;
      this.text += piece;
      this.emit({ type: 'response.output_text.delta', item_id: open.item.id, output_index: open.index, content_index: 0, delta: piece });
    }
  }

  toolCallStart(engineIndex: number, callId: string, name: string): void {
    this.closeOpen('completed');
    const item: FunctionCallItem = { id: newId('fc'), type: 'function_call', call_id: callId, name, arguments: '', status: 'in_progress' };
    const index = this.output.length;
    this.output.push(item);
    const call = { call_id: callId, name, arguments: '' };
    this.calls.push(call);
    this.callItems.set(engineIndex, { item, call });
    this.open = { kind: 'call', index, item, engineIndex };
    this.emit({ type: 'response.output_item.added', output_index: index, item: { ...item } });
  }

  toolCallDelta(engineIndex: number, delta: string): void {
    const open = this.open;
    // Arguments of a call that is no longer the open item arrive complete with its done event.
    if (open?.kind !== 'call' || open.engineIndex !== engineIndex || delta.length === 0) return;
    for (const piece of split(delta)) {
      open.item.arguments += piece;
      const known = this.callItems.get(engineIndex);
      if (known) known.call.arguments = open.item.arguments;
      this.emit({ type: 'response.function_call_arguments.delta', item_id: open.item.id, output_index: open.index, delta: piece });
    }
  }

  toolCallDone(engineIndex: number, args: string): void {
    const open = this.open;
    if (open?.kind === 'call' && open.engineIndex === engineIndex) {
      // The engine's complete arguments are authoritative: send what the deltas did not.
      const missing = args.startsWith(open.item.arguments) ? args.slice(open.item.arguments.length) : '';
      if (missing) this.toolCallDelta(engineIndex, missing);
      this.setArguments(engineIndex, args);
      this.closeOpen('completed');
    } else {
      // A call closed early (the next item had started): its final form carries the full arguments.
      this.setArguments(engineIndex, args);
    }
  }

  private setArguments(engineIndex: number, args: string): void {
    const known = this.callItems.get(engineIndex);
    if (!known) return;
    known.item.arguments = args;
    known.call.arguments = args;
  }

  /**
   * Closes the last item (`incomplete` when cut by max_output_tokens). A stream that produced nothing
   * still gets its (empty) message, as the non-streamed response would.
   */
  finishItems(cut: boolean): void {
    if (this.output.length === 0) this.openMessage();
    this.closeOpen(cut ? 'incomplete' : 'completed');
  }

  /** `response.completed` or `response.failed` with the final object. */
  finish(final: ResponseObject): void {
    this.emit(final.status === 'failed' ? { type: 'response.failed', response: final } : { type: 'response.completed', response: final });
  }

  /** Output so far, for a response that failed midway: open items are marked incomplete. */
  outputSoFar(): OutputItem[] {
    return this.output.map((item) => (item.status === 'in_progress' ? this.snapshot(item, 'incomplete') : item));
  }

  private snapshot(item: OutputItem, status: ItemStatus): OutputItem {
    if (item.type === 'message') {
      const open = this.open?.kind === 'message' && this.open.item === item ? this.open : null;
      const text = open?.text ?? item.content[0]?.text ?? '';
      return { ...item, status, content: [{ type: 'output_text', text, annotations: this.annotate(text) }] };
    }
    return { ...item, status };
  }

  private openMessage(): Extract<OpenItem, { kind: 'message' }> {
    this.closeOpen('completed');
    const item: OutputMessage = { id: newId('msg'), type: 'message', role: 'assistant', status: 'in_progress', content: [] };
    const index = this.output.length;
    this.output.push(item);
    const open = { kind: 'message' as const, index, item, text: '' };
    this.open = open;
    this.emit({ type: 'response.output_item.added', output_index: index, item: { ...item, content: [] } });
    this.emit({
      type: 'response.content_part.added',
      item_id: item.id,
      output_index: index,
      content_index: 0,
      part: { type: 'output_text', text: '', annotations: [] },
    });
    return open;
  }

  private closeOpen(status: ItemStatus): void {
    const open = this.open;
    if (!open) return;
    this.open = null;
    if (open.kind === 'message') {
      const part = { type: 'output_text' as const, text: open.text, annotations: this.annotate(open.text) };
      this.emit({ type: 'response.output_text.done', item_id: open.item.id, output_index: open.index, content_index: 0, text: open.text });
      this.emit({ type: 'response.content_part.done', item_id: open.item.id, output_index: open.index, content_index: 0, part });
      Object.assign(open.item, { status, content: [part] });
    } else {
      this.emit({
        type: 'response.function_call_arguments.done',
        item_id: open.item.id,
        output_index: open.index,
        name: open.item.name,
        arguments: open.item.arguments,
      });
      open.item.status = status;
    }
    this.emit({ type: 'response.output_item.done', output_index: open.index, item: { ...open.item } });
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
