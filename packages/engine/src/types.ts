// The engine-level interface: what the server hands an engine and what it gets back. It mirrors the
// OpenAI wire names (snake_case data fields) so mapping to /responses and /chat/completions is direct, but
// it is not tied to either endpoint's shapes.
import type { BasePersona, CustomPersona, PersonaCreateHints, PersonaDetails, PersonaSuggestion, ResponseAnalysis } from '@persona-api/types';
import type { Feature, FeatureResult, RunOptions } from './features/define.js';
import type { TextFeature } from './features/define-text.js';

export type { BasePersona, CustomPersona, PersonaCreateHints, PersonaDetails, PersonaSuggestion, ResponseAnalysis };

/** A JSON Schema given as a plain object (function parameters, structured output). */
export type JsonSchema = Record<string, unknown>;

export type EngineKind = 'offline' | 'openai-compatible';
export type Level = 'low' | 'medium' | 'high';
export type PersonaType = 'B2B' | 'B2C';
export type PipelineType = 'north_star' | 'intermediate' | 'advanced';

/** A function call the model asks for; `arguments` is a JSON object text. */
export interface EngineToolCall {
  call_id: string;
  name: string;
  arguments: string;
}

/**
 * One message of the conversation, oldest first. `system`/`developer` messages add to the instructions;
 * an assistant turn may carry the tool calls it made; a `tool` message is the result of one call
 * (`function_call_output` of /responses, `role: tool` of /chat/completions).
 */
export type EngineMessage =
  | { role: 'system' | 'developer' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: EngineToolCall[] }
  | { role: 'tool'; call_id: string; content: string };

export interface EngineTool {
  name: string;
  description?: string | null;
  /** JSON Schema of the arguments object; omitted means no arguments. */
  parameters?: JsonSchema;
  strict?: boolean;
}

export type EngineToolChoice = 'auto' | 'none' | 'required' | { name: string };

export type EngineResponseFormat = { type: 'text' } | { type: 'json_schema'; name: string; description?: string | null; schema: JsonSchema; strict?: boolean };

/** The persona that answers: its curated (or composed) system prompt and its profile. */
export interface EnginePersona {
  id: string;
  name: string;
  description: string;
  category: string;
  type: PersonaType | null;
  /** Sent first, before `instructions`. Never exposed to API callers. */
  system_prompt: string;
  details: PersonaDetails;
}

export interface GenerateRequest {
  /** Null for an answer without a persona (e.g. a video-analysis chat sent without one). */
  persona: EnginePersona | null;
  /** The request's own system text, placed after the persona's system prompt. */
  instructions?: string | null;
  messages: EngineMessage[];
  tools?: EngineTool[];
  /** Default `auto`. */
  tool_choice?: EngineToolChoice;
  /** Default `{type: text}`. */
  response_format?: EngineResponseFormat;
  /** Also return `analysis` (ResponseAnalysis). */
  analysis?: boolean;
  /** Wrap the answer in one `<artifact …>` element (DECISIONS.md grammar). */
  artifact?: boolean;
  reasoning_effort?: Level;
  verbosity?: Level;
  temperature?: number;
  max_output_tokens?: number | null;
  /** Nucleus sampling (upstream only: the offline engine has no token probabilities). */
  top_p?: number;
  /** Stop sequences (at most 4): the text ends before the first one. Both engines. */
  stop?: string[];
  /** Best-effort determinism upstream; mixed into the offline engine's choices. */
  seed?: number;
  /** Upstream only: the offline engine does not sample tokens. */
  frequency_penalty?: number;
  presence_penalty?: number;
  /** `false`: at most one tool call per answer. Default true. */
  parallel_tool_calls?: boolean;
  /** At most this many tool calls per answer (extra ones are dropped). */
  max_tool_calls?: number | null;
}

export interface EngineUsage {
  input_tokens: number;
  output_tokens: number;
  /** Input tokens the upstream served from its cache (0 when unknown). */
  cached_tokens: number;
  /** Output tokens spent on hidden reasoning (0 on the offline engine). */
  reasoning_tokens: number;
  /** Who counted: the upstream's own report, or this package's tokenizer. */
  source: 'upstream' | 'tokenizer';
}

export type FinishReason = 'stop' | 'length' | 'tool_calls';

export interface GenerateResult {
  /** The message text ('' when the model only called tools). */
  text: string;
  tool_calls: EngineToolCall[];
  /** With a json_schema format: the text parsed, valid against the schema; otherwise null. */
  parsed: Record<string, unknown> | null;
  /** With a json_schema format and output that is not valid: why (for `structured_output_invalid`). */
  structured_output_error: string | null;
  /** With `analysis: true`: the persona's analysis of the input; otherwise null. */
  analysis: ResponseAnalysis | null;
  usage: EngineUsage;
  finish_reason: FinishReason;
  /** What produced the text: `offline` or the upstream model's name. */
  model: string;
}

