import { arrayContains, eq, gte, lt, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { errors } from '../../http/errors.js';
import { listPage, type ListQuery } from '../../lib/pagination.js';
import { toNewsStory, type NewsStoryRow } from './mapper.js';
import { newsStories } from './table.js';

export interface StoryFilters extends ListQuery {
  search?: string | undefined;
  topic?: string | undefined;
  region?: string | undefined;
  language?: string | undefined;
  published_after?: string | undefined;
  published_before?: string | undefined;
}

/** Full-text search of headline and summary (the same expression as the GIN index); `websearch` syntax: words, "phrases", -excluded, or. */
export const matchesSearch = (search: string) =>
  sql`to_tsvector('simple', ${newsStories.name} || ' ' || ${newsStories.summary}) @@ websearch_to_tsquery('simple', ${search})`;

export function listStories(db: Executor, query: StoryFilters) {
  return listPage(query, {
    list: 'news_stories',
    // Readers care about publication time (DECISIONS.md): newest published first, then id.
    keyset: { sortKey: newsStories.publishedAt, id: newsStories.id },
    filters: [
      query.search ? matchesSearch(query.search) : undefined,
      query.topic ? arrayContains(newsStories.topics, [query.topic]) : undefined,
      query.region ? eq(newsStories.region, query.region.toUpperCase()) : undefined,
      // `en` matches `en` and `en-US`; a full tag matches itself, in any case.
      query.language ? sql`(lower(${newsStories.language}) = lower(${query.language}) or lower(${newsStories.language}) like lower(${query.language}) || '-%')` : undefined,
      query.published_after ? gte(newsStories.publishedAt, new Date(query.published_after)) : undefined,
      query.published_before ? lt(newsStories.publishedAt, new Date(query.published_before)) : undefined,
    ],
    rows: (page) =>
      db
        .select()
        .from(newsStories)
        .where(page.where)
        .orderBy(...page.orderBy)
        .limit(page.fetch),
    keyOf: (row) => ({ sortKey: row.publishedAt, id: row.id }),
    toItem: toNewsStory,
  });
}

export async function findStory(db: Executor, id: string, param = 'id'): Promise<NewsStoryRow> {
  const [row] = await db.select().from(newsStories).where(eq(newsStories.id, id)).limit(1);
  if (!row) throw errors.notFound('news story', id, param);
  return row;
}
