import { desc, sql } from 'drizzle-orm';
import { newsStories } from '../../resources/news/table.js';
import { searchTerms } from './ranking.js';
import { SOURCES_PER_SEARCH, type ResearchTool } from './types.js';

/**
 * The news corpus through the database's full-text search (the news module's GIN index expression): any of
 * the query's word stems as a prefix, best `ts_rank` first, then newest.
 */
export const newsSearch: ResearchTool = {
  name: 'news_search',
  description: 'Search recent news stories (headline and summary) by keywords. Returns the best-matching stories with their links.',
  async run({ db }, query) {
    const terms = searchTerms(query);
    if (terms.length === 0) return { summary: 'No searchable words in the query.', sources: [] };
    const tsquery = terms.map((term) => `${term}:*`).join(' | ');
    const document = sql`to_tsvector('simple', ${newsStories.name} || ' ' || ${newsStories.summary})`;
    const rank = sql<number>`ts_rank(${document}, to_tsquery('simple', ${tsquery}))`;
    const rows = await db
      .select({
        name: newsStories.name,
        summary: newsStories.summary,
        url: newsStories.url,
        sourceName: newsStories.sourceName,
        publishedAt: newsStories.publishedAt,
      })
      .from(newsStories)
      .where(sql`${document} @@ to_tsquery('simple', ${tsquery})`)
      .orderBy(desc(rank), desc(newsStories.publishedAt))
      .limit(SOURCES_PER_SEARCH);
    return {
      summary: rows.length === 0 ? `No news story matched "${query}".` : `${rows.length} news ${rows.length === 1 ? 'story' : 'stories'} matched "${query}".`,
      sources: rows.map((row) => ({
        title: `${row.name} (${row.sourceName})`.slice(0, 500),
        url: row.url,
        snippet: row.summary.slice(0, 2000),
        publishedAt: row.publishedAt,
      })),
    };
  },
};
