// Server-side tools of `/responses` (DECISIONS.md, Responses): `persona_knowledge_search` (the passages of the
// caller's default workspace's uploaded documents: the knowledge the persona answers from), `news_search`
// and `web_search` (only with a configured provider) — the same implementations as the research agent's.
// They are offered only when the question asks for sourced or current information (TRIGGER) on a plain-text
// answer; upstream the model decides whether to call them, offline they all run with the question's keywords.
// Their passages are numbered [n] for the answer, and each `[n]` of the text becomes a url_citation.
import {
  composeResearchAnswer,
  countTokens,
  researchKeywords,
  type EngineMessage,
  type EngineUsage,
  type GenerateRequest,
  type GenerateResult,
} from '@persona-api/engine';
import type { components } from '@persona-api/types';
import type { RequestContext } from '../../http/context.js';
import { newId } from '../../lib/ids.js';
import { documentSearch } from './document-search.js';
import { engineToolOf, queryOf, researchSourcesOf } from './index.js';
import { newsSearch } from './news-search.js';
import type { FoundSource, ResearchTool } from './types.js';
import { webSearchTool } from './web-search.js';

type ServerToolCall = components['schemas']['ServerToolCall'];
type UrlCitation = components['schemas']['ResponseUrlCitation'];
export type ServerToolType = ServerToolCall['type'];

/** Words that ask for sourced or current information: only then are server tools offered. */
export const SERVER_TOOL_TRIGGER =
  /\b(news|headlines?|latest|recent(ly)?|this week|today|sources?|cite|citations?|research|documents?|docs|files?|knowledge|according to)\b/i;
/** Each entry of `server_tool_calls` costs this much on top of the tokens (ServerToolCall). */
export const SERVER_TOOL_CREDITS = 1;
/** At most this many server tool calls per response. */
const MAX_SERVER_CALLS = 3;

interface ServerTool {
  type: ServerToolType;
  tool: ResearchTool;
}

function serverTools(ctx: RequestContext): ServerTool[] {
  const tools: ServerTool[] = [
    { type: 'persona_knowledge_search', tool: { ...documentSearch, name: 'document_search' } },
    { type: 'news_search', tool: newsSearch },
  ];
  if (ctx.services.webSearch) tools.push({ type: 'web_search', tool: webSearchTool(ctx.services.webSearch) });
  return tools;
}

export interface ServerResearch {
  calls: ServerToolCall[];
  /** The numbered passages: `[n]` is `sources[n-1]`. */
  sources: FoundSource[];
  /** Tokens of the model's tool-selection round (upstream), not yet in the answer's usage. */
  usage: { input_tokens: number; output_tokens: number };
  /** Credits the calls cost on top of the tokens. */
  credits: number;
}

const lastUser = (messages: readonly EngineMessage[]) => [...messages].reverse().find((message) => message.role === 'user')?.content ?? '';

/** Whether a request gets server tools: a plain-text answer (no json_schema, artifact or analysis) to a question that asks for sources. */
export function wantsServerTools(request: GenerateRequest): boolean {
  const plain = (request.response_format?.type ?? 'text') === 'text' && !request.artifact && !request.analysis;
  return plain && SERVER_TOOL_TRIGGER.test(lastUser(request.messages));
}

/**
 * Runs the server tools the model asks for (one selection round upstream, with only the server tools offered)
 * or, offline, every server tool with the question's keywords. A tool that throws is a `failed` entry.
 */
