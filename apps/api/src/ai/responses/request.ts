import {
  compileSchema,
  EngineError,
  type EngineMessage,
  type EngineResponseFormat,
  type EngineTool,
  type EngineToolChoice,
  type GenerateRequest,
} from '@persona-api/engine';
import type { components } from '@persona-api/types';
import { errors } from '../../http/errors.js';
import { refuseUnsupported } from '../unsupported.js';

type CreateRequest = components['schemas']['ResponseCreateRequest'];
type InputItem = components['schemas']['ResponseInputItem'];
export type ResponseObject = components['schemas']['ResponseObject'];
type FunctionTool = components['schemas']['FunctionTool'];
type FlatFormat = components['schemas']['ResponseFormatJsonSchema'];

/** DECISIONS.md, Responses: the text of the whole input is at most 100 000 characters. */
export const MAX_INPUT_CHARS = 100_000;

/** The settings a response echoes (ResponseObject minus what generation fills in). */
export type ResponseSettings = Omit<
  ResponseObject,
  'id' | 'created_at' | 'status' | 'error' | 'incomplete_details' | 'output' | 'usage' | 'parsed' | 'analysis' | 'server_tool_calls'
>;

/** The defaults of POST /responses, no tools, no instructions: what a video-analysis chat answer echoes (DECISIONS.md). */
export const defaultResponseSettings = (personaId: string | null): ResponseSettings => ({
  object: 'response',
  model: 'service-1',
  persona_id: personaId,
  instructions: null,
  tools: [],
  tool_choice: 'auto',
  text: { format: { type: 'text' }, verbosity: 'medium' },
  reasoning: { effort: 'medium' },
  temperature: 1,
  max_output_tokens: null,
  previous_response_id: null,
  store: true,
  metadata: {},
  analysis_mode: false,
  artifact_mode: false,
  top_p: 1,
  parallel_tool_calls: true,
  max_tool_calls: null,
  user: null,
  safety_identifier: null,
  prompt_cache_key: null,
  service_tier: null,
  truncation: 'disabled',
});

export interface ResponseRequest {
  /** The engine request without its persona (added once the persona is found). */
  engine: Omit<GenerateRequest, 'persona'>;
  settings: ResponseSettings;
  jsonSchema: boolean;
  analysis: boolean;
  stream: boolean;
}

export const textOf = (content: string | { text: string }[]) => (typeof content === 'string' ? content : content.map((part) => part.text).join('\n'));

/** A caller's JSON Schema must compile and have an object root (400 naming where it is). */
export function checkObjectSchema(schema: Record<string, unknown>, param: string): void {
  if (schema.type !== 'object') throw errors.invalidParameter(param, `${param} must be a JSON Schema whose root is {"type": "object", ...}.`);
  try {
    compileSchema(schema);
  } catch (error) {
    if (error instanceof EngineError) throw errors.invalidParameter(param, error.message);
    throw error;
  }
}

/** An input item once `item_reference`s are replaced by the items they name (items.ts). */
export type ResolvedInputItem = Exclude<InputItem, { type: 'item_reference' }>;

type AssistantPart = Extract<InputItem, { role: 'assistant' }>['content'];
export const assistantText = (content: AssistantPart) =>
  typeof content === 'string' ? content : content.map((part) => (part.type === 'refusal' ? part.refusal : part.text)).join('');

/** Characters of one input item's text, as the 100 000-character limit counts them. */
export function itemCharacters(item: ResolvedInputItem): number {
  if ('type' in item && item.type === 'function_call') return item.arguments.length;
  if ('type' in item && item.type === 'function_call_output') return textOf(item.output).length;
  if (item.role === 'assistant') return assistantText(item.content).length;
  return textOf(item.content).length;
}

/** Characters of the text of `input` (a string, or items with their references resolved). */
export const inputCharacters = (input: string | ResolvedInputItem[]): number =>
  typeof input === 'string' ? input.length : input.reduce((sum, item) => sum + itemCharacters(item), 0);

/**
 * The conversation for the engine: the turns `history` restored from `previous_response_id` (already
 * within the character budget), then `input`'s messages, earlier output items and tool results.
 * `characters` is inputCharacters(input), when the caller has it already.
 */
