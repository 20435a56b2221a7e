import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOfflineEngine, newsClassification, type Engine } from '@persona-api/engine';
import type { FakeUpstream } from '@persona-api/engine/testing';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newsFeeds, newsStories } from '../../src/db/schema/index.js';
import { createGuardedFetcher } from '../../src/lib/guarded-fetch.js';
import { addNewsFeeds, loadBundledNewsIfEmpty, pollAllFeeds } from '../../src/resources/news/feeds.js';
import { canonicalUrl, extractiveSummary, ingestFeed, languageOf, titleKey } from '../../src/resources/news/ingest.js';
import { balanceOf, chargesOf, fakeUpstreamEngine, SwitchableEngine } from '../support/ai.js';
import { errorOf, Harness, type Tenant } from '../support/harness.js';

// News: the bundled feeds loaded into an empty database (no network), feeds polled over HTTP (local
// server) with conditional GET, dedup by canonical URL and headline, bad XML, a huge feed, a private
// address refused; the story list with every filter and full-text search; reads; analyses billed by
// tokens on both engines; roles.

let h: Harness;
let t: Tenant;
let fake: FakeUpstream;
let upstreamEngine: Engine;
const engine = new SwitchableEngine(createOfflineEngine());
let feeds: Server;
let base: string;
const hits: { url: string; ifNoneMatch: string | undefined }[] = [];

const rss = (items: { title: string; link: string; date: string; text?: string }[]) =>
  `<?xml version="1.0"?><rss version="2.0"><channel><title>Local Wire</title><link>${base}/</link>${items
    .map(
      (item) =>
        `<item><title>${item.title}</title><link>${item.link}</link><description>${item.text ?? 'A story about the economy and interest rates in Germany.'}</description><pubDate>${item.date}</pubDate></item>`,
    )
    .join('')}</channel></rss>`;

