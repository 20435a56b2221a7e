import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createOfflineEngine, type Engine } from '@persona-api/engine';
import type { FakeUpstream } from '@persona-api/engine/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searxngProvider } from '../../src/ai/tools/web-search.js';
import { createGuardedFetcher } from '../../src/lib/guarded-fetch.js';
import { newId } from '../../src/lib/ids.js';
import { uploadObjectKey } from '../../src/resources/files/keys.js';
import { files } from '../../src/resources/files/table.js';
import { loadBundledNewsIfEmpty } from '../../src/resources/news/feeds.js';
import { createLocalStorage } from '../../src/storage/local.js';
import { balanceOf, events, fakeUpstreamEngine, SwitchableEngine } from '../support/ai.js';
import { Harness, type Tenant } from '../support/harness.js';

// Server-side tools of /responses: offered only when the question asks for sources; persona_knowledge_search
// (the workspace's documents) and news_search run (offline: all, by the documented rule; upstream: those the
// model calls in its selection round), appear in server_tool_calls, are cited as url_citation annotations,
// and cost their tokens plus 1 credit per call; web_search only with a provider.

let h: Harness;
let t: Tenant;
let fake: FakeUpstream;
let upstreamEngine: Engine;
let storageDir: string;
const engine = new SwitchableEngine(createOfflineEngine());

const MEMO = [
  'Pricing memo for the board.',
  'Our own subscription prices rise by 12 percent in January for every mid-size customer, with a price lock for annual plans.',
  'Competitors among software companies raise subscription prices by up to 20 percent, so churn risk stays moderate.',
].join('\n');
const QUESTION = 'What do the latest news and our documents say about software subscription prices?';

beforeAll(async () => {
  ({ fake, engine: upstreamEngine } = await fakeUpstreamEngine());
  storageDir = await mkdtemp(join(tmpdir(), 'server-tools-'));
  const storage = createLocalStorage(storageDir);
  h = await Harness.create({ engine, services: { storage } });
  await loadBundledNewsIfEmpty(h.db, createOfflineEngine(), h.clock.now());
  t = await h.tenant({ credits: 10_000 });
  const key = `upl_${newId('file').slice(5)}`;
  const bytes = Buffer.from(MEMO, 'utf8');
  await storage.put(uploadObjectKey(key), Readable.from([bytes]));
  const now = h.clock.now();
  await h.db.insert(files).values({
    id: newId('file'),
    workspaceId: t.workspaceId,
    name: 'pricing-memo.txt',
    type: 'text/plain',
    sizeBytes: bytes.length,
    size: bytes.length,
    storageKey: key,
    createdAt: now,
    updatedAt: now,
  });
});
afterAll(async () => {
  await h.close();
  await fake.close();
  await rm(storageDir, { recursive: true, force: true });
});

const textOf = (response: any) => response.output.find((item: any) => item.type === 'message').content[0];

/** Every annotation marks a `[n]` of the text and names a source one of the server tool calls returned. */
function expectAnnotationsResolve(response: any) {
  const part = textOf(response);
  const urls = new Set(response.server_tool_calls.flatMap((call: any) => call.sources.map((source: any) => source.url)));
  expect(part.annotations.length).toBeGreaterThan(0);
  for (const annotation of part.annotations) {
    expect(annotation.type).toBe('url_citation');
    expect(part.text.slice(annotation.start_index, annotation.end_index)).toMatch(/^\[\d+\]$/);
    expect(urls.has(annotation.url)).toBe(true);
  }
}

describe('server-side tools on the offline engine', () => {
  it('runs the knowledge and news searches for a question that asks for sources, cites them and bills 1 credit per call', async () => {
    const before = await balanceOf(h, t.accountId);
    const res = await h.post('/responses', t.key, { model: 'service-1', persona_id: 'persona_saas_cfo', input: QUESTION });
    expect(res.status).toBe(200);
    const response = res.body;
    expect(response.server_tool_calls.map((call: any) => [call.type, call.status])).toEqual([
      ['persona_knowledge_search', 'completed'],
      ['news_search', 'completed'],
    ]);
    for (const call of response.server_tool_calls) {
      expect(call.id).toMatch(/^stc_/);
      expect(call.query).toContain('subscription');
      expect(call.sources.length).toBeGreaterThan(0);
    }
    expect(response.server_tool_calls[0].sources[0]).toMatchObject({ title: 'pricing-memo.txt', published_at: null });
    expect(response.server_tool_calls[1].sources.some((source: any) => source.title.startsWith('Mid-size software companies raise subscription prices'))).toBe(
      true,
    );
    expect(textOf(response).text).toContain('Competitors among software companies raise subscription prices');
    expectAnnotationsResolve(response);
    const { usage } = response;
    expect(usage.credits_used).toBe(Math.ceil(usage.total_tokens / 100) + 2);
    expect(await balanceOf(h, t.accountId)).toBe(before - usage.credits_used);
  });

  it('streams the annotations in content_part.done and the calls on the final response only', async () => {
    const res = await h.post('/responses', t.key, { model: 'service-1', persona_id: 'persona_saas_cfo', input: QUESTION, stream: true });
    const stream = events(res.text).map((event) => event.data);
    expect(stream[0].type).toBe('response.created');
    expect(stream[0].response.server_tool_calls).toBeUndefined();
    const done = stream.find((event) => event.type === 'response.content_part.done');
    const completed = stream.at(-1);
    expect(completed.type).toBe('response.completed');
    expect(done.part.annotations).toEqual(textOf(completed.response).annotations);
    const text = stream
      .filter((event) => event.type === 'response.output_text.delta')
      .map((event) => event.delta)
      .join('');
    expect(text).toBe(textOf(completed.response).text);
    expect(completed.response.server_tool_calls).toHaveLength(2);
    expectAnnotationsResolve(completed.response);
  });

  it('runs nothing for a question that does not ask for sources', async () => {
    const res = await h.post('/responses', t.key, { model: 'service-1', persona_id: 'persona_saas_cfo', input: 'Would you pay $18 per seat for this?' });
    expect(res.body.server_tool_calls).toBeUndefined();
    expect(textOf(res.body).annotations).toEqual([]);
    expect(res.body.usage.credits_used).toBe(Math.max(1, Math.ceil(res.body.usage.total_tokens / 100)));
  });
});

