// One research-agent answer (DECISIONS.md, Research agent): an agent loop over the server's research tools.
// Upstream, the model chooses the tools over up to MAX_TOOL_ROUNDS rounds and then answers without tools;
// the offline engine follows its documented rule (every tool searched with the question's keywords, an
// extractive answer from what they returned). Either way every source a tool returns is announced as it is
// found, and the text's citations are checked against them before anything is sent or stored.
import {
  composeResearchAnswer,
  countPromptTokens,
  countTokens,
  EngineError,
  researchKeywords,
  threadTitle,
  offlineThreadTitle,
  type EngineMessage,
  type EnginePersona,
  type EngineToolCall,
  type GenerateRequest,
  type GenerateResult,
} from '@persona-api/engine';
import type { AgentMessageSource } from '@persona-api/types';
import { CitationFilter, resolveCitations } from '../../ai/citations.js';
import { engineToolOf, queryOf, researchSourcesOf, type FoundSource, type ResearchTool, type ToolScope } from '../../ai/tools/index.js';
import type { RequestContext } from '../../http/context.js';

/** Rounds in which the model may call tools; one more round answers without them. */
export const MAX_TOOL_ROUNDS = 4;
/** AgentMessage.sources holds at most 50. */
export const MAX_SOURCES = 50;

export const AGENT_INSTRUCTIONS = [
  'You are a research assistant. Research the question with the tools before answering: search the news, the workspace documents and the personas as the question needs.',
  'Every tool result lists passages, each with a "ref" number. Cite each fact with the ref of the passage it comes from, written as [ref], for example [2]. Cite only refs you were given; never invent sources.',
  'If the tools found nothing relevant, say so plainly. Write the answer in Markdown.',
].join('\n');

const personaInstruction = (persona: EnginePersona) =>
  `Answer from the point of view of ${persona.name} (${persona.category}): weigh the findings as this persona would.`;

export interface AnswerEvents {
  /** A source was found; `index` is its 0-based position in `sources` (cited as `[index + 1]`). */
  source(index: number, source: AgentMessageSource): void;
  /** The next piece of the checked answer text. */
  delta(text: string): void;
  /** Backpressure: resolves when the reader has room for more (a streamed answer's EventStream.drained). */
  writable?(): Promise<void>;
}

export interface AnswerUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface Answer {
  content: string;
  sources: AgentMessageSource[];
  usage: AnswerUsage;
  /** The generated title, when one was asked for. */
  title: string | null;
}

/** An answer that failed midway: what it had written and found, and the tokens spent (not charged). */
export class AnswerFailure extends Error {
  override name = 'AnswerFailure';
  constructor(
    readonly failure: unknown,
    readonly partial: { content: string; sources: AgentMessageSource[]; usage: AnswerUsage },
  ) {
    super(failure instanceof Error ? failure.message : 'The answer failed.');
  }
}

/** The distinct sources found so far, numbered in the order found. */
class SourceRegistry {
  readonly list: AgentMessageSource[] = [];
  private readonly refs = new Map<string, number>();

  constructor(private readonly onAdded: (index: number, source: AgentMessageSource) => void) {}

  /** The source's citation number (the same for the same passage), or null when the list is full. */
  add(found: FoundSource): number | null {
    const key = `${found.url}\n${found.snippet}`;
    const known = this.refs.get(key);
    if (known !== undefined) return known;
    if (this.list.length >= MAX_SOURCES) return null;
    const source: AgentMessageSource = { title: found.title.slice(0, 500) || found.url, url: found.url, snippet: found.snippet.slice(0, 2000) };
    this.list.push(source);
    const ref = this.list.length;
    this.refs.set(key, ref);
    this.onAdded(ref - 1, source);
    return ref;
  }
}

export interface AnswerInput {
  persona: EnginePersona | null;
  /** Earlier completed messages of the thread, oldest first. */
  history: EngineMessage[];
  question: string;
  tools: readonly ResearchTool[];
  scope: ToolScope;
  /** The message to title the thread from, or null when it keeps its title. */
  titleFrom: string | null;
}

const instructionsFor = (persona: EnginePersona | null) => (persona ? `${AGENT_INSTRUCTIONS}\n${personaInstruction(persona)}` : AGENT_INSTRUCTIONS);

/** The request's prompt tokens before any research: the floor of an answer's cost (the 402 check). */
export function promptFloor(input: Pick<AnswerInput, 'persona' | 'history' | 'question' | 'tools'>): number {
  const system = [input.persona?.system_prompt ?? '', instructionsFor(input.persona)];
  return countPromptTokens(system, [...input.history, { role: 'user', content: input.question }], input.tools.map(engineToolOf));
}

/** Runs one tool call and gives the model its result: the passages with their refs, or why there are none. */
async function runTool(tools: readonly ResearchTool[], call: { name: string; arguments: string }, scope: ToolScope, sources: SourceRegistry): Promise<string> {
  const tool = tools.find((candidate) => candidate.name === call.name);
  if (!tool) return JSON.stringify({ error: `There is no tool named ${call.name}.` });
  const query = queryOf(call.arguments);
  if (query === null) return JSON.stringify({ error: 'Call the tool with {"query": "<keywords>"}.' });
  try {
    const outcome = await tool.run(scope, query);
    const results = [];
    for (const found of outcome.sources) {
      const ref = sources.add(found);
      if (ref === null) break;
      results.push({ ref, title: found.title, url: found.url, published_at: found.publishedAt?.toISOString() ?? null, snippet: found.snippet });
    }
    return JSON.stringify({ summary: outcome.summary, results });
  } catch (error) {
    scope.services.logger.warn({ err: error, tool: tool.name }, 'research tool failed');
    return JSON.stringify({ error: `The ${tool.name} tool failed; try another tool or answer with what you have.` });
  }
}