export function inputMessages(input: string | ResolvedInputItem[], history: ResolvedInputItem[] = [], characters = inputCharacters(input)): EngineMessage[] {
  const messages: EngineMessage[] = [];
  const callIds = new Set<string>();
  const add = (item: ResolvedInputItem, index: number | null) => {
    if ('type' in item && item.type === 'function_call') {
      callIds.add(item.call_id);
      const call = { call_id: item.call_id, name: item.name, arguments: item.arguments };
      const previous = messages.at(-1);
      // Calls of one turn belong to one assistant message, as the chat format expects.
      if (previous?.role === 'assistant') previous.tool_calls = [...(previous.tool_calls ?? []), call];
      else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
    } else if ('type' in item && item.type === 'function_call_output') {
      if (!callIds.has(item.call_id)) {
        // A restored output whose call was not restored (a chain stored before the call's turn) is left out.
        if (index === null) return;
        throw errors.invalidParameter(
          `input.${index}.call_id`,
          `No function_call with call_id ${item.call_id} comes before this function_call_output in input${history.length > 0 ? ' or the restored conversation' : ''}.`,
        );
      }
      messages.push({ role: 'tool', call_id: item.call_id, content: textOf(item.output) });
    } else if (item.role === 'assistant') {
      // An earlier answer, echoed whole or in the short form clients build.
      messages.push({ role: 'assistant', content: assistantText(item.content) });
    } else {
      messages.push({ role: item.role, content: textOf(item.content) });
    }
  };
  for (const item of history) add(item, null);
  if (typeof input === 'string') messages.push({ role: 'user', content: input });
  else input.forEach(add);
  if (characters > MAX_INPUT_CHARS)
    throw errors.invalidParameter('input', `The text of input is ${characters} characters; at most ${MAX_INPUT_CHARS} are allowed.`);
  return messages;
}

/** OpenAI's effort levels on this service's three (DECISIONS.md): none/minimal → low, xhigh → high. */
export function effortLevel(effort: string | null | undefined): 'low' | 'medium' | 'high' {
  if (effort === 'none' || effort === 'minimal' || effort === 'low') return 'low';
  if (effort === 'xhigh' || effort === 'high') return 'high';
  return 'medium';
}

/** The id `conversation` names: OpenAI takes the id or `{id}`. */
export const conversationIdOf = (conversation: NonNullable<CreateRequest['conversation']>): string =>
  typeof conversation === 'string' ? conversation : conversation.id;

/** OpenAI fields of `POST /responses` with values this service cannot honour: 400 `unsupported_parameter`. */
function refuseUnsupportedResponseFields(body: CreateRequest): void {
  refuseUnsupported([
    ['background', body.background === true, 'Background responses are not supported; send the request without background (or stream it).'],
    ['top_logprobs', (body.top_logprobs ?? 0) > 0, 'Token log probabilities are not available on this service; omit top_logprobs or send 0.'],
    ['prompt', body.prompt != null, 'Stored prompt templates do not exist on this service; send instructions and input instead.'],
    ['moderation', body.moderation != null, 'Moderation is not available on this service; omit moderation.'],
    ['access_programs', body.access_programs != null, 'Access programs do not exist on this service; omit access_programs.'],
    [
      'text.format.type',
      body.text?.format?.type === 'json_object',
      'JSON mode (json_object) is not supported; send a json_schema format with the schema of the object you want.',
    ],
  ]);
  if (body.stream_options != null && body.stream !== true)
    throw errors.parameterConflict('stream_options', 'stream_options is only allowed with stream: true.');
}

/** Tools with their defaults (a `default` inside a oneOf branch is not applied by Ajv). */
export function functionTools(tools: FunctionTool[] | undefined): { echo: FunctionTool[]; engine: EngineTool[] } {
  const echo: FunctionTool[] = [];
  const seen = new Set<string>();
  (tools ?? []).forEach((tool, index) => {
    if (seen.has(tool.name)) throw errors.invalidParameter(`tools.${index}.name`, `Tool names must be unique; ${tool.name} appears twice.`);
    seen.add(tool.name);
    if (tool.parameters) checkObjectSchema(tool.parameters as Record<string, unknown>, `tools.${index}.parameters`);
    // null (what LangChain sends when the caller did not choose) means OpenAI's default, true.
    echo.push({
      type: 'function',
      name: tool.name,
      description: tool.description ?? null,
      ...(tool.parameters ? { parameters: tool.parameters } : {}),
      strict: tool.strict ?? true,
    });
  });
  const engine = echo.map((tool) => ({
    name: tool.name,
    description: tool.description ?? null,
    ...(tool.parameters ? { parameters: tool.parameters as Record<string, unknown> } : {}),
    strict: tool.strict ?? true,
  }));
  return { echo, engine };
}

