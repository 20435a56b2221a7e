import type { Fetcher } from '../../lib/guarded-fetch.js';
import { clipText } from './ranking.js';
import { SOURCES_PER_SEARCH, type FoundSource, type ResearchTool } from './types.js';

/** A web search provider: only configured servers offer `web_search` (DECISIONS.md). */
export interface WebSearchProvider {
  search(query: string, signal?: AbortSignal): Promise<FoundSource[]>;
}

/**
 * A SearXNG-compatible JSON endpoint (`WEB_SEARCH_URL`, e.g. `https://searx.example/search`): GET
 * `?q=…&format=json`, results `{url, title, content, publishedDate}`. The operator configures the address,
 * so it may be on the private network; the answer is still bounded by the fetcher's size and time limits.
 */
export function searxngProvider(endpoint: string, fetcher: Fetcher): WebSearchProvider {
  return {
    async search(query, signal) {
      const url = new URL(endpoint);
      url.searchParams.set('q', query);
      url.searchParams.set('format', 'json');
      const response = await fetcher.get(url, { allowPrivateAddresses: true, headers: { accept: 'application/json' }, ...(signal ? { signal } : {}) });
      const chunks: Buffer[] = [];
      for await (const chunk of response.body) chunks.push(chunk as Buffer);
      if (!response.ok) throw new Error(`The web search provider answered HTTP ${response.status}.`);
      const payload = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { results?: unknown };
      const results = Array.isArray(payload.results) ? payload.results : [];
      const sources: FoundSource[] = [];
      for (const result of results as Record<string, unknown>[]) {
        if (typeof result.url !== 'string' || !/^https?:\/\//.test(result.url) || result.url.length > 2048) continue;
        const published = typeof result.publishedDate === 'string' ? new Date(result.publishedDate) : null;
        sources.push({
          title: clipText(typeof result.title === 'string' && result.title.trim() ? result.title.trim() : result.url, 500),
          url: result.url,
          snippet: clipText(typeof result.content === 'string' ? result.content.trim() : '', 2000),
          publishedAt: published && !Number.isNaN(published.getTime()) ? published : null,
        });
        if (sources.length >= SOURCES_PER_SEARCH) break;
      }
      return sources;
    },
  };
}

export const webSearchTool = (provider: WebSearchProvider): ResearchTool => ({
  name: 'web_search',
  description: 'Search the web. Returns the best-matching pages with a passage of each.',
  async run({ signal }, query) {
    const sources = await provider.search(query, signal);
    return { summary: sources.length === 0 ? `The web search found nothing for "${query}".` : `${sources.length} web pages matched "${query}".`, sources };
  },
});