beforeAll(async () => {
  ({ fake, engine: upstreamEngine } = await fakeUpstreamEngine());
  h = await Harness.create({ engine });
  t = await h.tenant({ credits: 10_000 });
  feeds = createServer((req, res) => {
    hits.push({ url: req.url ?? '', ifNoneMatch: req.headers['if-none-match'] as string | undefined });
    if (req.url === '/wire.xml') {
      if (req.headers['if-none-match'] === '"v1"') {
        res.writeHead(304);
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/rss+xml', etag: '"v1"' });
      res.end(
        rss([
          {
            title: 'Local bakery chain expands to five new cities',
            link: `${base}/bakery?utm_source=feed`,
            date: 'Mon, 23 Nov 2026 08:00:00 GMT',
            text: 'The bakery chain opens stores in five cities and hires 200 staff.',
          },
          { title: 'Local bakery chain expands to five new cities', link: `${base}/mirror/bakery`, date: 'Mon, 23 Nov 2026 09:00:00 GMT' },
          { title: 'A second look at the bakery numbers', link: `${base}/bakery#comments`, date: 'Mon, 23 Nov 2026 10:00:00 GMT' },
          {
            title: 'Quarterly football results surprise the league',
            link: `${base}/football`,
            date: 'Sun, 22 Nov 2026 10:00:00 GMT',
            text: 'The football league reports record match attendance this season.',
          },
        ]),
      );
    } else if (req.url === '/broken.xml') {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end('<rss><channel><item><title>Unclosed');
    } else if (req.url === '/huge.xml') {
      res.writeHead(200, { 'content-type': 'application/xml' });
      // 6 MiB, past the 5 MiB cap: refused, nothing stored.
      res.end(
        rss(
          Array.from({ length: 12_000 }, (_, i) => ({
            title: `Huge story ${i}`,
            link: `${base}/huge/${i}`,
            date: 'Sun, 22 Nov 2026 10:00:00 GMT',
            text: 'x'.repeat(400),
          })),
        ),
      );
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  feeds.listen(0, '127.0.0.1');
  await once(feeds, 'listening');
  base = `http://127.0.0.1:${(feeds.address() as AddressInfo).port}`;
  expect(await loadBundledNewsIfEmpty(h.db, createOfflineEngine(), h.clock.now())).toBeGreaterThan(0);
});
afterAll(async () => {
  await h.close();
  await fake.close();
  feeds.close();
});

describe('the bundled feeds', () => {
  it('fill an empty database once, deduplicated, classified, with languages and regions, newest an hour old', async () => {
    expect(await loadBundledNewsIfEmpty(h.db, createOfflineEngine(), h.clock.now())).toBe(0);
    const all = (await h.get('/news/stories?limit=100', t.key)).body.data as any[];
    expect(all.length).toBe(11); // 12 items, one a duplicate headline from a second outlet
    expect(all.filter((story) => story.name.startsWith('Mid-size software companies'))).toHaveLength(1);
    expect(Date.parse(all[0].published_at)).toBe(h.clock.now().getTime() - 3_600_000);
    const ecb = all.find((story) => story.name.startsWith('European Central Bank'));
    expect(ecb).toMatchObject({
      language: 'en-US',
      author: 'Lena Hoffmann',
      image_url: 'https://business.persona-api.invalid/img/ecb.jpg',
      source: { name: 'Persona Business Wire' },
    });
    expect(ecb.url).toContain('utm_source'); // the link as published; the canonical form is the dedup key
    expect(ecb.topics[0]).toBe('finance');
    expect(ecb.topics).toContain('economy');
    const german = all.find((story) => story.name.startsWith('Bundestag'));
    expect(german).toMatchObject({ language: 'de', region: 'DE' });
    expect(german.topics).toContain('politics');
    expect(all.find((story) => story.name.startsWith('Football league')).topics).toContain('sports');
    expect(all.find((story) => story.name.startsWith('Black Friday')).region).toBe('US');
  });
});

describe('polling feeds', () => {
  it('ingests over HTTP with conditional GET, dedups by canonical URL and headline, and refuses bad, huge and private feeds', async () => {
    await addNewsFeeds(h.db, [`${base}/wire.xml`, `${base}/broken.xml`, `${base}/huge.xml`], h.clock.now());
    const open = createGuardedFetcher({ allowPrivateAddresses: true, timeoutMs: 5_000 });
    const first = await pollAllFeeds(h.db, createOfflineEngine(), open, { now: () => h.clock.now() });
    const byUrl = Object.fromEntries(first.map((result) => [result.url.replace(base, ''), result]));
    // Same canonical URL (tracking parameter, fragment) or same headline: stored once.
    expect(byUrl['/wire.xml']).toMatchObject({ added: 2, error: null });
    expect(byUrl['/broken.xml']!.error).toBeTruthy();
    expect(byUrl['/huge.xml']!.error).toMatch(/larger than/);
    expect(
      (
        await h.db
          .select()
          .from(newsStories)
          .where(eq(newsStories.feedUrl, `${base}/huge.xml`))
      ).length,
    ).toBe(0);
    const bakery = (await h.get('/news/stories?search=bakery', t.key)).body.data;
    expect(bakery).toHaveLength(1);
    expect(bakery[0]).toMatchObject({ url: `${base}/bakery?utm_source=feed`, language: 'en' });

    hits.length = 0;
    const second = await pollAllFeeds(h.db, createOfflineEngine(), open, { now: () => h.clock.now() });
    expect(second.find((result) => result.url.endsWith('/wire.xml'))).toMatchObject({ added: 0, notModified: true });
    expect(hits.find((hit) => hit.url === '/wire.xml')?.ifNoneMatch).toBe('"v1"');

    // The default fetcher refuses private addresses: the feed's error says so and nothing is fetched.
    hits.length = 0;
    const guarded = await pollAllFeeds(h.db, createOfflineEngine(), createGuardedFetcher({ timeoutMs: 2_000 }), { now: () => h.clock.now() });
    expect(guarded.every((result) => result.error !== null)).toBe(true);
    expect(hits).toEqual([]);
    const [row] = await h.db
      .select()
      .from(newsFeeds)
      .where(eq(newsFeeds.url, `${base}/wire.xml`));
    expect(row!.lastError).toBeTruthy();
  });

  it('classifies with the offline keyword classifier when the model fails, keeping the story', async () => {
    const item = {
      title: 'Central bank raises interest rates to fight inflation',
      summary: 'The central bank raised its interest rate by half a point as inflation stayed high across the economy.',
      url: 'https://wire.example/central-bank-rates',
      imageUrl: null,
      author: null,
      publishedAt: null,
      language: 'en',
      categories: [],
    };
    // The fake upstream's default echo is no valid classification: the model call fails.
    const seen = fake.requests.length;
    const added = await ingestFeed(
      h.db,
      upstreamEngine,
      { sourceName: 'Wire', sourceUrl: 'https://wire.example/', language: 'en', items: [item] },
      {
        feedUrl: 'https://wire.example/feed.xml',
        now: h.clock.now(),
      },
    );
    expect(fake.requests.length).toBeGreaterThan(seen);
    expect(added).toBe(1);
    const [row] = await h.db.select().from(newsStories).where(eq(newsStories.canonicalUrl, 'https://wire.example/central-bank-rates'));
    const { output } = await createOfflineEngine().run(newsClassification, { title: item.title, summary: row!.summary, categories: [] });
    expect(row!.topics).toEqual(output.topics);
    expect(row!.topics.length).toBeGreaterThan(0);
    // The other tests count the corpus: leave it as it was.
    await h.db.delete(newsStories).where(eq(newsStories.id, row!.id));
  });

  it('keys stories by canonical URL and normalised headline, and detects undeclared languages', () => {
    expect(canonicalUrl('HTTPS://Example.com/a/?utm_medium=x&b=2&a=1#top')).toBe('https://example.com/a/?a=1&b=2');
    expect(canonicalUrl('https://example.com/a/')).toBe('https://example.com/a');
    expect(canonicalUrl('javascript:alert(1)')).toBeNull();
    expect(titleKey('  Ça coûte: 20 %  — MORE!')).toBe('ca coute 20 more');
    const item = {
      title: 'Die Regierung hat heute neue Regeln für Unternehmen beschlossen',
      summary: 'Die neuen Regeln gelten ab dem nächsten Jahr für alle Unternehmen in Deutschland.',
      url: 'https://x.example/a',
      imageUrl: null,
      author: null,
      publishedAt: null,
      language: null,
      categories: [],
    };
    expect(languageOf(item, null)).toBe('de');
    expect(languageOf(item, 'fr_FR')).toBe('fr-FR');
  });
});

describe('a story’s summary', () => {
  it('keeps whole sentences, decimals included, up to about 600 characters', () => {
    const text =
      "The European Central Bank left its deposit rate unchanged on Thursday. Inflation in the euro area slowed to 2.1 percent in October, close to the bank's target. Economists expect a first cut in the spring.";
    expect(extractiveSummary(text, 'title')).toBe(text);
    const long = Array.from({ length: 20 }, (_, index) => `Sentence ${index} is about 3.5 times longer than it needs to be, on purpose.`).join(' ');
    const summary = extractiveSummary(long, 'title');
    expect(summary.length).toBeLessThanOrEqual(600);
    expect(long.startsWith(summary)).toBe(true);
    expect(summary.endsWith('on purpose.')).toBe(true);
    expect(extractiveSummary('', 'Only a title')).toBe('Only a title');
  });
});

describe('the story list', () => {
  it('filters by topic, region, language and dates, searches the full text, and pages by publication time', async () => {
    const ids = (res: any) => res.body.data.map((story: any) => story.id);
    const all = (await h.get('/news/stories?limit=100', t.key)).body.data as any[];
    for (let i = 1; i < all.length; i++) expect(all[i - 1].published_at >= all[i].published_at).toBe(true);
    const sports = (await h.get('/news/stories?topic=sports&limit=100', t.key)).body.data as any[];
    expect(sports.length).toBeGreaterThan(0);
    expect(sports.every((story) => story.topics.includes('sports'))).toBe(true);
    expect(ids(await h.get('/news/stories?region=DE&language=de', t.key))).toEqual(
      all.filter((s) => s.region === 'DE' && s.language.startsWith('de')).map((s) => s.id),
    );
    expect((await h.get('/news/stories?language=en&limit=100', t.key)).body.data.every((story: any) => /^en(-|$)/.test(story.language))).toBe(true);
    const middle = all[5].published_at;
    const after = (await h.get(`/news/stories?published_after=${middle}&limit=100`, t.key)).body.data as any[];
    const before = (await h.get(`/news/stories?published_before=${middle}&limit=100`, t.key)).body.data as any[];
    expect(after.length + before.length).toBe(all.length);
    expect(after.every((story) => story.published_at >= middle) && before.every((story) => story.published_at < middle)).toBe(true);
    // Full-text: words anywhere in headline or summary, phrases, exclusions.
    expect((await h.get('/news/stories?search=inflation', t.key)).body.data.map((s: any) => s.name)).toEqual([expect.stringMatching(/^European Central Bank/)]);
    expect((await h.get('/news/stories?search=%22streaming%20rights%22', t.key)).body.data).toHaveLength(1);
    expect((await h.get('/news/stories?search=prices%20-sneaker&limit=100', t.key)).body.data.some((s: any) => s.name.includes('Sneaker'))).toBe(false);
    const page1 = await h.get('/news/stories?limit=4', t.key);
    const page2 = await h.get(`/news/stories?limit=4&cursor=${page1.body.next_cursor}`, t.key);
    expect([...ids(page1), ...ids(page2)]).toEqual(all.slice(0, 8).map((s) => s.id));
    expect((await h.get(`/news/stories/${all[0].id}`, t.key)).body).toEqual(all[0]);
    expect(errorOf(await h.get('/news/stories/story_missing12345678', t.key))).toMatchObject({ code: 'resource_not_found', param: 'id' });
  });
});

describe('analysing a story', () => {
  it('writes the persona’s perception from the story and its profile, billed by tokens', async () => {
    const [story] = (await h.get('/news/stories?search=subscription%20prices', t.key)).body.data;
    const before = await balanceOf(h, t.accountId);
    const cfo = await h.post(`/news/stories/${story.id}/analyze`, t.key, { persona_id: 'persona_saas_cfo' });
    expect(cfo.status).toBe(200);
    expect(cfo.body).toMatchObject({ object: 'news_story_analysis', story_id: story.id, story_name: story.name, persona: { id: 'persona_saas_cfo' } });
    const { usage } = cfo.body;
    expect(usage.credits_used).toBe(Math.ceil((usage.prompt_tokens + usage.completion_tokens) / 100));
    expect(await balanceOf(h, t.accountId)).toBe(before - usage.credits_used);
    expect((await chargesOf(h, t.accountId)).at(-1)!.amount).toBe(-usage.credits_used);
    const teen = await h.post(`/news/stories/${story.id}/analyze`, t.key, { persona_id: 'persona_genz_sneaker_enthusiast' });
    expect(teen.body.analysis.quick_view).not.toBe(cfo.body.analysis.quick_view);
    expect(cfo.body.analysis.news_contextualization).toContain('Persona Business Wire');

    expect(errorOf(await h.post(`/news/stories/${story.id}/analyze`, t.key, { persona_id: 'persona_nobody' }))).toMatchObject({
      code: 'resource_not_found',
      param: 'persona_id',
    });
    const poor = await h.tenant({ credits: 1 });
    expect(errorOf(await h.post(`/news/stories/${story.id}/analyze`, poor.key, { persona_id: 'persona_saas_cfo' }))).toMatchObject({
      code: 'insufficient_credits',
    });
  });

  it('asks an upstream model with the persona’s system prompt and the story', async () => {
    const [story] = (await h.get('/news/stories?search=bakery', t.key)).body.data;
    const analysis = {
      quick_view: 'Good news for local trade.',
      emotional_response: 'Pleased.',
      cognitive_engagement: 'Reads closely.',
      behavioral_intent: 'Visits.',
      news_contextualization: 'Fits.',
      risk_and_opportunity: 'None.',
      confidence: 0.6,
    };
    fake.enqueue({ content: JSON.stringify(analysis), usage: { prompt_tokens: 620, completion_tokens: 80 } });
    const res = await engine.using(upstreamEngine, () => h.post(`/news/stories/${story.id}/analyze`, t.key, { persona_id: 'persona_restaurant_owner' }));
    expect(res.body.analysis).toEqual(analysis);
    expect(res.body.usage).toEqual({ prompt_tokens: 620, completion_tokens: 80, credits_used: 7 });
    const sent = fake.requests.at(-1)!.body;
    expect(sent.response_format.json_schema.name).toBe('news_analysis');
    expect(sent.messages[1].content).toContain(story.name);
  });

  it('needs paid AI calls in the workspace billed: a viewer reads stories but cannot analyse there', async () => {
    const owner = await h.tenant({ credits: 5_000 });
    const team = (await h.post('/workspaces', owner.key, { name: 'Newsroom' })).body.id;
    const viewer = await h.tenant();
    await h.post(`/workspaces/${team}/members`, owner.key, { email: viewer.email, role: 'viewer' });
    const [story] = (await h.get('/news/stories?limit=1', viewer.key)).body.data;
    expect(errorOf(await h.post(`/news/stories/${story.id}/analyze`, viewer.key, { persona_id: 'persona_saas_cfo', workspace_id: team }))).toMatchObject({
      code: 'permission_denied',
    });
    expect(await balanceOf(h, owner.accountId)).toBe(5_000);
  });
});

describe('digests', () => {
  it('by period and topics: ranks the window’s stories by relevance to the persona, explains it, stores and bills', async () => {
    const before = await balanceOf(h, t.accountId);
    const res = await h.post('/news/digests', t.key, { persona_id: 'persona_saas_cfo', period: 'last_7_days', max_stories: 4 });
    expect(res.status).toBe(200);
    const digest = res.body;
    expect(digest).toMatchObject({
      object: 'news_digest',
      period: 'last_7_days',
      topics: [],
      story_count: 4,
      workspace_id: t.workspaceId,
      persona: { id: 'persona_saas_cfo' },
    });
    expect(digest.id).toMatch(/^dig_/);
    expect(Date.parse(digest.period_end) - Date.parse(digest.period_start)).toBe(7 * 24 * 3_600_000);
    const scores = digest.items.map((item: any) => item.relevance_score);
    expect([...scores].sort((x, y) => y - x)).toEqual(scores);
    for (const item of digest.items) {
      expect(item.relevance).toBe(item.relevance_score >= 0.7 ? 'high' : item.relevance_score >= 0.4 ? 'medium' : 'low');
      expect(Date.parse(item.published_at)).toBeGreaterThanOrEqual(Date.parse(digest.period_start));
    }
    // The price-increase story shares budget and contract terms with the CFO: ranked above the sneaker market.
    const all = (await h.get('/news/stories?limit=100', t.key)).body.data as any[];
    h.clock.advance(1_000);
    const full = (await h.post('/news/digests', t.key, { persona_id: 'persona_saas_cfo', story_ids: all.map((story) => story.id).slice(0, 20) })).body;
    const rank = (prefix: string) => full.items.findIndex((item: any) => item.story_name.startsWith(prefix));
    expect(rank('Mid-size software companies')).toBeLessThan(rank('Sneaker resale'));
    expect(full.items[rank('Mid-size software companies')].why_it_matters).toMatch(/^Shares (software|prices|vendors)\b.* with \S+'s profile: it /);
    expect(full.period).toBeNull();
    expect(full.period_start <= full.period_end).toBe(true);
    expect(digest.usage.credits_used).toBe(Math.ceil((digest.usage.prompt_tokens + digest.usage.completion_tokens) / 100));
    expect(await balanceOf(h, t.accountId)).toBe(before - digest.usage.credits_used - full.usage.credits_used);

    const topical = (
      await h.post('/news/digests', t.key, { persona_id: 'persona_genz_sneaker_enthusiast', period: 'last_30_days', topics: ['sports', 'retail'] })
    ).body;
    expect(topical.items.length).toBeGreaterThan(0);
    expect(topical.items.every((item: any) => item.topics.some((topic: string) => topic === 'sports' || topic === 'retail'))).toBe(true);

    expect((await h.get(`/news/digests/${digest.id}`, t.key)).body).toEqual(digest);
    const listed = (await h.get('/news/digests?persona_id=persona_saas_cfo', t.key)).body.data.map((entry: any) => entry.id);
    expect(listed).toEqual([full.id, digest.id]);
  });

  it('refuses story_ids with a period, names a missing story, and a window with no stories gives an empty digest', async () => {
    const [story] = (await h.get('/news/stories?limit=1', t.key)).body.data;
    expect(errorOf(await h.post('/news/digests', t.key, { persona_id: 'persona_saas_cfo', story_ids: [story.id], period: 'last_7_days' }))).toMatchObject({
      code: 'parameter_conflict',
    });
    expect(errorOf(await h.post('/news/digests', t.key, { persona_id: 'persona_saas_cfo', story_ids: [story.id, 'story_missing12345678'] }))).toMatchObject({
      code: 'resource_not_found',
      param: 'story_ids.1',
    });
    h.clock.advance(40 * 24 * 3_600_000);
    const empty = (await h.post('/news/digests', t.key, { persona_id: 'persona_saas_cfo', period: 'last_24_hours' })).body;
    expect(empty).toMatchObject({ story_count: 0, items: [] });
  });

  it('writes the digest’s prose through an upstream model, with relevance still computed in code', async () => {
    const [story] = (await h.get('/news/stories?search=inflation', t.key)).body.data;
    fake.enqueue({ content: JSON.stringify({ title: 'Rates on hold', summary: 'The ECB waits.', key_takeaways: ['Plan for stable rates'] }) });
    const res = await engine.using(upstreamEngine, () => h.post('/news/digests', t.key, { persona_id: 'persona_saas_cfo', story_ids: [story.id] }));
    expect(res.body).toMatchObject({ title: 'Rates on hold', key_takeaways: ['Plan for stable rates'], story_count: 1 });
    expect(fake.requests.at(-1)!.body.messages[1].content).toContain(story.name);
    expect(res.body.items[0].why_it_matters.length).toBeGreaterThan(0);
  });
});
