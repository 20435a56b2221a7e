// The OpenAI Chat Completions wire format: building the request body from an engine request, and reading
// replies (whole or streamed chunks) defensively — any server that speaks the format (OpenAI, vLLM, Ollama,
// llama.cpp, LiteLLM) may leave fields out.
import type { UpstreamConfig } from '../config.js';
import type { EngineMessage, EngineTool, EngineToolCall, FinishReason, GenerateRequest, JsonSchema } from '../types.js';

/** A part of a user message's content: text, or an image (a URL or a `data:` URL). */
export type ChatContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string; detail?: 'low' | 'high' | 'auto' } };

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | ChatContentPart[] | null;
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

export interface ChatBody {
  model: string;
  messages: ChatMessage[];
  stream: boolean;
  stream_options?: { include_usage: boolean };
  temperature?: number;
  max_tokens?: number;
  max_completion_tokens?: number;
  tools?: Array<{ type: 'function'; function: { name: string; description?: string; parameters: JsonSchema; strict?: boolean } }>;
  tool_choice?: 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };
  response_format?: { type: 'json_schema'; json_schema: { name: string; description?: string; schema: JsonSchema; strict?: boolean } };
  reasoning_effort?: 'low' | 'medium' | 'high';
  top_p?: number;
  stop?: string[];
  seed?: number;
  frequency_penalty?: number;
  presence_penalty?: number;
  parallel_tool_calls?: boolean;
}

/** The instruction that makes the model write an artifact body the engine can wrap (see artifact.ts). */
export const ARTIFACT_GUIDANCE =
  'Write the deliverable as one standalone Markdown document. Its first line is a level-one heading with its title ("# Title"). Output only the document: no text before or after it, no code fences around it, no XML tags.';

/** Extra system text: how long to answer, how hard to think (when the upstream has no such parameter). */
export function guidance(request: GenerateRequest, config: UpstreamConfig): string[] {
  const lines: string[] = [];
  if (request.verbosity === 'low') lines.push('Answer briefly: two or three sentences at most.');
  if (request.verbosity === 'high') lines.push('Answer thoroughly, with specifics and examples.');
  if (!config.reasoning && request.reasoning_effort === 'high') lines.push('Think the question through carefully before you answer.');
  if (request.artifact) lines.push(ARTIFACT_GUIDANCE);
  if (request.response_format?.type === 'json_schema') lines.push('Reply with a single JSON document that matches the requested schema, and nothing else.');
  return lines;
}

/** The OpenAI strict mode accepts only closed objects whose properties are all required. */
export function isStrictCompatible(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.every(isStrictCompatible);
  if (schema === null || typeof schema !== 'object') return true;
  const node = schema as Record<string, unknown>;
  const isObject = node.type === 'object' || (Array.isArray(node.type) && node.type.includes('object'));
  if (isObject && node.properties && typeof node.properties === 'object') {
    const keys = Object.keys(node.properties);
    const required = Array.isArray(node.required) ? node.required : [];
    if (node.additionalProperties !== false || !keys.every((key) => required.includes(key))) return false;
  }
  return Object.values(node).every(isStrictCompatible);
}

function toChatMessage(message: EngineMessage): ChatMessage {
  switch (message.role) {
    case 'system':
    case 'developer':
      // `developer` is OpenAI-only; every compatible server knows `system`.
      return { role: 'system', content: message.content };
    case 'user':
      return { role: 'user', content: message.content };
    case 'assistant': {
      const calls = message.tool_calls ?? [];
      return {
        role: 'assistant',
        content: message.content && message.content.length > 0 ? message.content : calls.length > 0 ? null : '',
        ...(calls.length > 0
          ? { tool_calls: calls.map((call) => ({ id: call.call_id, type: 'function' as const, function: { name: call.name, arguments: call.arguments } })) }
          : {}),
      };
    }
    case 'tool':
      return { role: 'tool', tool_call_id: message.call_id, content: message.content };
  }
}

function toChatTool(tool: EngineTool): NonNullable<ChatBody['tools']>[number] {
  const parameters = tool.parameters ?? { type: 'object', properties: {}, additionalProperties: false };
  // Forward `strict` only where OpenAI would accept it; arguments are checked by the caller either way.
  const strict = (tool.strict ?? true) && isStrictCompatible(parameters);
  return {
    type: 'function',
    function: { name: tool.name, ...(tool.description ? { description: tool.description } : {}), parameters, ...(strict ? { strict: true } : {}) },
  };
}

