import type { NewsStory, NewsTopic } from '@persona-api/types';
import { iso } from '../../lib/wire.js';
import type { newsStories } from './table.js';

export type NewsStoryRow = typeof newsStories.$inferSelect;

export function toNewsStory(row: NewsStoryRow): NewsStory {
  return {
    id: row.id,
    object: 'news_story',
    name: row.name,
    summary: row.summary,
    source: { name: row.sourceName, url: row.sourceUrl },
    url: row.url,
    image_url: row.imageUrl,
    author: row.author,
    language: row.language,
    region: row.region,
    topics: row.topics as NewsTopic[],
    published_at: iso(row.publishedAt),
    created_at: iso(row.createdAt),
  };
}
