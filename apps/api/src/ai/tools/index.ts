// The server-side research tools, shared by the research agent and `/responses` (DECISIONS.md): each reads
// only the caller's own data (the workspace's documents, its custom personas) or shared data (the news
// corpus, the base personas), and the web only through a configured provider.
import type { EngineTool, ResearchSource } from '@persona-api/engine';
import type { Services } from '../../services.js';
import { documentSearch } from './document-search.js';
import { newsSearch } from './news-search.js';
import { isPersonaSourceUrl, personaSearch } from './persona-search.js';
import { QUERY_PARAMETERS, type ResearchTool } from './types.js';
import { webSearchTool } from './web-search.js';

export type { FoundSource, ResearchTool, ToolOutcome, ToolScope } from './types.js';
export { documentSearch, newsSearch, personaSearch };

/** The tools a server offers: the three over the caller's data, and web search only with a provider. */
export function researchTools(services: Services): ResearchTool[] {
  const tools: ResearchTool[] = [newsSearch, documentSearch, personaSearch];
  if (services.webSearch) tools.push(webSearchTool(services.webSearch));
  return tools;
}

/** A tool as the engine offers it to a model. */
export const engineToolOf = (tool: ResearchTool): EngineTool => ({
  name: tool.name,
  description: tool.description,
  parameters: QUERY_PARAMETERS,
  strict: true,
});

/** The `query` of a model's tool call, or null when the arguments are not `{query: string}`. */
export function queryOf(argumentsText: string): string | null {
  try {
    const parsed = JSON.parse(argumentsText) as unknown;
    if (parsed && typeof parsed === 'object' && typeof (parsed as { query?: unknown }).query === 'string') {
      const query = (parsed as { query: string }).query.trim();
      return query.length > 0 ? query.slice(0, 500) : null;
    }
  } catch {
    // Not JSON: the model gets an error result and may call again.
  }
  return null;
}

/** Found sources as the engine's extractive answer reads them: numbered in order, a persona's profile marked as such. */
export const researchSourcesOf = (found: readonly { title: string; url: string; snippet: string }[]): ResearchSource[] =>
  found.map((source, index) => ({ ref: index + 1, title: source.title, snippet: source.snippet, persona: isPersonaSourceUrl(source.url) }));
