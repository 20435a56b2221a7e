// Where stories come from: the feed files bundled with the server (loaded once into an empty database)
// and the configured feeds (NEWS_FEEDS, the admin CLI) that the scheduled `news.poll` job fetches through
// the guarded fetcher with conditional GET.
import { readdir, readFile } from 'node:fs/promises';
import type { Engine } from '@persona-api/engine';
import { eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import type { Fetcher } from '../../lib/guarded-fetch.js';
import { ingestFeed, parseFeedText } from './ingest.js';
import { newsFeeds, newsStories } from './table.js';

const BUNDLED_DIR = new URL('../../../news-feeds/', import.meta.url);
const BUNDLED_ORIGIN = 'https://feeds.persona-api.invalid/';
/** A feed body larger than this is refused (a news feed is a few hundred kilobytes at most). */
export const MAX_FEED_BYTES = 5 * 1024 * 1024;

/**
 * On a database without stories, ingests the bundled feed files, their dates shifted so the newest
 * story is an hour old (a digest of the last 7 days then has stories). Returns the stories added.
 */
export async function loadBundledNewsIfEmpty(db: Executor, engine: Engine, now: Date): Promise<number> {
  // One row is enough to know: a count would read every story on each start once years have been ingested.
  const [existing] = await db.select({ id: newsStories.id }).from(newsStories).limit(1);
  if (existing) return 0;
  const names = (await readdir(BUNDLED_DIR)).filter((name) => /\.(xml|json)$/.test(name)).sort();
  const feeds = await Promise.all(
    names.map(async (name) => ({ name, feed: parseFeedText(await readFile(new URL(name, BUNDLED_DIR), 'utf8'), `${BUNDLED_ORIGIN}${name}`) })),
  );
  const newest = Math.max(...feeds.flatMap(({ feed }) => feed.items.map((item) => item.publishedAt?.getTime() ?? 0)));
  const shift = now.getTime() - 60 * 60 * 1000 - newest;
  let added = 0;
  for (const { name, feed } of feeds) {
    for (const item of feed.items) if (item.publishedAt) item.publishedAt = new Date(item.publishedAt.getTime() + shift);
    added += await ingestFeed(db, engine, feed, { feedUrl: `${BUNDLED_ORIGIN}${name}`, now });
  }
  return added;
}

/** Adds feeds to the polled list (NEWS_FEEDS on start, `admin news add-feed`); known ones are kept as they are. */
export async function addNewsFeeds(db: Executor, urls: readonly string[], now: Date): Promise<void> {
  if (urls.length === 0) return;
  await db
    .insert(newsFeeds)
    .values(urls.map((url) => ({ url, createdAt: now })))
    .onConflictDoNothing();
}

/**
 * Polls one feed: a conditional GET with the validators of the last answer (304: nothing to do), then
 * parse and ingest. Failures (a private address refused by the fetcher, a timeout, a body that is not a
 * feed, one too large) are recorded on the feed row and never stop the other feeds.
 */
export async function pollFeed(
  db: Executor,
  engine: Engine,
  fetcher: Fetcher,
  feed: typeof newsFeeds.$inferSelect,
  options: { now: Date; signal?: AbortSignal },
): Promise<{ added: number; error: string | null; notModified: boolean }> {
  const headers: Record<string, string> = { accept: 'application/rss+xml, application/atom+xml, application/feed+json, application/xml;q=0.9, */*;q=0.5' };
  if (feed.etag) headers['if-none-match'] = feed.etag;
  if (feed.lastModified) headers['if-modified-since'] = feed.lastModified;
  try {
    const response = await fetcher.get(feed.url, { headers, maxBytes: MAX_FEED_BYTES, ...(options.signal ? { signal: options.signal } : {}) });
    if (response.status === 304) {
      await db.update(newsFeeds).set({ lastPolledAt: options.now, lastError: null }).where(eq(newsFeeds.url, feed.url));
      return { added: 0, error: null, notModified: true };
    }
    if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
    // The body stream fails past MAX_FEED_BYTES (text() would silently truncate a huge feed).
    const chunks: Buffer[] = [];
    for await (const chunk of response.body) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const added = await ingestFeed(db, engine, parseFeedText(text, feed.url), {
      feedUrl: feed.url,
      now: options.now,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const header = (name: string) => {
      const value = response.headers[name];
      return typeof value === 'string' ? value : null;
    };
    await db
      .update(newsFeeds)
      .set({ etag: header('etag'), lastModified: header('last-modified'), lastPolledAt: options.now, lastError: null })
      .where(eq(newsFeeds.url, feed.url));
    return { added, error: null, notModified: false };
  } catch (error) {
    const message = error instanceof Error ? error.message.slice(0, 500) : 'unknown error';
    await db.update(newsFeeds).set({ lastPolledAt: options.now, lastError: message }).where(eq(newsFeeds.url, feed.url));
    return { added: 0, error: message, notModified: false };
  }
}

/** Polls every configured feed, one after the other (the `news.poll` job). */
export async function pollAllFeeds(
  db: Executor,
  engine: Engine,
  fetcher: Fetcher,
  options: { now: () => Date; signal?: AbortSignal },
): Promise<{ url: string; added: number; error: string | null; notModified: boolean }[]> {
  const feeds = await db.select().from(newsFeeds).orderBy(newsFeeds.url);
  const results = [];
  for (const feed of feeds) {
    if (options.signal?.aborted) break;
    results.push({
      url: feed.url,
      ...(await pollFeed(db, engine, fetcher, feed, { now: options.now(), ...(options.signal ? { signal: options.signal } : {}) })),
    });
  }
  return results;
}
