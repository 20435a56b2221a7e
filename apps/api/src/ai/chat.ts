import type { EngineMessage, EngineResponseFormat, EngineTool, EngineToolChoice, GenerateRequest } from '@persona-api/engine';
import type { components } from '@persona-api/types';
import { errors } from '../http/errors.js';
import { checkObjectSchema, effortLevel, MAX_INPUT_CHARS } from './responses/request.js';
import { refuseUnsupported } from './unsupported.js';

type CreateRequest = components['schemas']['ChatCompletionCreateRequest'];

export interface ChatRequest {
  engine: Omit<GenerateRequest, 'persona'>;
  jsonSchema: boolean;
  stream: boolean;
  includeUsage: boolean;
}

// A refusal part of an earlier assistant message counts as its text.
const textOf = (content: string | null | undefined | ({ type: 'text'; text: string } | { type: 'refusal'; refusal: string })[]) =>
  content == null ? '' : typeof content === 'string' ? content : content.map((part) => (part.type === 'refusal' ? part.refusal : part.text)).join('\n');

/** OpenAI fields of `POST /chat/completions` with values this service cannot honour: 400 `unsupported_parameter`. */
function refuseUnsupportedChatFields(body: CreateRequest): void {
  refuseUnsupported([
    ['n', (body.n ?? 1) > 1, 'Only one choice per completion is supported; omit n or send 1 (send several requests for several answers).'],
    ['logprobs', body.logprobs === true, 'Token log probabilities are not available on this service; omit logprobs or send false.'],
    ['top_logprobs', (body.top_logprobs ?? 0) > 0, 'Token log probabilities are not available on this service; omit top_logprobs or send 0.'],
    ['logit_bias', Object.keys(body.logit_bias ?? {}).length > 0, 'The token ids of service-1 are not published, so logit_bias cannot be honoured; omit it.'],
    ['modalities', (body.modalities ?? []).includes('audio'), 'Audio output is not supported; send modalities ["text"] or omit it.'],
    ['audio', body.audio != null, 'Audio output is not supported; omit audio.'],
    ['web_search_options', body.web_search_options != null, 'Web search is not available on /chat/completions; omit web_search_options.'],
    ['moderation', body.moderation != null, 'Moderation is not available on this service; omit moderation.'],
    ['functions', body.functions != null, 'The deprecated functions field is not supported; declare them in tools.'],
    ['function_call', body.function_call != null, 'The deprecated function_call field is not supported; use tool_choice.'],
  ]);
}

/** Reads and checks a legacy `POST /chat/completions` body (DECISIONS.md, Legacy chat completions). */
export function readChatRequest(body: CreateRequest): ChatRequest {
  refuseUnsupportedChatFields(body);
  const messages: EngineMessage[] = [];
  const callIds = new Set<string>();
  let characters = 0;
  body.messages.forEach((message, index) => {
    if (message.role === 'tool') {
      if (!callIds.has(message.tool_call_id)) {
        throw errors.invalidParameter(`messages.${index}.tool_call_id`, `No earlier assistant message has a tool call with id ${message.tool_call_id}.`);
      }
      const content = textOf(message.content);
      characters += content.length;
      messages.push({ role: 'tool', call_id: message.tool_call_id, content });
    } else if (message.role === 'assistant') {
      const content = message.content == null ? null : textOf(message.content);
      characters += content?.length ?? 0;
      const calls = (message.tool_calls ?? []).map((call) => {
        callIds.add(call.id);
        characters += call.function.arguments.length;
        return { call_id: call.id, name: call.function.name, arguments: call.function.arguments };
      });
      messages.push({ role: 'assistant', content, ...(calls.length > 0 ? { tool_calls: calls } : {}) });
    } else {
      const content = textOf(message.content);
      characters += content.length;
      messages.push({ role: message.role, content });
    }
  });
  const last = body.messages.at(-1);
  if (last && last.role !== 'user' && last.role !== 'tool') {
    throw errors.invalidParameter(`messages.${body.messages.length - 1}.role`, 'The last message must be from user or tool.');
  }
  if (characters > MAX_INPUT_CHARS)
    throw errors.invalidParameter('messages', `The text of messages is ${characters} characters; at most ${MAX_INPUT_CHARS} are allowed.`);

  const tools: EngineTool[] = [];
  (body.tools ?? []).forEach((tool, index) => {
    const fn = tool.function;
    if (tools.some((other) => other.name === fn.name))
      throw errors.invalidParameter(`tools.${index}.function.name`, `Tool names must be unique; ${fn.name} appears twice.`);
    if (fn.parameters) checkObjectSchema(fn.parameters as Record<string, unknown>, `tools.${index}.function.parameters`);
    tools.push({
      name: fn.name,
      description: fn.description ?? null,
      ...(fn.parameters ? { parameters: fn.parameters as Record<string, unknown> } : {}),
      strict: fn.strict ?? false,
    });
  });

  const choice = body.tool_choice ?? 'auto';
  let toolChoice: EngineToolChoice;
  if (typeof choice === 'string') {
    if (choice === 'required' && tools.length === 0) throw errors.parameterConflict('tool_choice', 'tool_choice "required" needs at least one tool in tools.');
    toolChoice = choice;
  } else {
    if (!tools.some((tool) => tool.name === choice.function.name))
      throw errors.parameterConflict('tool_choice', `tool_choice names ${choice.function.name}, which is not one of tools.`);
    toolChoice = { name: choice.function.name };
  }

  let responseFormat: EngineResponseFormat = { type: 'text' };
  const format = body.response_format;
  if (format?.type === 'json_schema' && 'json_schema' in format) {
    const spec = format.json_schema;
    checkObjectSchema(spec.schema as Record<string, unknown>, 'response_format.json_schema.schema');
    responseFormat = {
      type: 'json_schema',
      name: spec.name,
      description: spec.description ?? null,
      schema: spec.schema as Record<string, unknown>,
      strict: spec.strict ?? false,
    };
  }

  if (body.max_tokens != null && body.max_completion_tokens != null) {
    throw errors.parameterConflict('max_tokens', 'Send max_completion_tokens or the deprecated max_tokens, not both.');
  }
  const stream = body.stream ?? false;
  if (body.stream_options != null && !stream) throw errors.parameterConflict('stream_options', 'stream_options is only allowed with stream: true.');

  return {
    engine: {
      instructions: null,
      messages,
      tools,
      tool_choice: toolChoice,
      response_format: responseFormat,
      analysis: false,
      artifact: false,
      reasoning_effort: effortLevel(body.reasoning_effort),
      verbosity: body.verbosity ?? 'medium',
      temperature: body.temperature ?? 1,
      max_output_tokens: body.max_completion_tokens ?? body.max_tokens ?? null,
      // Honoured settings (DECISIONS.md, OpenAI request fields); absent ones keep the engine's defaults.
      ...(body.top_p != null ? { top_p: body.top_p } : {}),
      ...(body.stop != null ? { stop: typeof body.stop === 'string' ? [body.stop] : body.stop } : {}),
      ...(body.seed != null ? { seed: body.seed } : {}),
      ...(body.frequency_penalty != null ? { frequency_penalty: body.frequency_penalty } : {}),
      ...(body.presence_penalty != null ? { presence_penalty: body.presence_penalty } : {}),
      ...(body.parallel_tool_calls != null ? { parallel_tool_calls: body.parallel_tool_calls } : {}),
    },
    jsonSchema: responseFormat.type === 'json_schema',
    stream,
    includeUsage: body.stream_options?.include_usage ?? false,
  };
}
