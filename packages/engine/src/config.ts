// Engine configuration from the environment. Without MODEL_BASE_URL the offline engine serves; with it, the
// OpenAI-compatible engine calls `${MODEL_BASE_URL}/chat/completions` with MODEL_NAME.
import { z } from 'zod';

export interface UpstreamConfig {
  /** Base URL without a trailing slash, usually ending in `/v1`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …` when set (local servers often need none). */
  apiKey: string | null;
  model: string;
  /** Longest wait for the response headers and between two streamed chunks. */
  timeoutMs: number;
  /** The upstream is a reasoning model: send `reasoning_effort` and `max_completion_tokens` (else `max_tokens`). */
  reasoning: boolean;
  contextWindow: number;
  maxOutputTokens: number;
  /** The model reads images in user messages (MODEL_ACCEPTS_IMAGES); video analyses then send it frames. */
  acceptsImages?: boolean;
}

export type EngineConfig =
  | { engine: 'offline'; seed: number; contextWindow: number; maxOutputTokens: number; chunkDelayMs?: number }
  | { engine: 'openai-compatible'; upstream: UpstreamConfig };

export class EngineConfigError extends Error {
  override readonly name = 'EngineConfigError';
  readonly issues: string[];
  constructor(issues: string[]) {
    super(`Invalid model engine configuration:\n${issues.map((issue) => `- ${issue}`).join('\n')}`);
    this.issues = issues;
  }
}

const blankToUndefined = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);

const integer = (name: string, min: number, max: number, fallback: number) =>
  z
    .preprocess(
      blankToUndefined,
      z
        .string()
        .regex(/^\d+$/, `${name} must be a whole number`)
        .transform(Number)
        .pipe(z.number().int().min(min, `${name} must be at least ${min}`).max(max, `${name} must be at most ${max}`))
        .optional(),
    )
    .transform((value) => value ?? fallback);

const schema = z
  .object({
    MODEL_BASE_URL: z.preprocess(
      blankToUndefined,
      z
        .string()
        .url('MODEL_BASE_URL must be an absolute URL such as https://api.openai.com/v1 or http://127.0.0.1:11434/v1')
        .refine((value) => /^https?:\/\//i.test(value), 'MODEL_BASE_URL must use http or https')
        .refine((value) => !/[?#]/.test(value), 'MODEL_BASE_URL must not contain a query or fragment')
        .optional(),
    ),
    // The key's value never appears in a message.
    MODEL_API_KEY: z.preprocess(
      blankToUndefined,
      z
        .string()
        .refine((value) => !/\s/.test(value), 'MODEL_API_KEY must not contain whitespace')
        .optional(),
    ),
    MODEL_NAME: z.preprocess(blankToUndefined, z.string().max(200, 'MODEL_NAME must be at most 200 characters').optional()),
    MODEL_TIMEOUT_MS: integer('MODEL_TIMEOUT_MS', 100, 600_000, 60_000),
    MODEL_REASONING: z.preprocess(blankToUndefined, z.enum(['true', 'false'], { message: 'MODEL_REASONING must be true or false' }).optional()),
    MODEL_ACCEPTS_IMAGES: z.preprocess(blankToUndefined, z.enum(['true', 'false'], { message: 'MODEL_ACCEPTS_IMAGES must be true or false' }).optional()),
    MODEL_CONTEXT_WINDOW: integer('MODEL_CONTEXT_WINDOW', 1, 10_000_000, 128_000),
    MODEL_MAX_OUTPUT_TOKENS: integer('MODEL_MAX_OUTPUT_TOKENS', 1, 1_000_000, 32_768),
    OFFLINE_ENGINE_SEED: integer('OFFLINE_ENGINE_SEED', 0, 2 ** 31 - 1, 0),
    // A pause between the offline engine's streamed deltas, so demos and shutdown tests see a stream in progress.
    OFFLINE_ENGINE_CHUNK_DELAY_MS: integer('OFFLINE_ENGINE_CHUNK_DELAY_MS', 0, 1000, 0),
  })
  .superRefine((env, context) => {
    if (env.MODEL_BASE_URL && !env.MODEL_NAME)
      context.addIssue({
        code: 'custom',
        path: ['MODEL_NAME'],
        message: 'MODEL_NAME is required when MODEL_BASE_URL is set (the upstream model to call, e.g. gpt-4.1-mini)',
      });
    if (!env.MODEL_BASE_URL && (env.MODEL_NAME || env.MODEL_API_KEY)) {
      context.addIssue({
        code: 'custom',
        path: ['MODEL_BASE_URL'],
        message: `MODEL_BASE_URL is required when ${env.MODEL_NAME ? 'MODEL_NAME' : 'MODEL_API_KEY'} is set (leave all three unset for the offline engine)`,
      });
    }
  });

/** Reads the engine settings; throws an `EngineConfigError` listing every problem. */
export function parseEngineConfig(env: Readonly<Record<string, string | undefined>> = process.env): EngineConfig {
  const parsed = schema.safeParse(env);
  if (!parsed.success) throw new EngineConfigError(parsed.error.issues.map((issue) => issue.message));
  const values = parsed.data;
  if (!values.MODEL_BASE_URL) {
    return {
      engine: 'offline',
      seed: values.OFFLINE_ENGINE_SEED,
      contextWindow: values.MODEL_CONTEXT_WINDOW,
      maxOutputTokens: values.MODEL_MAX_OUTPUT_TOKENS,
      ...(values.OFFLINE_ENGINE_CHUNK_DELAY_MS > 0 ? { chunkDelayMs: values.OFFLINE_ENGINE_CHUNK_DELAY_MS } : {}),
    };
  }
  return {
    engine: 'openai-compatible',
    upstream: {
      baseUrl: values.MODEL_BASE_URL.replace(/\/+$/, ''),
      apiKey: values.MODEL_API_KEY ?? null,
      model: values.MODEL_NAME as string,
      timeoutMs: values.MODEL_TIMEOUT_MS,
      reasoning: values.MODEL_REASONING === 'true',
      acceptsImages: values.MODEL_ACCEPTS_IMAGES === 'true',
      contextWindow: values.MODEL_CONTEXT_WINDOW,
      maxOutputTokens: values.MODEL_MAX_OUTPUT_TOKENS,
    },
  };
}
