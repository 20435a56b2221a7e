import type { JsonSchema } from '@persona-api/engine';
import type { Executor } from '../../db/client.js';
import type { Services } from '../../services.js';

/** One passage a research tool returned: what an answer may cite. */
export interface FoundSource {
  title: string;
  /** Where the reader can open it: the story, the signed file link, the persona's API address, the web page. */
  url: string;
  /** The passage itself (what the model reads and the answer relies on). */
  snippet: string;
  publishedAt: Date | null;
}

export interface ToolOutcome {
  /** One line on what the search found (stored on `/responses` as `result_summary`). */
  summary: string;
  sources: FoundSource[];
}

/** Whose data a tool may read: the caller's workspace only (and the shared news corpus and base personas). */
export interface ToolScope {
  db: Executor;
  services: Services;
  workspaceId: string | null;
  now: Date;
  signal?: AbortSignal;
  /** Extracted document text, kept for the rest of one answer (a loop searches the same files several times). */
  documentCache: Map<string, string | null>;
}

/** A server-side research tool: offered to the model as a function `{query}` and run by the server. */
export interface ResearchTool {
  name: 'news_search' | 'document_search' | 'persona_search' | 'web_search';
  description: string;
  run(scope: ToolScope, query: string): Promise<ToolOutcome>;
}

/** Every research tool takes one search query. */
export const QUERY_PARAMETERS: JsonSchema = {
  type: 'object',
  properties: { query: { type: 'string', description: 'Keywords or a short question to search for.' } },
  required: ['query'],
  additionalProperties: false,
};

/** Sources per search (the passages a model reads per call). */
export const SOURCES_PER_SEARCH = 5;
