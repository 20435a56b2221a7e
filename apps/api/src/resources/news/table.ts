import { sql } from 'drizzle-orm';
import { index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { timestampMs } from '../../db/schema/columns.js';

/**
 * News stories, shared by every account (DECISIONS.md, News). Deduplicated twice: by the canonical URL
 * (tracking parameters, fragment and trailing slash removed) and by the normalised headline (the same
 * wire story carried by several outlets). Only the headline, a short extractive summary and the link are
 * kept, never the article's text.
 */
export const newsStories = pgTable(
  'news_stories',
  {
    id: text('id').primaryKey(),
    canonicalUrl: text('canonical_url').notNull(),
    titleKey: text('title_key').notNull(),
    name: text('name').notNull(),
    summary: text('summary').notNull(),
    sourceName: text('source_name').notNull(),
    sourceUrl: text('source_url').notNull(),
    url: text('url').notNull(),
    imageUrl: text('image_url'),
    author: text('author'),
    language: text('language').notNull(),
    region: text('region'),
    topics: text('topics').array().notNull(),
    feedUrl: text('feed_url'),
    publishedAt: timestampMs('published_at').notNull(),
    createdAt: timestampMs('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('news_stories_canonical_url_idx').on(t.canonicalUrl),
    uniqueIndex('news_stories_title_key_idx').on(t.titleKey),
    // The list's keyset order.
    index('news_stories_published_idx').on(t.publishedAt, t.id),
    // `search`: the database's full-text search over headline and summary ('simple': any language).
    index('news_stories_search_idx').using('gin', sql`to_tsvector('simple', ${t.name} || ' ' || ${t.summary})`),
  ],
);

/**
 * The feeds polled by the `news.poll` job: from NEWS_FEEDS (synced on start) and the admin CLI. The
 * validators of the last answer make the next poll a conditional GET.
 */
export const newsFeeds = pgTable('news_feeds', {
  url: text('url').primaryKey(),
  etag: text('etag'),
  lastModified: text('last_modified'),
  lastPolledAt: timestampMs('last_polled_at'),
  lastError: text('last_error'),
  createdAt: timestampMs('created_at').notNull(),
});
