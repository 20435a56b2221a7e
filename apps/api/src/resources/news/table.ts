import type { NewsDigestItem, PersonaReference } from '@persona-api/types';
import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { timestampMs } from '../../db/schema/columns.js';
import { accounts } from '../../db/schema/tenancy.js';
import { workspaces } from '../workspaces/table.js';

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

/**
 * Stored digests (`dig_…`): the persona's name kept as it was, and each item with the story's headline,
 * source and link copied, so a digest stays readable whatever happens to the persona.
 */
export const newsDigests = pgTable(
  'news_digests',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    personaId: text('persona_id').notNull(),
    persona: jsonb('persona').$type<PersonaReference>().notNull(),
    title: text('title').notNull(),
    summary: text('summary').notNull(),
    keyTakeaways: jsonb('key_takeaways').$type<string[]>().notNull(),
    period: text('period', { enum: ['last_24_hours', 'last_7_days', 'last_30_days'] }),
    topics: text('topics').array().notNull(),
    periodStart: timestampMs('period_start').notNull(),
    periodEnd: timestampMs('period_end').notNull(),
    items: jsonb('items').$type<NewsDigestItem[]>().notNull(),
    promptTokens: integer('prompt_tokens').notNull(),
    completionTokens: integer('completion_tokens').notNull(),
    creditsUsed: integer('credits_used').notNull(),
    createdAt: timestampMs('created_at').notNull(),
  },
  (t) => [index('news_digests_workspace_idx').on(t.workspaceId, t.createdAt, t.id)],
);
