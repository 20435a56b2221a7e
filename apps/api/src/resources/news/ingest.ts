// News ingestion: feed text (RSS, Atom, RDF, JSON Feed; parsed by feedsmith) → story candidates →
// canonical URL and normalised headline (the two dedup keys) → language (the item's or feed's declared
// language, else franc on the text) → topics and region (the engine's news_classification feature) →
// rows, inserted with ON CONFLICT DO NOTHING on both keys, so a story seen twice is stored once.
import { createOfflineEngine, newsClassification, sentences, type Engine } from '@persona-api/engine';
import type { Executor } from '../../db/client.js';
import { loadedOnFirstUse } from '../../lib/first-use.js';
import { newId } from '../../lib/ids.js';
import { newsStories } from './table.js';

// Used by the news jobs (and a new database's bundled news), not by requests.
const feedsmith = loadedOnFirstUse<typeof import('feedsmith')>('feedsmith');
const francMin = loadedOnFirstUse<typeof import('franc-min')>('franc-min');

export interface StoryCandidate {
  title: string;
  summary: string;
  url: string;
  imageUrl: string | null;
  author: string | null;
  publishedAt: Date | null;
  language: string | null;
  categories: string[];
}

export interface ParsedFeed {
  sourceName: string;
  sourceUrl: string;
  language: string | null;
  items: StoryCandidate[];
}

const TRACKING_PARAMS = /^(utm_.*|fbclid|gclid|mc_cid|mc_eid|ref|cmpid|ocid)$/i;

/** The URL a story is known by: https/http only, host lower case, no fragment, no tracking parameters, no trailing slash. */
export function canonicalUrl(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  url.hash = '';
  for (const key of [...url.searchParams.keys()]) if (TRACKING_PARAMS.test(key)) url.searchParams.delete(key);
  url.searchParams.sort();
  const text = url.toString();
  return url.pathname !== '/' && text.endsWith('/') && !url.search ? text.slice(0, -1) : text;
}

/** The headline as compared for duplicates: letters and digits only, lower case, single spaces. */
export function titleKey(title: string): string {
  return title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
/** Markup removed, entities decoded, whitespace collapsed. */
export function plainText(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&(#x?[0-9a-f]+|\w+);/gi, (entity, code: string) => {
      if (code.startsWith('#x') || code.startsWith('#X')) return String.fromCodePoint(Number.parseInt(code.slice(2), 16));
      if (code.startsWith('#')) return String.fromCodePoint(Number.parseInt(code.slice(1), 10));
      return ENTITIES[code.toLowerCase()] ?? entity;
    })
    .replace(/\s+/g, ' ')
    .trim();
}

/** An extractive summary: the first sentences, at most ~600 characters (the service keeps no full text). */
export function extractiveSummary(text: string, fallback: string): string {
  const source = text.length > 0 ? text : fallback;
  // The engine's sentences end at . ! or ? before a space: "2.1 percent" is not an end.
  let summary = '';
  for (const sentence of sentences(source)) {
    if (summary.length > 0 && summary.length + sentence.length + 1 > 600) break;
    summary += summary.length > 0 ? ` ${sentence}` : sentence;
  }
  return summary.trim().slice(0, 4000);
}

// ISO 639-3 (franc) → the two-letter BCP 47 subtag where one exists; other 639-3 codes are valid BCP 47 as they are.
const TWO_LETTER: Record<string, string> = {
  eng: 'en',
  deu: 'de',
  fra: 'fr',
  spa: 'es',
  ita: 'it',
  nld: 'nl',
  por: 'pt',
  pol: 'pl',
  swe: 'sv',
  dan: 'da',
  nob: 'nb',
  fin: 'fi',
  ces: 'cs',
  ron: 'ro',
  hun: 'hu',
  tur: 'tr',
  rus: 'ru',
  ukr: 'uk',
  ell: 'el',
  cmn: 'zh',
  jpn: 'ja',
  kor: 'ko',
  arb: 'ar',
  hin: 'hi',
};

/** A declared language tag if well formed (e.g. `de-DE`, `en-us` → `en-US`), else null. */
function declaredLanguage(tag: string | null | undefined): string | null {
  if (!tag) return null;
  const [language, ...rest] = tag.trim().replace(/_/g, '-').split('-');
  if (!language || !/^[a-z]{2,3}$/i.test(language)) return null;
  const subtags = rest.filter((part) => /^[A-Za-z0-9]{2,8}$/.test(part)).map((part) => (part.length === 2 ? part.toUpperCase() : part));
  return [language.toLowerCase(), ...subtags].join('-').slice(0, 35);
}

/** The story's language: declared by the item or feed, else detected by franc (`und` when too little text). */
export function languageOf(candidate: StoryCandidate, feedLanguage: string | null): string {
  const declared = declaredLanguage(candidate.language) ?? declaredLanguage(feedLanguage);
  if (declared) return declared;
  const detected = francMin().franc(`${candidate.title}. ${candidate.summary}`, { minLength: 20 });
  return TWO_LETTER[detected] ?? detected;
}

const str = (value: unknown): string | null => (typeof value === 'string' && value.trim().length > 0 ? value.trim() : null);
const textOf = (value: unknown): string | null => str(value) ?? (value && typeof value === 'object' ? str((value as { value?: unknown }).value) : null);
const dateOf = (value: unknown): Date | null => {
  const text = str(value);
  if (!text) return null;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? null : date;
};