/**
 * Events of a streamed generation, in order: text deltas and tool-call events as they are produced, then
 * `usage`, then `done` with the complete result (the concatenation of the deltas is `result.text`). When
 * the AbortSignal fires, the stream ends without `done`.
 */
export type EngineStreamEvent =
  | { type: 'text_delta'; delta: string }
  | { type: 'tool_call_start'; index: number; call_id: string; name: string }
  | { type: 'tool_call_arguments_delta'; index: number; delta: string }
  | { type: 'tool_call_done'; index: number; call_id: string; name: string; arguments: string }
  | { type: 'usage'; usage: EngineUsage }
  | { type: 'done'; result: GenerateResult };

/** What `GET /models` says about the engine serving `service-1`. */
export interface EngineDescription {
  engine: EngineKind;
  upstream_model: string | null;
  description: string;
  context_window: number;
  max_output_tokens: number;
  /** The model reads images (MODEL_ACCEPTS_IMAGES); always false offline. */
  accepts_images: boolean;
}

/** Input of `POST /personas`: the request body, with `pipeline_type` defaulted. */
export interface PersonaGenerationInput {
  description: string;
  name?: string;
  type?: PersonaType;
  category?: string;
  pipeline_type?: PipelineType;
  hints?: PersonaCreateHints;
}

/** The generated part of a custom persona; the server adds id, workspace, timestamps and credits. */
export interface GeneratedPersona {
  name: string;
  category: string;
  description: string;
  type: PersonaType | null;
  pipeline_type: PipelineType;
  details: PersonaDetails;
  ai_generated: { confidence: number; rationale: string };
}

/** A source the server has already read for `POST /personas/suggestions` (unreachable ones left out). */
export interface SuggestionSourceText {
  name?: string;
  text: string;
}

export interface PersonaSuggestionInput {
  business_description: string;
  target_customers: string[];
  goals: string[];
  sources?: SuggestionSourceText[];
}

export interface PersonaSuggestionResult {
  /** 3 to 6 suggestions, best fit first. */
  data: PersonaSuggestion[];
  input_summary: {
    business_description: string;
    target_customers: string[];
    goals: string[];
    sources_count: number;
  };
}

/** What each engine implements: free text (`generate`, `stream`) and structured features (`run`). */
export interface EngineCore {
  readonly kind: EngineKind;
  describe(): EngineDescription;
  /** A complete answer. Rejects with an `EngineError` (`aborted` when the signal fired). */
  generate(request: GenerateRequest, signal?: AbortSignal): Promise<GenerateResult>;
  /** The answer as it is produced; ends early, without `done`, when the signal fires. */
  stream(request: GenerateRequest, signal?: AbortSignal): AsyncIterable<EngineStreamEvent>;
  /**
   * A structured AI feature (src/features/): the upstream model answering the feature's prompt and schema,
   * or the feature's offline implementation. Rejects with an `EngineError` (`structured_output_invalid`
   * after one retry, `aborted`, upstream failures).
   */
  run<Input, Output>(feature: Feature<Input, Output>, input: Input, options?: RunOptions): Promise<FeatureResult<Output>>;
  /**
   * The input tokens `run(feature, input)` will count, before it runs: upstream, the prompt and the schema
   * sent; offline, the input as the offline usage counts it. The floor of a feature call's price (credit holds).
   */
  inputTokensOf<Input>(feature: Pick<Feature<Input, unknown>, 'prompt' | 'schema'>, input: Input): number;
  /**
   * A text feature (src/features/define-text.ts) as a stream of `text_delta` events, then `usage` and
   * `done`: the upstream model answering the feature's request, or the feature's offline text. Ends early,
   * without `done`, when the signal fires.
   */
  streamText<Input>(feature: TextFeature<Input>, input: Input, options?: RunOptions): AsyncIterable<EngineStreamEvent>;
}

/** The engine the server holds: the core plus named shortcuts for the features it calls by name. */
export interface Engine extends EngineCore {
  /** The profile of a custom persona from a description (`POST /personas`): `run(personaProfile, …).output`. */
  generatePersona(input: PersonaGenerationInput, signal?: AbortSignal): Promise<GeneratedPersona>;
  /** Personas that fit a business (`POST /personas/suggestions`): `run(personaSuggestions, …).output`. */
  suggestPersonas(input: PersonaSuggestionInput, signal?: AbortSignal): Promise<PersonaSuggestionResult>;
}
