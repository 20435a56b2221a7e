import { and, arrayOverlaps, desc, eq, gte, inArray, lte, sql, type Placeholder } from 'drizzle-orm';
import { memberOf, memberRowsList } from '../../db/scoped.js';
import { workspaceMembers } from '../workspaces/table.js';
import type { Executor } from '../../db/client.js';
import { errors } from '../../http/errors.js';
import { listPage, type ListQuery } from '../../lib/pagination.js';
import { toNewsDigest, toNewsStory, type NewsDigestRow, type NewsStoryRow } from './mapper.js';
import { newsDigests, newsStories } from './table.js';

export interface StoryFilters extends ListQuery {
  search?: string | undefined;
  topic?: string | undefined;
  region?: string | undefined;
  language?: string | undefined;
  published_after?: string | undefined;
  published_before?: string | undefined;
}

/** Full-text search of headline and summary (the same expression as the GIN index); `websearch` syntax: words, "phrases", -excluded, or. */
export const matchesSearch = (search: string | Placeholder) =>
  sql`to_tsvector('simple', ${newsStories.name} || ' ' || ${newsStories.summary}) @@ websearch_to_tsquery('simple', ${search})`;

export function listStories(db: Executor, query: StoryFilters) {
  const value = (name: string) => sql.placeholder(name);
  return listPage(query, {
    list: 'news_stories',
    // Readers care about publication time (DECISIONS.md): newest published first, then id.
    keyset: { sortKey: newsStories.publishedAt, id: newsStories.id },
    prepared: {
      db,
      name: 'news_stories',
      values: {
        search: query.search,
        topic: query.topic,
        region: query.region?.toUpperCase(),
        language: query.language,
        // As the keyset's own timestamps: ISO text, compared with the column.
        published_after: query.published_after ? new Date(query.published_after).toISOString() : undefined,
        published_before: query.published_before ? new Date(query.published_before).toISOString() : undefined,
      },
    },
    filters: [
      query.search ? matchesSearch(value('search')) : undefined,
      query.topic ? sql`${newsStories.topics} @> array[${value('topic')}]::text[]` : undefined,
      query.region ? eq(newsStories.region, value('region')) : undefined,
      // `en` matches `en` and `en-US`; a full tag matches itself, in any case.
      query.language
        ? sql`(lower(${newsStories.language}) = lower(${value('language')}) or lower(${newsStories.language}) like lower(${value('language')}) || '-%')`
        : undefined,
      query.published_after ? sql`${newsStories.publishedAt} >= ${value('published_after')}` : undefined,
      query.published_before ? sql`${newsStories.publishedAt} < ${value('published_before')}` : undefined,
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

/** The stories named by a digest request, in request order; a missing one is a 404 naming `story_ids.N`. */
export async function storiesByIds(db: Executor, ids: readonly string[]): Promise<NewsStoryRow[]> {
  const rows = await db
    .select()
    .from(newsStories)
    .where(inArray(newsStories.id, [...ids]));
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.map((id, index) => {
    const row = byId.get(id);
    if (!row) throw errors.notFound('news story', id, `story_ids.${index}`);
    return row;
  });
}

/** Candidates of a period digest: the newest stories of the window (at most `limit`), optionally of some topics. */
export function storiesInWindow(db: Executor, window: { start: Date; end: Date; topics: readonly string[]; limit: number }): Promise<NewsStoryRow[]> {
  return db
    .select()
    .from(newsStories)
    .where(
      and(
        gte(newsStories.publishedAt, window.start),
        lte(newsStories.publishedAt, window.end),
        window.topics.length > 0 ? arrayOverlaps(newsStories.topics, [...window.topics]) : undefined,
      ),
    )
    .orderBy(desc(newsStories.publishedAt), desc(newsStories.id))
    .limit(window.limit);
}

export async function insertDigest(db: Executor, row: NewsDigestRow): Promise<void> {
  await db.insert(newsDigests).values(row);
}

export async function findDigest(db: Executor, userId: string, id: string): Promise<NewsDigestRow> {
  const [found] = await db
    .select({ row: newsDigests })
    .from(newsDigests)
    .innerJoin(workspaceMembers, memberOf(newsDigests.workspaceId, userId))
    .where(eq(newsDigests.id, id))
    .limit(1);
  if (!found) throw errors.notFound('news digest', id);
  return found.row;
}

export function listDigestsOf(db: Executor, userId: string, query: ListQuery & { workspace_id?: string | undefined; persona_id?: string | undefined }) {
  return listPage(query, {
    list: `news_digests:${query.workspace_id ?? '*'}:${query.persona_id ?? '*'}`,
    ...memberRowsList(db, newsDigests, Boolean(query.workspace_id)),
    prepared: { db, name: 'news_digests', values: { user_id: userId, workspace_id: query.workspace_id, persona_id: query.persona_id } },
    filters: [
      query.workspace_id ? eq(newsDigests.workspaceId, sql.placeholder('workspace_id')) : undefined,
      query.persona_id ? eq(newsDigests.personaId, sql.placeholder('persona_id')) : undefined,
    ],
    toItem: ({ row }) => toNewsDigest(row),
  });
}
