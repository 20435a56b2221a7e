// Request checks and views shared by both engines.
import { EngineError } from './errors.js';
import type { EngineMessage, GenerateRequest, Level } from './types.js';

/** The system texts in order: the persona's system prompt, then the request's instructions. */
export function systemTexts(request: GenerateRequest): string[] {
  return [request.persona?.system_prompt ?? '', request.instructions ?? ''].filter((text) => text.trim().length > 0);
}

/** Text of the most recent user message ('' when there is none). */
export function lastUserText(messages: readonly EngineMessage[]): string {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (message?.role === 'user') return message.content;
  }
  return '';
}

/** The name of the tool whose call a `tool` message answers (from earlier assistant tool calls). */
export function toolNameFor(messages: readonly EngineMessage[], callId: string): string {
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    const call = message.tool_calls?.find((candidate) => candidate.call_id === callId);
    if (call) return call.name;
  }
  return 'the tool';
}

export function levels(request: GenerateRequest): { verbosity: Level; effort: Level } {
  return { verbosity: request.verbosity ?? 'medium', effort: request.reasoning_effort ?? 'medium' };
}

/**
 * Conflicts the server also rejects with 400 `parameter_conflict` (DECISIONS.md); checked again here so an
 * engine never runs a request without meaning.
 */
export function assertValidRequest(request: GenerateRequest): void {
  if (request.messages.length === 0) throw new EngineError('invalid_request', 'The conversation has no messages.');
  const tools = request.tools ?? [];
  const choice = request.tool_choice ?? 'auto';
  if (choice === 'required' && tools.length === 0) throw new EngineError('invalid_request', 'tool_choice `required` needs at least one tool.');
  if (typeof choice === 'object' && !tools.some((tool) => tool.name === choice.name)) {
    throw new EngineError('invalid_request', `tool_choice names \`${choice.name}\`, which is not one of the tools.`);
  }
  if (request.response_format?.type === 'json_schema' && (request.analysis || request.artifact)) {
    throw new EngineError('invalid_request', 'A json_schema format cannot be combined with analysis or artifact mode.');
  }
  if (request.max_output_tokens != null && request.max_output_tokens < 1) throw new EngineError('invalid_request', 'max_output_tokens must be at least 1.');
}

/** How many tool calls an answer may carry (`parallel_tool_calls: false` means one). */
export function toolCallLimit(request: GenerateRequest): number {
  const parallel = request.parallel_tool_calls === false ? 1 : Number.POSITIVE_INFINITY;
  return Math.min(parallel, request.max_tool_calls ?? Number.POSITIVE_INFINITY);
}

/** The text up to the first stop sequence, and whether one was found. */
export function cutAtStop(text: string, stop: readonly string[] | undefined): { text: string; stopped: boolean } {
  let end = -1;
  for (const sequence of stop ?? []) {
    const at = sequence.length > 0 ? text.indexOf(sequence) : -1;
    if (at >= 0 && (end < 0 || at < end)) end = at;
  }
  return end < 0 ? { text, stopped: false } : { text: text.slice(0, end), stopped: true };
}