export async function runServerTools(ctx: RequestContext, request: GenerateRequest, workspaceId: string | null): Promise<ServerResearch> {
  const tools = serverTools(ctx);
  const question = lastUser(request.messages);
  const usage = { input_tokens: 0, output_tokens: 0 };
  let wanted: { type: ServerToolType; query: string }[];
  if (ctx.engine.kind === 'offline') {
    const query = researchKeywords(question).join(' ') || question.slice(0, 500);
    wanted = tools.map((entry) => ({ type: entry.type, query }));
  } else {
    const selection = await ctx.engine.generate({
      ...request,
      instructions: `${request.instructions ?? ''}\nBefore answering, call the search tools for any facts you need to cite.`.trim(),
      tools: tools.map((entry) => ({ ...engineToolOf(entry.tool), name: entry.type })),
      tool_choice: 'auto',
    });
    usage.input_tokens += selection.usage.input_tokens;
    usage.output_tokens += selection.usage.output_tokens;
    wanted = selection.tool_calls.flatMap((call) => {
      const query = queryOf(call.arguments);
      const type = tools.find((entry) => entry.type === call.name)?.type;
      return type && query ? [{ type, query }] : [];
    });
  }
  const scope = { db: ctx.db, services: ctx.services, workspaceId, now: ctx.now(), documentCache: new Map<string, string | null>() };
  const calls: ServerToolCall[] = [];
  const sources: FoundSource[] = [];
  for (const { type, query } of wanted.slice(0, MAX_SERVER_CALLS)) {
    const entry = tools.find((candidate) => candidate.type === type)!;
    try {
      const outcome = await entry.tool.run(scope, query);
      const found = outcome.sources.slice(0, 20);
      for (const source of found)
        if (sources.length < 50 && !sources.some((known) => known.url === source.url && known.snippet === source.snippet)) sources.push(source);
      calls.push({
        id: newId('stc'),
        type,
        status: 'completed',
        query: query.slice(0, 1000),
        result_summary: outcome.summary.slice(0, 2000),
        sources: found.map((source) => ({ title: source.title.slice(0, 300), url: source.url, published_at: source.publishedAt?.toISOString() ?? null })),
      });
    } catch (error) {
      ctx.log.warn({ err: error, tool: type }, 'server tool failed');
      calls.push({ id: newId('stc'), type, status: 'failed', query: query.slice(0, 1000), result_summary: null, sources: [] });
    }
  }
  return { calls, sources, usage, credits: calls.length * SERVER_TOOL_CREDITS };
}

/** The passages as the model reads them, numbered for citation; null when there are none. */
export function sourcesMessage(research: ServerResearch): EngineMessage | null {
  if (research.sources.length === 0) return null;
  const lines = research.sources.map((source, index) => `[${index + 1}] ${source.title} (${source.url})\n${source.snippet}`);
  return {
    role: 'developer',
    content: `Server-side search results. Cite a passage you use as [n] with its number; cite nothing else.\n\n${lines.join('\n\n')}`,
  };
}

/** The offline rule's answer: extractive, citing the passages (as the research agent's offline answer). */
export function offlineResearchResult(question: string, research: ServerResearch, inputTokens: number): GenerateResult {
  const text = composeResearchAnswer({
    question,
    sources: researchSourcesOf(research.sources),
  });
  const usage: EngineUsage = { input_tokens: inputTokens, output_tokens: countTokens(text), cached_tokens: 0, reasoning_tokens: 0, source: 'tokenizer' };
  return { text, tool_calls: [], parsed: null, structured_output_error: null, analysis: null, usage, finish_reason: 'stop', model: 'offline' };
}

/** A `url_citation` for every `[n]` of the text that names a passage (a number naming none is left unannotated). */
export function citationsOf(text: string, sources: readonly FoundSource[]): UrlCitation[] {
  const annotations: UrlCitation[] = [];
  for (const match of text.matchAll(/\[(\d{1,3})\]/g)) {
    const source = sources[Number(match[1]) - 1];
    if (!source || match.index === undefined) continue;
    annotations.push({
      type: 'url_citation',
      url: source.url,
      title: source.title.slice(0, 300),
      start_index: match.index,
      end_index: match.index + match[0].length,
    });
    if (annotations.length >= 50) break;
  }
  return annotations;
}

export const serverToolTokens = (research: ServerResearch) => research.usage.input_tokens + research.usage.output_tokens;
