// The offline engine: deterministic composition, no network, no model. Same request and seed → same output.
import { artifactOpenTag, ARTIFACT_CLOSE_TAG, formatArtifact } from '../artifact.js';
import { abortedError, EngineError } from '../errors.js';
import { assertValidRequest, cutAtStop, lastUserText, levels, systemTexts, toolNameFor } from '../request.js';
import { countPromptTokens, countTokens, countToolCallTokens, truncateToTokens } from '../tokens.js';
import type { Engine, EngineDescription, EngineStreamEvent, EngineToolCall, FinishReason, GenerateRequest, GenerateResult } from '../types.js';
import type { Feature, FeatureResult, RunOptions } from '../features/define.js';
import type { TextFeature } from '../features/define-text.js';
import { responseAnalysis } from '../features/response-analysis/index.js';
import { withFeatureShortcuts } from '../features/shortcuts.js';
import { composeDocument, composeReply, composeToolAnswer } from './compose.js';
import { inputFiller, personaFiller } from './fillers.js';
import { generateInstance } from './structured.js';
import { createRandom, kebab, stableId } from '../text/index.js';
import { chooseTool } from './tools.js';

export interface OfflineEngineOptions {
  /** Changes every output while keeping it deterministic (default 0). */
  seed?: number;
  /** Pause between streamed deltas, for demos (default 0: only yields to the event loop). */
  chunkDelayMs?: number;
  /** What `describe()` reports (defaults 128 000 and 32 768). */
  contextWindow?: number;
  maxOutputTokens?: number;
}

export const OFFLINE_DESCRIPTION =
  'Offline development engine, not a language model: it composes deterministic text from the persona profile and the input with fixed rules (the same request always gives the same output), needs no network or keys, and is meant for development, tests and demos.';

const NO_ARGUMENTS_SCHEMA = { type: 'object', properties: {}, additionalProperties: false } as const;

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortedError(signal);
}

/** Splits text into word-sized deltas (each word with the whitespace after it). */
export function wordChunks(text: string): string[] {
  const chunks = text.match(/\s*\S+\s*/g) ?? [];
  return chunks.length > 0 ? chunks : text.length > 0 ? [text] : [];
}

function sliceChunks(text: string, size: number): string[] {
  const chunks: string[] = [];
  for (let index = 0; index < text.length; index += size) chunks.push(text.slice(index, index + size));
  return chunks;
}

const pause = (ms: number) => new Promise<void>((resolve) => (ms > 0 ? setTimeout(resolve, ms) : setImmediate(resolve)));