describe('server-side tools through an upstream model', () => {
  it('runs the searches the model asks for and annotates the citations of the answer', async () => {
    fake.enqueue(
      ({ body }) => {
        // The selection round offers only the server tools; no web search without a provider.
        expect(body.tools.map((tool: any) => tool.function.name).sort()).toEqual(['news_search', 'persona_knowledge_search']);
        return {
          tool_calls: [{ name: 'news_search', arguments: JSON.stringify({ query: 'software subscription prices' }) }],
          usage: { prompt_tokens: 200, completion_tokens: 10 },
        };
      },
      ({ body }) => {
        const results = body.messages.find(
          (message: any) => message.role === 'developer' || (message.role === 'system' && message.content.includes('Server-side search results')),
        );
        expect(results.content).toContain('[1] Mid-size software companies raise subscription prices');
        return { content: 'Vendors raise prices by up to 20 percent [1], and [9] is not a source.', usage: { prompt_tokens: 400, completion_tokens: 20 } };
      },
    );
    const res = await engine.using(upstreamEngine, () => h.post('/responses', t.key, { model: 'service-1', persona_id: 'persona_saas_cfo', input: QUESTION }));
    expect(res.status).toBe(200);
    expect(fake.pending).toBe(0);
    expect(res.body.server_tool_calls.map((call: any) => [call.type, call.query])).toEqual([['news_search', 'software subscription prices']]);
    const part = textOf(res.body);
    expect(part.annotations).toEqual([
      {
        type: 'url_citation',
        url: res.body.server_tool_calls[0].sources[0].url,
        title: res.body.server_tool_calls[0].sources[0].title,
        start_index: 41,
        end_index: 44,
      },
    ]);
    expect(res.body.usage).toMatchObject({ input_tokens: 600, output_tokens: 30, total_tokens: 630, credits_used: 8 });
  });

  it('answers without tools when the model calls none', async () => {
    fake.enqueue(
      { content: 'No search needed.', usage: { prompt_tokens: 100, completion_tokens: 5 } },
      { content: 'From memory: prices rise.', usage: { prompt_tokens: 100, completion_tokens: 5 } },
    );
    const res = await engine.using(upstreamEngine, () => h.post('/responses', t.key, { model: 'service-1', persona_id: 'persona_saas_cfo', input: QUESTION }));
    expect(res.body.server_tool_calls).toBeUndefined();
    expect(textOf(res.body).text).toBe('From memory: prices rise.');
    expect(res.body.usage).toMatchObject({ total_tokens: 210, credits_used: 3 });
  });
});

describe('web search on /responses', () => {
  it('is a server tool only with a provider', async () => {
    const web = await Harness.create({
      database: h.database,
      engine,
      services: {
        storage: createLocalStorage(storageDir),
        webSearch: {
          search: async () => [
            {
              title: 'SaaS price index',
              url: 'https://prices.example/index',
              snippet: 'Software subscription prices rose 14 percent on average.',
              publishedAt: null,
            },
          ],
        },
      },
    });
    try {
      const tenant = await web.tenant();
      const res = await web.post('/responses', tenant.key, { model: 'service-1', persona_id: 'persona_saas_cfo', input: QUESTION });
      expect(res.body.server_tool_calls.map((call: any) => call.type)).toEqual(['persona_knowledge_search', 'news_search', 'web_search']);
      expect(res.body.server_tool_calls[2].sources).toEqual([{ title: 'SaaS price index', url: 'https://prices.example/index', published_at: null }]);
      expectAnnotationsResolve(res.body);
    } finally {
      await web.close();
    }
  });
});

describe('the SearXNG-compatible provider', () => {
  it('asks the configured endpoint for JSON and keeps only results with an http(s) address', async () => {
    const asked: string[] = [];
    const server = createServer((req, res) => {
      asked.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          results: [
            { url: 'https://prices.example/a', title: 'Price index', content: 'Prices rose 14 percent.', publishedDate: '2026-11-01T00:00:00Z' },
            { url: 'javascript:alert(1)', title: 'Bad', content: 'x' },
            { url: 'https://prices.example/b', title: '', content: 'No title.', publishedDate: 'not a date' },
          ],
        }),
      );
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/search`;
      const sources = await searxngProvider(endpoint, createGuardedFetcher()).search('saas prices');
      expect(asked).toEqual(['/search?q=saas+prices&format=json']);
      expect(sources).toEqual([
        { title: 'Price index', url: 'https://prices.example/a', snippet: 'Prices rose 14 percent.', publishedAt: new Date('2026-11-01T00:00:00Z') },
        { title: 'https://prices.example/b', url: 'https://prices.example/b', snippet: 'No title.', publishedAt: null },
      ]);
    } finally {
      server.close();
    }
  });
});