/** `tool_choice` for the engine; `required` or a named function without matching tools is a conflict. */
export function engineToolChoice(choice: CreateRequest['tool_choice'], tools: { name: string }[]): EngineToolChoice {
  const value = choice ?? 'auto';
  if (typeof value === 'string') {
    if (value === 'required' && tools.length === 0) throw errors.parameterConflict('tool_choice', 'tool_choice "required" needs at least one tool in tools.');
    return value;
  }
  if (!tools.some((tool) => tool.name === value.name))
    throw errors.parameterConflict('tool_choice', `tool_choice names ${value.name}, which is not one of tools.`);
  return { name: value.name };
}

/**
 * Reads and checks a `POST /responses` body: 400s for everything that can be known before generating.
 * `input` is the body's input with its item references resolved; `personaId` the body's or the header's;
 * `history` the turns restored from `previous_response_id`; `inputChars` inputCharacters(input), when known.
 */
export function readResponseRequest(
  body: CreateRequest,
  input: string | ResolvedInputItem[],
  personaId: string,
  history: ResolvedInputItem[] = [],
  inputChars = inputCharacters(input),
): ResponseRequest {
  refuseUnsupportedResponseFields(body);
  const format = body.text?.format;
  let flat: FlatFormat | null = null;
  if (format?.type === 'json_schema') {
    const spec = 'json_schema' in format ? format.json_schema : format;
    flat = {
      type: 'json_schema',
      name: spec.name,
      ...(spec.description !== undefined ? { description: spec.description } : {}),
      schema: spec.schema,
      strict: spec.strict ?? false,
    };
    if (body.analysis_mode) throw errors.parameterConflict('analysis_mode', 'analysis_mode cannot be combined with a json_schema text.format.');
    if (body.artifact_mode) throw errors.parameterConflict('artifact_mode', 'artifact_mode cannot be combined with a json_schema text.format.');
    checkObjectSchema(flat.schema as Record<string, unknown>, 'json_schema' in format ? 'text.format.json_schema.schema' : 'text.format.schema');
  }
  const tools = functionTools(body.tools);
  const toolChoice = engineToolChoice(body.tool_choice, tools.engine);
  const messages = inputMessages(input, history, inputChars);
  const verbosity = body.text?.verbosity ?? 'medium';
  const effort = effortLevel(body.reasoning?.effort);
  const maxToolCalls = body.max_tool_calls ?? null;
  const responseFormat: EngineResponseFormat = flat
    ? {
        type: 'json_schema',
        name: flat.name,
        description: flat.description ?? null,
        schema: flat.schema as Record<string, unknown>,
        strict: flat.strict ?? false,
      }
    : { type: 'text' };
  return {
    engine: {
      instructions: body.instructions ?? null,
      messages,
      tools: tools.engine,
      tool_choice: toolChoice,
      response_format: responseFormat,
      analysis: body.analysis_mode ?? false,
      artifact: body.artifact_mode ?? false,
      reasoning_effort: effort,
      verbosity,
      temperature: body.temperature ?? 1,
      max_output_tokens: body.max_output_tokens ?? null,
      ...(body.top_p != null ? { top_p: body.top_p } : {}),
      ...(body.parallel_tool_calls != null ? { parallel_tool_calls: body.parallel_tool_calls } : {}),
      max_tool_calls: maxToolCalls,
    },
    settings: {
      object: 'response',
      model: body.model,
      persona_id: personaId,
      instructions: body.instructions ?? null,
      tools: tools.echo,
      tool_choice: body.tool_choice ?? 'auto',
      text: { format: flat ?? { type: 'text' }, verbosity },
      reasoning: { effort },
      temperature: body.temperature ?? 1,
      max_output_tokens: body.max_output_tokens ?? null,
      previous_response_id: body.previous_response_id ?? null,
      ...(body.conversation != null ? { conversation: { id: conversationIdOf(body.conversation) } } : {}),
      store: body.store ?? true,
      metadata: body.metadata ?? {},
      analysis_mode: body.analysis_mode ?? false,
      artifact_mode: body.artifact_mode ?? false,
      top_p: body.top_p ?? 1,
      parallel_tool_calls: body.parallel_tool_calls ?? true,
      max_tool_calls: maxToolCalls,
      user: body.user ?? null,
      safety_identifier: body.safety_identifier ?? null,
      prompt_cache_key: body.prompt_cache_key ?? null,
      service_tier: body.service_tier ?? null,
      truncation: body.truncation ?? 'disabled',
    },
    jsonSchema: flat !== null,
    analysis: body.analysis_mode ?? false,
    stream: body.stream ?? false,
  };
}