/** Word-sized pieces (each word with the whitespace after it), as an engine streams text. */
const wordPieces = (text: string): string[] => text.match(/\s*\S+\s*/g) ?? (text ? [text] : []);

/** The thread's title from the first message: the engine's `thread_title` feature, or the offline rule if that fails. */
async function generateTitle(ctx: RequestContext, question: string, usage: AnswerUsage): Promise<string> {
  try {
    const { output, usage: used } = await ctx.engine.run(threadTitle, { message: question });
    usage.inputTokens += used.input_tokens;
    usage.outputTokens += used.output_tokens;
    return output.title;
  } catch (error) {
    // A title is not worth failing an answer for (its tokens, if any, are not counted).
    if (error instanceof EngineError && error.usage) {
      usage.inputTokens += error.usage.input_tokens;
      usage.outputTokens += error.usage.output_tokens;
    }
    return offlineThreadTitle(question);
  }
}

/** Streams one engine round, passing its text through the citation filter. */
async function streamRound(
  ctx: RequestContext,
  request: GenerateRequest,
  filter: CitationFilter,
  emit: (text: string) => void,
  writable: () => Promise<void>,
): Promise<GenerateResult> {
  let result: GenerateResult | null = null;
  for await (const event of ctx.engine.stream(request)) {
    if (event.type === 'text_delta') emit(filter.push(event.delta));
    else if (event.type === 'done') result = event.result;
    await writable();
  }
  if (!result) throw new EngineError('upstream_error', 'The model stream ended without a result.');
  return result;
}

export async function researchAnswer(ctx: RequestContext, input: AnswerInput, events: AnswerEvents): Promise<Answer> {
  const usage: AnswerUsage = { inputTokens: 0, outputTokens: 0 };
  const sources = new SourceRegistry((index, source) => events.source(index, source));
  const filter = new CitationFilter(() => sources.list.length);
  let content = '';
  const emit = (text: string) => {
    if (!text) return;
    content += text;
    events.delta(text);
  };
  try {
    const title = input.titleFrom !== null ? await generateTitle(ctx, input.titleFrom, usage) : null;
    const instructions = instructionsFor(input.persona);
    const messages: EngineMessage[] = [...input.history, { role: 'user', content: input.question }];

    if (ctx.engine.kind === 'offline') {
      // The offline rule: every tool with the question's keywords, then an extractive answer.
      const query = researchKeywords(input.question).join(' ') || input.question.slice(0, 500);
      const calls: EngineToolCall[] = input.tools.map((tool, index) => ({
        call_id: `call_offline_${index}`,
        name: tool.name,
        arguments: JSON.stringify({ query }),
      }));
      messages.push({ role: 'assistant', content: null, tool_calls: calls });
      for (const call of calls) messages.push({ role: 'tool', call_id: call.call_id, content: await runTool(input.tools, call, input.scope, sources) });
      const text = composeResearchAnswer({
        question: input.question,
        sources: researchSourcesOf(sources.list),
      });
      for (const piece of wordPieces(text)) emit(filter.push(piece));
      emit(filter.end());
      usage.inputTokens += countPromptTokens([input.persona?.system_prompt ?? '', instructions], messages, input.tools.map(engineToolOf));
      usage.outputTokens += countTokens(content);
    } else {
      const tools = input.tools.map(engineToolOf);
      for (let round = 0; round <= MAX_TOOL_ROUNDS; round += 1) {
        const last = round === MAX_TOOL_ROUNDS;
        const result = await streamRound(
          ctx,
          { persona: input.persona, instructions, messages, tools, tool_choice: last ? 'none' : 'auto' },
          filter,
          emit,
          () => events.writable?.() ?? Promise.resolve(),
        );
        usage.inputTokens += result.usage.input_tokens;
        usage.outputTokens += result.usage.output_tokens;
        if (result.tool_calls.length === 0 || last) break;
        messages.push({ role: 'assistant', content: result.text || null, tool_calls: result.tool_calls });
        for (const call of result.tool_calls)
          messages.push({ role: 'tool', call_id: call.call_id, content: await runTool(input.tools, call, input.scope, sources) });
      }
      emit(filter.end());
    }

    // The check before `completed`: every [n] is a returned source (the filter already removed the rest).
    const checked = resolveCitations(content, sources.list.length);
    if (checked !== content) throw new Error('a citation of no source reached the answer text');
    if (content.trim().length === 0) {
      // A model that only called tools: the extractive answer from what they found.
      emit(
        composeResearchAnswer({
          question: input.question,
          sources: researchSourcesOf(sources.list),
        }),
      );
      usage.outputTokens += countTokens(content);
    }
    return { content, sources: sources.list, usage, title };
  } catch (error) {
    throw new AnswerFailure(error, { content, sources: sources.list, usage });
  }
}
