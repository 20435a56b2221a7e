// The structured-output primitive AI features build on. A feature is a prompt and a schema for an upstream
// model plus an offline implementation; `engine.run(feature, input)` picks the side the engine serves:
// the OpenAI-compatible engine sends the prompt with a json_schema response_format, validates the reply
// with Ajv (one retry with the errors, then `structured_output_invalid`) and maps it with `fromReply`; the
// offline engine calls `offline`. Both return `{ output, usage }`.
import { z } from 'zod';
import type { EngineUsage, JsonSchema } from '../types.js';

/** An image of a feature message, as base64 bytes; `label` (e.g. which frame it is) is sent just before it. */
export interface FeatureImage {
  media_type: 'image/jpeg' | 'image/png';
  data: string;
  label?: string;
}

/**
 * A message of a feature's prompt (sent to /chat/completions). `images` (user messages, for a model that
 * reads images) follow the text as `image_url` data-URL parts, each after its label.
 */
export interface FeatureMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
  images?: FeatureImage[];
}

/** What an offline implementation may use besides its input. */
export interface OfflineContext {
  /** The offline engine's seed (OFFLINE_ENGINE_SEED): outputs change with it and stay deterministic. */
  seed: number;
}

/** A JSON Schema (e.g. `contractSchema('X')` from the bundle) or a zod schema. */
export type FeatureSchema = JsonSchema | z.ZodType;

export interface FeatureDefinition<Input, Output> {
  /** The json_schema name sent upstream (`^[a-zA-Z0-9_-]{1,64}$`), snake_case by house style. */
  name: string;
  /**
   * What the model must reply with. A function when it depends on the input, or to read the bundle only
   * when an upstream call happens (the offline engine never needs it).
   */
  schema: FeatureSchema | ((input: Input) => FeatureSchema);
  prompt(input: Input): FeatureMessage[];
  /**
   * Turns the reply (already valid against the schema) into the output: defaults, ids, rules the model
   * cannot be trusted with. Default: the reply itself (parsed by zod when the schema is zod). An
   * `EngineError` thrown here reaches the caller with the call's usage.
   */
  fromReply?(reply: Record<string, unknown>, input: Input): Output;
  /** The deterministic implementation of the offline engine: no network, same input and seed → same output. */
  offline(input: Input, context: OfflineContext): Output;
}

/** A defined feature: what `engine.run` takes. */
export interface Feature<Input, Output> {
  readonly name: string;
  /** The JSON Schema sent as response_format and validated against. */
  schema(input: Input): JsonSchema;
  prompt(input: Input): FeatureMessage[];
  fromReply(reply: Record<string, unknown>, input: Input): Output;
  offline(input: Input, context: OfflineContext): Output;
}

export interface RunOptions {
  /** Cancels the call: `run` rejects with an `EngineError` coded `aborted`. */
  signal?: AbortSignal;
}

export interface FeatureResult<Output> {
  output: Output;
  /** Tokens of every upstream attempt (a retry included); counted with the tokenizer on the offline engine. */
  usage: EngineUsage;
}

function toJsonSchema(schema: FeatureSchema): JsonSchema {
  if (!(schema instanceof z.ZodType)) return schema;
  // Draft 2020-12 is what the upstream and the engine's Ajv read; `$schema` is dropped by the validator.
  return z.toJSONSchema(schema, { target: 'draft-2020-12' }) as JsonSchema;
}

export function defineFeature<Input, Output>(definition: FeatureDefinition<Input, Output>): Feature<Input, Output> {
  const { name, schema, prompt, fromReply, offline } = definition;
  const schemaFor = (input: Input): FeatureSchema => (typeof schema === 'function' ? schema(input) : schema);
  return {
    name,
    schema: (input) => toJsonSchema(schemaFor(input)),
    prompt,
    fromReply:
      fromReply ??
      ((reply, input) => {
        const source = schemaFor(input);
        return (source instanceof z.ZodType ? source.parse(reply) : reply) as Output;
      }),
    offline,
  };
}
