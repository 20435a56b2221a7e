import type { NewsDigest, NewsStory, NewsTopic } from '@persona-api/types';
import { iso } from '../../lib/wire.js';
import type { newsDigests, newsStories } from './table.js';

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

export type NewsDigestRow = typeof newsDigests.$inferSelect;

export function toNewsDigest(row: NewsDigestRow): NewsDigest {
  return {
    id: row.id,
    object: 'news_digest',
    persona: row.persona,
    title: row.title,
    summary: row.summary,
    key_takeaways: row.keyTakeaways,
    period: row.period,
    topics: row.topics as NewsTopic[],
    period_start: iso(row.periodStart),
    period_end: iso(row.periodEnd),
    story_count: row.items.length,
    items: row.items,
    usage: { prompt_tokens: row.promptTokens, completion_tokens: row.completionTokens, credits_used: row.creditsUsed },
    workspace_id: row.workspaceId,
    created_at: iso(row.createdAt),
  };
}