/** Parses a feed of any of the four formats; throws on text that is none of them. */
export function parseFeedText(text: string, feedUrl: string): ParsedFeed {
  const parsed = feedsmith().parseFeed(text);
  const fallbackHome = new URL('/', feedUrl).toString();
  if (parsed.format === 'atom') {
    const feed = parsed.feed as any;
    const home = feed.links?.find((link: any) => !link.rel || link.rel === 'alternate')?.href ?? fallbackHome;
    return {
      sourceName: textOf(feed.title) ?? new URL(home).hostname,
      sourceUrl: home,
      language: null,
      items: (feed.entries ?? []).map((entry: any) => ({
        title: plainText(textOf(entry.title) ?? ''),
        summary: plainText(textOf(entry.summary) ?? textOf(entry.content) ?? ''),
        url: entry.links?.find((link: any) => !link.rel || link.rel === 'alternate')?.href ?? '',
        imageUrl: entry.media?.contents?.[0]?.url ?? entry.media?.thumbnails?.[0]?.url ?? null,
        author: str(entry.authors?.[0]?.name),
        publishedAt: dateOf(entry.published) ?? dateOf(entry.updated),
        language: null,
        categories: (entry.categories ?? []).map((category: any) => str(category.term) ?? str(category.label)).filter(Boolean),
      })),
    };
  }
  if (parsed.format === 'json') {
    const feed = parsed.feed as any;
    return {
      sourceName: str(feed.title) ?? new URL(feed.home_page_url ?? fallbackHome).hostname,
      sourceUrl: str(feed.home_page_url) ?? fallbackHome,
      language: str(feed.language),
      items: (feed.items ?? []).map((item: any) => ({
        title: plainText(str(item.title) ?? ''),
        summary: plainText(str(item.summary) ?? str(item.content_text) ?? str(item.content_html) ?? ''),
        url: str(item.url) ?? '',
        imageUrl: str(item.image) ?? str(item.banner_image),
        author: str(item.authors?.[0]?.name) ?? str(item.author?.name),
        publishedAt: dateOf(item.date_published) ?? dateOf(item.date_modified),
        language: str(item.language),
        categories: (item.tags ?? []).filter((tag: unknown) => typeof tag === 'string'),
      })),
    };
  }
  // RSS and RDF share the item shape that matters here.
  const feed = parsed.feed as any;
  return {
    sourceName: str(feed.title) ?? new URL(str(feed.link) ?? fallbackHome).hostname,
    sourceUrl: str(feed.link) ?? fallbackHome,
    language: str(feed.language) ?? str(feed.dc?.languages?.[0]) ?? str(feed.dc?.language),
    items: (feed.items ?? []).map((item: any) => ({
      title: plainText(str(item.title) ?? ''),
      summary: plainText(str(item.description) ?? str(item.content?.encoded) ?? ''),
      url: str(item.link) ?? str(item.guid?.value) ?? '',
      imageUrl:
        str(item.enclosures?.find((e: any) => String(e.type ?? '').startsWith('image/'))?.url) ??
        str(item.media?.contents?.[0]?.url) ??
        str(item.media?.thumbnails?.[0]?.url),
      author: str(item.dc?.creators?.[0]) ?? str(item.dc?.creator) ?? str(item.authors?.[0]),
      publishedAt: dateOf(item.pubDate) ?? dateOf(item.dc?.dates?.[0]) ?? dateOf(item.dc?.date),
      language: null,
      categories: (item.categories ?? []).map((category: any) => str(category.name) ?? str(category)).filter(Boolean),
    })),
  };
}

const httpUrl = (raw: string | null): string | null => {
  if (!raw) return null;
  try {
    const url = new URL(raw);
    return (url.protocol === 'https:' || url.protocol === 'http:') && raw.length <= 2048 ? url.toString() : null;
  } catch {
    return null;
  }
};

const offlineClassifier = createOfflineEngine();

/** The engine's classification; when the model fails, the offline keyword classifier's (DECISIONS.md). */
async function classify(engine: Engine, input: Parameters<typeof newsClassification.offline>[0], signal: AbortSignal | undefined) {
  try {
    return (await engine.run(newsClassification, input, signal ? { signal } : {})).output;
  } catch (error) {
    if (signal?.aborted) throw error;
    return (await offlineClassifier.run(newsClassification, input)).output;
  }
}

/**
 * Stores the feed's new stories: each classified by the engine, inserted unless its canonical URL or
 * headline is already known. Items without a headline or a usable link are skipped. Returns how many
 * rows were added.
 */
export async function ingestFeed(
  db: Executor,
  engine: Engine,
  feed: ParsedFeed,
  options: { feedUrl: string; now: Date; signal?: AbortSignal },
): Promise<number> {
  const sourceUrl = httpUrl(feed.sourceUrl) ?? new URL('/', options.feedUrl).toString();
  let added = 0;
  for (const item of feed.items) {
    const url = httpUrl(item.url);
    const canonical = url ? canonicalUrl(url) : null;
    const key = titleKey(item.title);
    if (!url || !canonical || key.length === 0) continue;
    const summary = extractiveSummary(item.summary, item.title);
    const output = await classify(engine, { title: item.title, summary, categories: item.categories }, options.signal);
    const inserted = await db
      .insert(newsStories)
      .values({
        id: newId('story'),
        canonicalUrl: canonical,
        titleKey: key,
        name: item.title.slice(0, 500),
        summary,
        sourceName: feed.sourceName.slice(0, 200),
        sourceUrl,
        url,
        imageUrl: httpUrl(item.imageUrl),
        author: item.author?.slice(0, 200) ?? null,
        language: languageOf(item, feed.language),
        region: output.region,
        topics: output.topics,
        feedUrl: options.feedUrl,
        // A story without a date is dated when it was first seen; a future date is clamped to now.
        publishedAt: item.publishedAt && item.publishedAt <= options.now ? item.publishedAt : options.now,
        createdAt: options.now,
      })
      .onConflictDoNothing()
      .returning({ id: newsStories.id });
    added += inserted.length;
  }
  return added;
}