/** The system texts sent first: persona prompt, instructions, engine guidance. */
export function systemTextsFor(request: GenerateRequest, config: UpstreamConfig): string[] {
  return [request.persona?.system_prompt ?? '', request.instructions ?? '', guidance(request, config).join(' ')].filter((text) => text.trim().length > 0);
}

export function buildChatBody(request: GenerateRequest, config: UpstreamConfig, stream: boolean): ChatBody {
  const system = systemTextsFor(request, config).join('\n\n');
  const messages: ChatMessage[] = [...(system ? [{ role: 'system' as const, content: system }] : []), ...request.messages.map(toChatMessage)];
  const body: ChatBody = { model: config.model, messages, stream };
  if (stream) body.stream_options = { include_usage: true };
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.max_output_tokens != null) {
    if (config.reasoning) body.max_completion_tokens = request.max_output_tokens;
    else body.max_tokens = request.max_output_tokens;
  }
  if (config.reasoning && request.reasoning_effort) body.reasoning_effort = request.reasoning_effort;
  // Sampling settings the caller chose are passed through as given (OpenAI's own names).
  if (request.top_p !== undefined) body.top_p = request.top_p;
  if (request.stop !== undefined && request.stop.length > 0) body.stop = request.stop;
  if (request.seed !== undefined) body.seed = request.seed;
  if (request.frequency_penalty !== undefined) body.frequency_penalty = request.frequency_penalty;
  if (request.presence_penalty !== undefined) body.presence_penalty = request.presence_penalty;
  const tools = request.tools ?? [];
  if (tools.length > 0) {
    body.tools = tools.map(toChatTool);
    const choice = request.tool_choice ?? 'auto';
    body.tool_choice = typeof choice === 'object' ? { type: 'function', function: { name: choice.name } } : choice;
    if (request.parallel_tool_calls !== undefined) body.parallel_tool_calls = request.parallel_tool_calls;
  }
  const format = request.response_format;
  if (format?.type === 'json_schema') {
    const strict = (format.strict ?? false) && isStrictCompatible(format.schema);
    body.response_format = {
      type: 'json_schema',
      json_schema: {
        name: format.name,
        ...(format.description ? { description: format.description } : {}),
        schema: format.schema,
        ...(strict ? { strict: true } : {}),
      },
    };
  }
  return body;
}

export interface WireUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
}

export function readUsage(value: unknown): WireUsage | null {
  if (value === null || typeof value !== 'object') return null;
  const usage = value as WireUsage;
  return typeof usage.prompt_tokens === 'number' && typeof usage.completion_tokens === 'number' ? usage : null;
}

export function mapFinishReason(value: unknown, hasToolCalls: boolean): FinishReason {
  // Some servers (Ollama) report `stop` next to tool calls; `content_filter` has no engine-level meaning.
  if (hasToolCalls) return 'tool_calls';
  return value === 'length' ? 'length' : 'stop';
}

const CALL_ID = /^call_[A-Za-z0-9_-]+$/;

/** Call ids in the contract's shape (`call_…`, ≤ 64 characters), whatever the upstream uses. */
export function normalizeCallId(id: unknown, fallback: string): string {
  if (typeof id === 'string' && CALL_ID.test(id) && id.length <= 64) return id;
  const cleaned = typeof id === 'string' ? id.replace(/[^A-Za-z0-9_-]+/g, '') : '';
  return cleaned.length > 0 ? `call_${cleaned}`.slice(0, 64) : fallback;
}

/** Tool calls of a non-streamed reply. */
export function readToolCalls(value: unknown, fallbackId: (index: number) => string): EngineToolCall[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((raw, index) => {
    const call = raw as { id?: unknown; function?: { name?: unknown; arguments?: unknown } };
    const name = call.function?.name;
    if (typeof name !== 'string' || name.length === 0) return [];
    const args = call.function?.arguments;
    return [{ call_id: normalizeCallId(call.id, fallbackId(index)), name, arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) }];
  });
}