export function createOfflineEngine(options: OfflineEngineOptions = {}): Engine {
  const seed = options.seed ?? 0;
  const description: EngineDescription = {
    engine: 'offline',
    upstream_model: null,
    description: OFFLINE_DESCRIPTION,
    context_window: options.contextWindow ?? 128_000,
    max_output_tokens: options.maxOutputTokens ?? 32_768,
    accepts_images: false,
  };

  function answer(request: GenerateRequest): GenerateResult {
    assertValidRequest(request);
    const { persona, messages } = request;
    const { verbosity, effort } = levels(request);
    const instructions = [
      request.instructions ?? '',
      ...messages.filter((m) => m.role === 'system' || m.role === 'developer').map((m) => m.content ?? ''),
    ].join('\n');
    const input = lastUserText(messages);
    const last = messages[messages.length - 1];
    const conversationKey = JSON.stringify(messages);
    // A request's `seed` changes the choices as the engine's own seed does (no seed: the same as before).
    const random = createRandom(
      'offline',
      seed,
      persona?.id ?? '',
      instructions,
      conversationKey,
      verbosity,
      effort,
      ...(request.seed !== undefined ? [String(request.seed)] : []),
    );
    const tools = request.tools ?? [];
    const choice = request.tool_choice ?? 'auto';
    const format = request.response_format ?? { type: 'text' };

    let text = '';
    let toolCalls: EngineToolCall[] = [];
    let parsed: Record<string, unknown> | null = null;
    let structuredError: string | null = null;
    let finish: FinishReason = 'stop';

    const tool = chooseTool(tools, choice, last && last.role !== 'assistant' ? { role: last.role, content: last.content } : undefined);
    if (tool) {
      const args = generateInstance(tool.parameters ?? NO_ARGUMENTS_SCHEMA, random.seed(), inputFiller(input));
      if (args === null) throw new EngineError('invalid_request', `No arguments valid against the parameters of tool \`${tool.name}\` could be produced.`);
      toolCalls = [{ call_id: stableId('call_', seed, conversationKey, tool.name), name: tool.name, arguments: JSON.stringify(args) }];
      finish = 'tool_calls';
    } else {
      const toolOutput = last?.role === 'tool' ? last : null;
      // The turns before the last user message, for a recap or a recall question.
      const lastUser = messages.findLastIndex((m) => m.role === 'user');
      const history = messages
        .slice(0, Math.max(0, lastUser))
        .flatMap((m) => (m.role === 'user' || (m.role === 'assistant' && m.content) ? [{ role: m.role, content: m.content ?? '' }] : []));
      const compose = { persona, instructions, input, history, verbosity, effort, random };
      let doc: ReturnType<typeof composeDocument> | null = null;
      if (format.type === 'json_schema') {
        const source = toolOutput ? `${input}\n${toolOutput.content}` : input;
        const reply = composeReply({ ...compose, input: source, verbosity: 'low' });
        const instance = generateInstance(format.schema, random.seed(), personaFiller(persona, source, reply, random));
        if (instance === null || typeof instance !== 'object' || Array.isArray(instance)) {
          structuredError = 'The offline engine could not produce an instance of this schema.';
        } else {
          parsed = instance as Record<string, unknown>;
          text = JSON.stringify(instance);
        }
      } else if (toolOutput) {
        text = composeToolAnswer({ ...compose, toolName: toolNameFor(messages, toolOutput.call_id), output: toolOutput.content });
      } else if (request.artifact) {
        doc = composeDocument(compose);
        text = formatArtifact({ preface: doc.preface, identifier: kebab(doc.title), type: 'text/markdown', title: doc.title, content: doc.content });
      } else {
        text = composeReply(compose);
      }

      const stopped = cutAtStop(text, request.stop);
      if (stopped.stopped) {
        text = stopped.text;
        if (parsed) {
          parsed = null;
          structuredError = 'The output was cut by a stop sequence before the JSON document was complete.';
        }
      }
      const limit = request.max_output_tokens;
      if (limit != null && countTokens(text) > limit) {
        finish = 'length';
        if (doc) {
          // Keep the grammar: the tags count against the budget and stay whole; only the content is cut.
          const cut = truncateToTokens(
            doc.content,
            Math.max(
              1,
              limit -
                countTokens(
                  `${doc.preface}\n\n${artifactOpenTag({ identifier: kebab(doc.title), type: 'text/markdown', title: doc.title })}\n\n${ARTIFACT_CLOSE_TAG}`,
                ),
            ),
          );
          text = formatArtifact({ preface: doc.preface, identifier: kebab(doc.title), type: 'text/markdown', title: doc.title, content: cut.text });
        } else {
          text = truncateToTokens(text, limit).text;
        }
        if (parsed) {
          parsed = null;
          structuredError = 'The output was cut by max_output_tokens before the JSON document was complete.';
        }
      }
    }

    const analysis = request.analysis
      ? responseAnalysis.offline({ text: input, persona, variation: [seed, persona?.id ?? '', conversationKey] }, { seed })
      : null;
    return {
      text,
      tool_calls: toolCalls,
      parsed,
      structured_output_error: structuredError,
      analysis,
      usage: {
        input_tokens: countPromptTokens(systemTexts(request), messages, tools),
        output_tokens: countTokens(text) + countToolCallTokens(toolCalls),
        cached_tokens: 0,
        reasoning_tokens: 0,
        source: 'tokenizer',
      },
      finish_reason: finish,
      model: 'offline',
    };
  }

  async function* stream(request: GenerateRequest, signal?: AbortSignal): AsyncGenerator<EngineStreamEvent> {
    if (signal?.aborted) return;
    yield* streamResult(answer(request), signal);
  }

  /** A text feature's offline text, cut to the request's output budget, streamed word by word. */
  async function* streamText<Input>(feature: TextFeature<Input>, input: Input, options: RunOptions = {}): AsyncGenerator<EngineStreamEvent> {
    if (options.signal?.aborted) return;
    const request = feature.request(input);
    let text = feature.offline(input, { seed });
    let finish: FinishReason = 'stop';
    if (request.max_output_tokens != null && countTokens(text) > request.max_output_tokens) {
      text = truncateToTokens(text, request.max_output_tokens).text;
      finish = 'length';
    }
    const result: GenerateResult = {
      text,
      tool_calls: [],
      parsed: null,
      structured_output_error: null,
      analysis: null,
      // No model ran: the tokenizer's count of what a model would have read and written.
      usage: {
        input_tokens: countPromptTokens(systemTexts(request), request.messages),
        output_tokens: countTokens(text),
        cached_tokens: 0,
        reasoning_tokens: 0,
        source: 'tokenizer',
      },
      finish_reason: finish,
      model: 'offline',
    };
    yield* streamResult(result, options.signal);
  }

  async function* streamResult(result: GenerateResult, signal?: AbortSignal): AsyncGenerator<EngineStreamEvent> {
    for (const delta of wordChunks(result.text)) {
      await pause(options.chunkDelayMs ?? 0);
      if (signal?.aborted) return;
      yield { type: 'text_delta', delta };
    }
    for (const [index, call] of result.tool_calls.entries()) {
      if (signal?.aborted) return;
      yield { type: 'tool_call_start', index, call_id: call.call_id, name: call.name };
      for (const delta of sliceChunks(call.arguments, 16)) {
        await pause(options.chunkDelayMs ?? 0);
        if (signal?.aborted) return;
        yield { type: 'tool_call_arguments_delta', index, delta };
      }
      yield { type: 'tool_call_done', index, call_id: call.call_id, name: call.name, arguments: call.arguments };
    }
    if (signal?.aborted) return;
    yield { type: 'usage', usage: result.usage };
    yield { type: 'done', result };
  }

  return withFeatureShortcuts({
    kind: 'offline',
    describe: () => ({ ...description }),
    async generate(request, signal) {
      throwIfAborted(signal);
      return answer(request);
    },
    stream,
    streamText,
    // What `run` counts below: the input itself.
    inputTokensOf: (_feature, input) => countTokens(JSON.stringify(input)),
    async run<Input, Output>(feature: Feature<Input, Output>, input: Input, options: RunOptions = {}): Promise<FeatureResult<Output>> {
      throwIfAborted(options.signal);
      const output = feature.offline(input, { seed });
      // No model ran: the tokenizer's count of what a model would have read and written.
      const usage = {
        input_tokens: countTokens(JSON.stringify(input)),
        output_tokens: countTokens(JSON.stringify(output)),
        cached_tokens: 0,
        reasoning_tokens: 0,
        source: 'tokenizer' as const,
      };
      return { output, usage };
    },
  });
}
