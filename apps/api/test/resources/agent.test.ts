import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createOfflineEngine, type Engine, type Feature, type RunOptions } from '@persona-api/engine';
import type { FakeUpstream } from '@persona-api/engine/testing';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CitationFilter, citedNumbers, resolveCitations } from '../../src/ai/citations.js';
import type { FoundSource } from '../../src/ai/tools/index.js';
import { agentMessages } from '../../src/db/schema/index.js';
import { newId } from '../../src/lib/ids.js';
import { uploadObjectKey } from '../../src/resources/files/keys.js';
import { files } from '../../src/resources/files/table.js';
import { loadBundledNewsIfEmpty } from '../../src/resources/news/feeds.js';
import { createLocalStorage } from '../../src/storage/local.js';
import { balanceOf, chargesOf, eventually, events, fakeUpstreamEngine, postAndDisconnect, SwitchableEngine } from '../support/ai.js';
import { errorOf, Harness, type Tenant } from '../support/harness.js';

// The research agent: threads (create, list, read, rename, delete) and messages, answered by an agent loop
// over the research tools (news full-text search, the workspace's documents, personas, and web search only
// when configured) — offline by the documented rule, upstream by real tool calls over several rounds with
// the fake upstream; every citation resolves; sources and deltas streamed; one answer per thread (409); a
// client that leaves does not stop the answer; billing by tokens; roles.

let h: Harness;
let fake: FakeUpstream;
let upstreamEngine: Engine;
let storageDir: string;
let storage: ReturnType<typeof createLocalStorage>;
const engine = new SwitchableEngine(createOfflineEngine());

const QUESTION = 'How much are mid-size software companies raising their subscription prices?';
const MEMO = [
  'Pricing memo for the board.',
  'Our own subscription prices rise by 12 percent in January for every mid-size customer, with a price lock for annual plans.',
  'Competitors among software companies raise subscription prices by up to 20 percent, so churn risk stays moderate.',
  'The finance team reviews the discount policy each quarter.',
].join('\n');

beforeAll(async () => {
  ({ fake, engine: upstreamEngine } = await fakeUpstreamEngine());
  storageDir = await mkdtemp(join(tmpdir(), 'agent-'));
  storage = createLocalStorage(storageDir);
  h = await Harness.create({ engine, services: { storage } });
  await loadBundledNewsIfEmpty(h.db, createOfflineEngine(), h.clock.now());
});
afterAll(async () => {
  await h.close();
  await fake.close();
  await rm(storageDir, { recursive: true, force: true });
});

/** A stored upload of the workspace, as the files flow leaves it (row + object). */
async function storedDocument(workspaceId: string, name: string, type: string, text: string): Promise<string> {
  const id = newId('file');
  const key = `upl_${newId('file').slice(5)}`;
  const bytes = Buffer.from(text, 'utf8');
  await storage.put(uploadObjectKey(key), Readable.from([bytes]));
  const now = h.clock.now();
  await h.db
    .insert(files)
    .values({ id, workspaceId, name, type, sizeBytes: bytes.length, size: bytes.length, storageKey: key, createdAt: now, updatedAt: now });
  return id;
}

const newThread = async (tenant: Tenant, body: Record<string, unknown> = {}) => {
  const res = await h.post('/agent/threads', tenant.key, body);
  expect(res.status).toBe(200);
  return res.body;
};

/** Every `[n]` of the content is a source of the message. */
function expectCitationsResolve(message: { content: string; sources: unknown[] }) {
  for (const n of citedNumbers(message.content)) {
    expect(n).toBeGreaterThanOrEqual(1);
    expect(n).toBeLessThanOrEqual(message.sources.length);
  }
}

/** The tool results the fake upstream was sent in a request: `{ref, title, url}` of every passage. */
function toolResultsOf(body: any): { name: string; results: { ref: number; title: string; url: string; snippet: string }[] }[] {
  const calls = new Map<string, string>();
  for (const message of body.messages) for (const call of message.tool_calls ?? []) calls.set(call.id, call.function.name);
  return body.messages
    .filter((message: any) => message.role === 'tool')
    .map((message: any) => ({ name: calls.get(message.tool_call_id) ?? '?', results: JSON.parse(message.content).results ?? [] }));
}

describe('citations', () => {
  it('removes a citation of no source and keeps the real ones', () => {
    expect(resolveCitations('Prices rise [1], churn is low [3] and [12].', 2)).toBe('Prices rise [1], churn is low  and .');
    expect(citedNumbers('a [2] b [1] c [2]')).toEqual([2, 1]);
  });

  it('holds back a citation split across deltas until its number is known', () => {
    const filter = new CitationFilter(() => 3);
    const pieces = ['Prices rise [', '2', '] and [', '4', '', '2] fall [1', '] end [9'].map((delta) => filter.push(delta));
    pieces.push(filter.end());
    expect(pieces).toEqual(['Prices rise ', '', '[2] and ', '', '', ' fall ', '[1] end ', '[9']);
    expect(pieces.join('')).toBe('Prices rise [2] and  fall [1] end [9');
  });
});

describe('threads', () => {
  it('creates, lists, reads, renames and deletes threads', async () => {
    const tenant = await h.tenant();
    const project = (await h.post('/projects', tenant.key, { name: 'Pricing', workspace_id: tenant.workspaceId })).body;
    const plain = await newThread(tenant);
    expect(plain).toMatchObject({
      object: 'agent_thread',
      title: 'New thread',
      workspace_id: tenant.workspaceId,
      project_id: null,
      persona_id: null,
      credits_used: 0,
      message_count: 0,
      last_message_at: null,
    });
    expect(plain.id).toMatch(/^thr_/);
    h.clock.advance(1_000);
    const inProject = await newThread(tenant, { title: 'Price study', project_id: project.id, persona_id: 'persona_saas_cfo' });
    expect(inProject).toMatchObject({ title: 'Price study', project_id: project.id, persona_id: 'persona_saas_cfo' });

    expect((await h.get('/agent/threads', tenant.key)).body.data.map((thread: any) => thread.id)).toEqual([inProject.id, plain.id]);
    expect((await h.get(`/agent/threads?project_id=${project.id}`, tenant.key)).body.data.map((thread: any) => thread.id)).toEqual([inProject.id]);
    expect((await h.get('/agent/threads?search=price', tenant.key)).body.data.map((thread: any) => thread.id)).toEqual([inProject.id]);
    expect((await h.get(`/projects/${project.id}`, tenant.key)).body.agent_thread_count).toBe(1);
    expect((await h.get(`/agent/threads/${plain.id}`, tenant.key)).body).toEqual(plain);

    h.clock.advance(1_000);
    const renamed = await h.patch(`/agent/threads/${plain.id}`, tenant.key, { title: 'Renamed' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: plain.id, title: 'Renamed' });
    expect(renamed.body.updated_at).not.toBe(plain.updated_at);
    expect(errorOf(await h.patch(`/agent/threads/${plain.id}`, tenant.key, { title: '' }))).toMatchObject({ code: 'invalid_parameter' });

    const removed = await h.delete(`/agent/threads/${plain.id}`, tenant.key);
    expect(removed.body).toEqual({ id: plain.id, object: 'agent_thread', deleted: true });
    expect(errorOf(await h.get(`/agent/threads/${plain.id}`, tenant.key))).toMatchObject({ code: 'resource_not_found', param: 'id' });
  });

  it('refuses a project of another workspace and an unknown persona, naming the field', async () => {
    const tenant = await h.tenant();
    const other = await h.tenant();
    const foreign = (await h.post('/projects', other.key, { name: 'Theirs', workspace_id: other.workspaceId })).body;
    expect(errorOf(await h.post('/agent/threads', tenant.key, { project_id: foreign.id }))).toMatchObject({ code: 'resource_not_found', param: 'project_id' });
    expect(errorOf(await h.post('/agent/threads', tenant.key, { persona_id: 'cp_doesnotexist1' }))).toMatchObject({
      code: 'resource_not_found',
      param: 'persona_id',
    });
  });
});

describe('answers on the offline engine', () => {
  it('searches news, documents and personas with the question, cites only returned sources, titles the thread and bills the tokens', async () => {
    const tenant = await h.tenant({ credits: 10_000 });
    await storedDocument(tenant.workspaceId, 'pricing-memo.txt', 'text/plain', MEMO);
    const thread = await newThread(tenant);
    const before = await balanceOf(h, tenant.accountId);
    const res = await h.post(`/agent/threads/${thread.id}/messages`, tenant.key, { content: QUESTION });
    expect(res.status).toBe(200);
    const answer = res.body;
    expect(answer).toMatchObject({ object: 'agent_thread.message', thread_id: thread.id, role: 'assistant', status: 'completed' });
    // The news story and the memo were found and quoted.
    const urls = answer.sources.map((source: any) => source.url);
    expect(answer.sources.some((source: any) => source.title.startsWith('Mid-size software companies raise subscription prices'))).toBe(true);
    expect(urls.some((url: string) => url.startsWith('http://localhost/api/v1/uploads/upl_'))).toBe(true);
    expect(answer.content).toContain('"Competitors among software companies raise subscription prices by up to 20 percent');
    expect(citedNumbers(answer.content).length).toBeGreaterThanOrEqual(2);
    expectCitationsResolve(answer);
    // Each quoted sentence is cited with the source it comes from.
    for (const line of answer.content.split('\n').filter((line: string) => line.startsWith('- '))) {
      const [, quote, ref] = /"(.+)" \[(\d+)\]$/.exec(line) ?? [];
      expect(answer.sources[Number(ref) - 1].snippet).toContain(quote!.replace(/…$/, ''));
    }
    // Billed by tokens, once, on the thread too.
    expect(answer.usage.total_tokens).toBe(answer.usage.input_tokens + answer.usage.output_tokens);
    expect(answer.usage.credits_used).toBe(Math.max(1, Math.ceil(answer.usage.total_tokens / 100)));
    expect(await balanceOf(h, tenant.accountId)).toBe(before - answer.usage.credits_used);
    const stored = (await h.get(`/agent/threads/${thread.id}`, tenant.key)).body;
    expect(stored).toMatchObject({
      message_count: 2,
      credits_used: answer.usage.credits_used,
      title: 'How much are mid-size software companies raising their subscription prices?',
    });
    expect(stored.last_message_at).not.toBeNull();

    // Messages read oldest first, or newest first; a user message has no usage.
    const asc = (await h.get(`/agent/threads/${thread.id}/messages`, tenant.key)).body.data;
    expect(asc.map((message: any) => message.role)).toEqual(['user', 'assistant']);
    expect(asc[0]).toMatchObject({ content: QUESTION, status: 'completed', sources: [], usage: null });
    expect(asc[1]).toEqual(answer);
    const desc = (await h.get(`/agent/threads/${thread.id}/messages?order=desc&limit=1`, tenant.key)).body;
    expect(desc.data.map((message: any) => message.id)).toEqual([answer.id]);
    const next = (await h.get(`/agent/threads/${thread.id}/messages?order=desc&limit=1&cursor=${desc.next_cursor}`, tenant.key)).body;
    expect(next.data.map((message: any) => message.role)).toEqual(['user']);
  });

  it('answers a question about the personas from their profiles, one labelled item each', async () => {
    const tenant = await h.tenant({ credits: 10_000 });
    const thread = await newThread(tenant);
    const answer = (await h.post(`/agent/threads/${thread.id}/messages`, tenant.key, { content: 'Which personas care about sustainability?' })).body;
    const quoted = answer.content.split('\n').filter((line: string) => line.startsWith('- '));
    expect(quoted.length).toBeGreaterThan(0);
    // Every quoted source is a persona's address (the news stories mention no sustainability either way), and
    // "care" (medical care abroad) found nothing: it frames the question.
    for (const line of quoted) {
      const ref = Number(/\[(\d+)\]$/.exec(line)![1]);
      expect(answer.sources[ref - 1].url).toMatch(/\/api\/v1\/personas\/persona_[a-z_]+$/);
      expect(line.toLowerCase()).toContain('sustainab');
    }
    expect(answer.content).not.toContain('medical care');
    expectCitationsResolve(answer);
  });

  it('says so when nothing matched, with no citation', async () => {
    const tenant = await h.tenant();
    const thread = await newThread(tenant, { title: 'Kept title' });
    const answer = (await h.post(`/agent/threads/${thread.id}/messages`, tenant.key, { content: 'Xylophone zeppelin quokka?' })).body;
    expect(answer.status).toBe('completed');
    expect(answer.sources).toEqual([]);
    expect(answer.content).toContain('Nothing in the workspace');
    expect(citedNumbers(answer.content)).toEqual([]);
    expect((await h.get(`/agent/threads/${thread.id}`, tenant.key)).body.title).toBe('Kept title');
  });

  it('streams created, the sources as found, the deltas and completed, then [DONE]', async () => {
    const tenant = await h.tenant();
    await storedDocument(tenant.workspaceId, 'memo.md', 'text/markdown', MEMO);
    const thread = await newThread(tenant);
    const res = await h.post(`/agent/threads/${thread.id}/messages`, tenant.key, { content: QUESTION, stream: true });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/event-stream');
    expect(res.text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    const stream = events(res.text);
    expect(stream.map((event) => event.data.sequence_number)).toEqual(stream.map((_, index) => index));
    expect(stream.every((event) => event.event === event.data.type)).toBe(true);
    const types = stream.map((event) => event.data.type);
    expect(types[0]).toBe('agent.message.created');
    expect(types.at(-1)).toBe('agent.message.completed');
    // Sources come before the text that cites them.
    expect(types.lastIndexOf('agent.message.source.added')).toBeLessThan(types.indexOf('agent.message.delta'));
    const completed = stream.at(-1)!.data.message;
    expect(stream[0]!.data.message).toMatchObject({ id: completed.id, status: 'in_progress', content: '', usage: null });
    const added = stream.filter((event) => event.data.type === 'agent.message.source.added').map((event) => event.data);
    expect(added.map((event) => event.source_index)).toEqual(completed.sources.map((_: unknown, index: number) => index));
    expect(added.map((event) => event.source)).toEqual(completed.sources);
    const text = stream
      .filter((event) => event.data.type === 'agent.message.delta')
      .map((event) => event.data.delta)
      .join('');
    expect(text).toBe(completed.content);
    expectCitationsResolve(completed);
    const listed = (await h.get(`/agent/threads/${thread.id}/messages`, tenant.key)).body.data[1];
    expect(listed).toEqual(completed);
  });

  it('answers with a thread persona and the earlier messages as context', async () => {
    const tenant = await h.tenant();
    const thread = await newThread(tenant, { persona_id: 'persona_saas_cfo' });
    await h.post(`/agent/threads/${thread.id}/messages`, tenant.key, { content: QUESTION });
    h.clock.advance(1_000);
    const second = await h.post(`/agent/threads/${thread.id}/messages`, tenant.key, { content: 'What do CFO personas worry about with software spend?' });
    expect(second.status).toBe(200);
    expect(second.body.sources.some((source: any) => source.url.endsWith('/personas/persona_saas_cfo'))).toBe(true);
    expectCitationsResolve(second.body);
    const thread2 = (await h.get(`/agent/threads/${thread.id}`, tenant.key)).body;
    expect(thread2.message_count).toBe(4);
    // The title came from the first message only.
    expect(thread2.title).toBe('How much are mid-size software companies raising their subscription prices?');
  });
});

describe('answers through an upstream model', () => {
  it('runs the tools the model calls over several rounds and removes a citation of nothing', async () => {
    const tenant = await h.tenant({ credits: 10_000 });
    await storedDocument(tenant.workspaceId, 'pricing-memo.txt', 'text/plain', MEMO);
    const thread = await newThread(tenant);
    fake.enqueue(
      { content: JSON.stringify({ title: 'Software subscription price rises' }), usage: { prompt_tokens: 40, completion_tokens: 8 } },
      {
        tool_calls: [{ name: 'news_search', arguments: JSON.stringify({ query: 'software subscription prices' }) }],
        usage: { prompt_tokens: 300, completion_tokens: 12 },
      },
      {
        tool_calls: [
          { name: 'document_search', arguments: JSON.stringify({ query: 'subscription prices January' }) },
          { name: 'persona_search', arguments: JSON.stringify({ query: 'CFO finance' }) },
        ],
        usage: { prompt_tokens: 700, completion_tokens: 20 },
      },
      ({ body }) => {
        // The model cites what the tools returned: the news story and the memo; and one number that names nothing.
        const results = toolResultsOf(body);
        const news = results.find((result) => result.name === 'news_search')!.results[0]!;
        const memo = results.find((result) => result.name === 'document_search')!.results[0]!;
        return {
          content: `Software vendors raise prices by up to 20 percent [${news.ref}]. We raise ours by 12 percent [${memo.ref}], below the market [${news.ref}][42].`,
          usage: { prompt_tokens: 1500, completion_tokens: 60 },
        };
      },
    );
    const before = fake.requests.length;
    const answer = await engine.using(
      upstreamEngine,
      async () => (await h.post(`/agent/threads/${thread.id}/messages`, tenant.key, { content: QUESTION })).body,
    );
    expect(fake.pending).toBe(0);
    const sent = fake.requests.slice(before);
    expect(sent).toHaveLength(4);
    // Tools offered: the three over the caller's data; no web search without a provider.
    expect(sent[1]!.body.tools.map((tool: any) => tool.function.name).sort()).toEqual(['document_search', 'news_search', 'persona_search']);
    // Round 3 read the results of both calls of round 2, numbered after round 1's.
    const results = toolResultsOf(sent[3]!.body);
    expect(results.map((result) => result.name)).toEqual(['news_search', 'document_search', 'persona_search']);
    const refs = results.flatMap((result) => result.results.map((entry) => entry.ref));
    expect(refs).toEqual(refs.map((_, index) => index + 1));
    expect(results[1]!.results[0]!.snippet).toContain('12 percent');

    expect(answer.status).toBe('completed');
    expect(answer.content).not.toContain('[42]');
    expect(answer.content).toMatch(/^Software vendors raise prices by up to 20 percent \[1\]\. We raise ours by 12 percent \[\d+\], below the market \[1\]\.$/);
    expectCitationsResolve(answer);
    expect(answer.sources).toHaveLength(refs.length);
    expect(answer.sources[0].title).toContain('subscription prices');
    // Tokens of every round and of the title, as the upstream reported them.
    expect(answer.usage).toEqual({ input_tokens: 2540, output_tokens: 100, total_tokens: 2640, credits_used: 27 });
    const charges = await chargesOf(h, tenant.accountId);
    expect(charges.at(-1)!.amount).toBe(-27);
    expect((await h.get(`/agent/threads/${thread.id}`, tenant.key)).body).toMatchObject({ title: 'Software subscription price rises', credits_used: 27 });
  });

  it('stops offering tools after four rounds and makes the model answer', async () => {
    const tenant = await h.tenant();
    const thread = await newThread(tenant, { title: 'Loop' });
    const search = { tool_calls: [{ name: 'news_search', arguments: JSON.stringify({ query: 'energy' }) }] };
    fake.enqueue(search, search, search, search, ({ body }) => {
      expect(body.tool_choice).toBe('none');
      return { content: 'Energy bills weigh on restaurants [1].' };
    });
    const before = fake.requests.length;
    const answer = await engine.using(
      upstreamEngine,
      async () => (await h.post(`/agent/threads/${thread.id}/messages`, tenant.key, { content: 'Energy?' })).body,
    );
    expect(fake.requests.length - before).toBe(5);
    expect(answer.content).toBe('Energy bills weigh on restaurants [1].');
    // The same story found four times is one source.
    expect(new Set(answer.sources.map((source: any) => source.url)).size).toBe(answer.sources.length);
  });

  it('streams an upstream answer whose deltas are the checked content', async () => {
    const tenant = await h.tenant();
    const thread = await newThread(tenant, { title: 'Streamed' });
    fake.enqueue(
      { tool_calls: [{ name: 'news_search', arguments: JSON.stringify({ query: 'interest rates inflation' }) }] },
      { content: 'Rates are on hold [1] while [7] inflation cools [1].' },
    );
    const res = await engine.using(upstreamEngine, () => h.post(`/agent/threads/${thread.id}/messages`, tenant.key, { content: 'Rates?', stream: true }));
    const stream = events(res.text);
    const completed = stream.at(-1)!.data.message;
    expect(completed.content).toBe('Rates are on hold [1] while  inflation cools [1].');
    expect(
      stream
        .filter((event) => event.data.type === 'agent.message.delta')
        .map((event) => event.data.delta)
        .join(''),
    ).toBe(completed.content);
    expect(stream.filter((event) => event.data.type === 'agent.message.source.added')).toHaveLength(completed.sources.length);
  });

  it('fails an answer the model server breaks, charges nothing, and the thread takes the next message', async () => {
    const tenant = await h.tenant();
    const thread = await newThread(tenant, { title: 'Flaky' });
    const before = await balanceOf(h, tenant.accountId);
    fake.enqueue({ tool_calls: [{ name: 'news_search', arguments: JSON.stringify({ query: 'prices' }) }] }, { status: 500 });
    const res = await engine.using(upstreamEngine, () => h.post(`/agent/threads/${thread.id}/messages`, tenant.key, { content: 'Prices?' }));
    expect(res.status).toBe(502);
    expect(errorOf(res)).toMatchObject({ code: 'upstream_error' });
    expect(fake.pending).toBe(0);
    const messages = (await h.get(`/agent/threads/${thread.id}/messages`, tenant.key)).body.data;
    expect(messages.map((message: any) => [message.role, message.status])).toEqual([
      ['user', 'completed'],
      ['assistant', 'failed'],
    ]);
    expect(messages[1].usage).toMatchObject({ credits_used: 0 });
    // The sources found before the failure are kept with it.
    expect(messages[1].sources.length).toBeGreaterThan(0);
    expect(await balanceOf(h, tenant.accountId)).toBe(before);
    expect((await h.get(`/agent/threads/${thread.id}`, tenant.key)).body.credits_used).toBe(0);
    const again = await h.post(`/agent/threads/${thread.id}/messages`, tenant.key, { content: 'Prices?' });
    expect(again.status).toBe(200);
  });

  it('ends a stream that fails midway with the one error event shape, then [DONE]', async () => {
    const tenant = await h.tenant();
    const thread = await newThread(tenant, { title: 'Broken stream' });
    fake.enqueue(
      { tool_calls: [{ name: 'news_search', arguments: JSON.stringify({ query: 'prices' }) }] },
      { status: 400, errorBody: { error: { message: 'bad', type: 'invalid_request_error', code: null } } },
    );
    const res = await engine.using(upstreamEngine, () => h.post(`/agent/threads/${thread.id}/messages`, tenant.key, { content: 'Prices?', stream: true }));
    expect(res.text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    const last = events(res.text).at(-1)!;
    expect(last.event).toBe('error');
    expect(Object.keys(last.data).sort()).toEqual(['code', 'message', 'param', 'sequence_number', 'type']);
    expect(last.data).toMatchObject({ type: 'error', param: null });
    const [, answer] = (await h.get(`/agent/threads/${thread.id}/messages`, tenant.key)).body.data;
    expect(answer.status).toBe('failed');
  });
});

/** The offline engine, except that the thread-title call waits until the test opens the gate. */
function gatedEngine(gate: Promise<void>, started: () => void): Engine {
  const offline = createOfflineEngine();
  return new Proxy(offline, {
    get(target, property, receiver) {
      if (property !== 'run') return Reflect.get(target, property, receiver);
      return async <I, O>(feature: Feature<I, O>, input: I, options?: RunOptions) => {
        if (feature.name === 'thread_title') {
          started();
          await gate;
        }
        return target.run(feature, input, options);
      };
    },
  });
}

describe('one answer per thread', () => {
  it('refuses a message, and a delete, while an answer is in progress (409), then accepts them', async () => {
    const tenant = await h.tenant();
    const thread = await newThread(tenant);
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let markStarted!: () => void;
    const started = new Promise<void>((resolve) => (markStarted = resolve));
    await engine.using(gatedEngine(gate, markStarted), async () => {
      const first = h.post(`/agent/threads/${thread.id}/messages`, tenant.key, { content: QUESTION });
      await started;
      const second = await h.post(`/agent/threads/${thread.id}/messages`, tenant.key, { content: 'And another?' });
      expect(second.status).toBe(409);
      expect(errorOf(second)).toMatchObject({ code: 'invalid_state' });
      expect(errorOf(await h.delete(`/agent/threads/${thread.id}`, tenant.key))).toMatchObject({ code: 'invalid_state' });
      // Reads during the answer show it in progress.
      const during = (await h.get(`/agent/threads/${thread.id}/messages`, tenant.key)).body.data;
      expect(during.map((message: any) => message.status)).toEqual(['completed', 'in_progress']);
      open();
      expect((await first).status).toBe(200);
    });
    expect((await h.post(`/agent/threads/${thread.id}/messages`, tenant.key, { content: 'And another?' })).status).toBe(200);
    expect((await h.get(`/agent/threads/${thread.id}`, tenant.key)).body.message_count).toBe(4);
  });

  it('lets exactly one of two simultaneous messages through', async () => {
    const tenant = await h.tenant();
    const thread = await newThread(tenant);
    // The first answer to start waits on its title, so the two sends overlap whatever their order.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const results = await engine.using(
      gatedEngine(gate, () => setTimeout(open, 50)),
      () =>
        Promise.all([
          h.post(`/agent/threads/${thread.id}/messages`, tenant.key, { content: QUESTION }),
          h.post(`/agent/threads/${thread.id}/messages`, tenant.key, { content: QUESTION }),
        ]),
    );
    expect(results.map((res) => res.status).sort()).toEqual([200, 409]);
    expect((await h.get(`/agent/threads/${thread.id}/messages`, tenant.key)).body.data).toHaveLength(2);
  });

  it('treats an answer stuck in progress for 15 minutes as failed', async () => {
    const tenant = await h.tenant();
    const thread = await newThread(tenant, { title: 'Stuck' });
    const at = h.clock.now();
    const stuckId = newId('msg');
    await h.db
      .insert(agentMessages)
      .values({ id: stuckId, threadId: thread.id, role: 'assistant', content: '', status: 'in_progress', createdAt: at, updatedAt: at });
    expect((await h.post(`/agent/threads/${thread.id}/messages`, tenant.key, { content: QUESTION })).status).toBe(409);
    h.clock.advance(15 * 60 * 1000 + 1);
    expect((await h.post(`/agent/threads/${thread.id}/messages`, tenant.key, { content: QUESTION })).status).toBe(200);
    const stuck = await h.db.select().from(agentMessages).where(eq(agentMessages.id, stuckId));
    expect(stuck[0]?.status).toBe('failed');
  });
});

describe('a client that leaves the stream', () => {
  it('does not stop the answer: it is stored and charged', async () => {
    const tenant = await h.tenant();
    const thread = await newThread(tenant, { title: 'Leaving' });
    const before = await balanceOf(h, tenant.accountId);
    await h.app.listen({ port: 0, host: '127.0.0.1' }).catch(() => undefined);
    fake.enqueue(
      { tool_calls: [{ name: 'news_search', arguments: JSON.stringify({ query: 'prices' }) }] },
      { content: 'Prices rise [1]. '.repeat(30), tokenDelayMs: 5 },
    );
    await engine.using(upstreamEngine, async () => {
      await postAndDisconnect(h, `/agent/threads/${thread.id}/messages`, tenant.key, { content: 'Prices?', stream: true }, (received) =>
        received.includes('agent.message.delta'),
      );
      const answer = await eventually(async () => {
        const [, last] = (await h.get(`/agent/threads/${thread.id}/messages`, tenant.key)).body.data;
        return last?.status === 'completed' ? last : null;
      });
      expect(answer.content.split('[1]').length - 1).toBe(30);
      expect(answer.usage.credits_used).toBeGreaterThan(0);
      expect(await balanceOf(h, tenant.accountId)).toBe(before - answer.usage.credits_used);
    });
  });
});

describe('credits and roles', () => {
  it('refuses an answer the balance cannot start (402), storing nothing', async () => {
    const poor = await h.tenant({ credits: 0 });
    const thread = await newThread(poor, { title: 'Poor' });
    expect(errorOf(await h.post(`/agent/threads/${thread.id}/messages`, poor.key, { content: QUESTION }))).toMatchObject({ code: 'insufficient_credits' });
    expect((await h.get(`/agent/threads/${thread.id}/messages`, poor.key)).body.data).toEqual([]);
    expect(errorOf(await h.post(`/agent/threads/${thread.id}/messages`, poor.key, { content: '' }))).toMatchObject({ code: 'invalid_parameter' });
    expect(errorOf(await h.post('/agent/threads/thr_unknown00001/messages', poor.key, { content: 'x' }))).toMatchObject({
      code: 'resource_not_found',
      param: 'id',
    });
  });

  it('follows the workspace roles: viewers read, paid-AI roles ask and rename, content deleters delete', async () => {
    const owner = await h.tenant({ credits: 5_000 });
    const team = (await h.post('/workspaces', owner.key, { name: 'Research' })).body.id;
    const viewer = await h.tenant();
    const analyst = await h.tenant();
    const editor = await h.tenant();
    await h.post(`/workspaces/${team}/members`, owner.key, { email: viewer.email, role: 'viewer' });
    await h.post(`/workspaces/${team}/members`, owner.key, { email: analyst.email, role: 'analyst' });
    await h.post(`/workspaces/${team}/members`, owner.key, { email: editor.email, role: 'editor' });
    expect(errorOf(await h.post('/agent/threads', viewer.key, { workspace_id: team }))).toMatchObject({ code: 'permission_denied' });
    const thread = await newThread(analyst, { workspace_id: team });
    expect((await h.post(`/agent/threads/${thread.id}/messages`, analyst.key, { content: QUESTION })).status).toBe(200);
    expect(errorOf(await h.post(`/agent/threads/${thread.id}/messages`, viewer.key, { content: QUESTION }))).toMatchObject({ code: 'permission_denied' });
    expect(errorOf(await h.patch(`/agent/threads/${thread.id}`, viewer.key, { title: 'Mine' }))).toMatchObject({ code: 'permission_denied' });
    expect((await h.patch(`/agent/threads/${thread.id}`, analyst.key, { title: 'Ours' })).body.title).toBe('Ours');
    expect((await h.get(`/agent/threads/${thread.id}/messages`, viewer.key)).body.data).toHaveLength(2);
    expect((await h.get(`/agent/threads?workspace_id=${team}`, viewer.key)).body.data.map((row: any) => row.id)).toEqual([thread.id]);
    expect(errorOf(await h.delete(`/agent/threads/${thread.id}`, analyst.key))).toMatchObject({ code: 'permission_denied' });
    expect((await h.delete(`/agent/threads/${thread.id}`, editor.key)).body.deleted).toBe(true);
  });
});

describe('web search', () => {
  it('is offered only with a provider, and its pages become cited sources', async () => {
    const pages: FoundSource[] = [
      {
        title: 'SaaS price index 2026',
        url: 'https://prices.example/saas-index',
        snippet: 'Mid-size software companies raised subscription prices by 14 percent on average this year.',
        publishedAt: null,
      },
    ];
    const asked: string[] = [];
    const web = await Harness.create({
      database: h.database,
      engine,
      services: {
        storage,
        webSearch: {
          search: async (query) => {
            asked.push(query);
            return pages;
          },
        },
      },
    });
    try {
      const tenant = await web.tenant();
      const thread = (await web.post('/agent/threads', tenant.key, { title: 'Web' })).body;
      const answer = (await web.post(`/agent/threads/${thread.id}/messages`, tenant.key, { content: QUESTION })).body;
      expect(asked).toHaveLength(1);
      const index = answer.sources.findIndex((source: any) => source.url === 'https://prices.example/saas-index');
      expect(index).toBeGreaterThanOrEqual(0);
      expect(answer.content).toContain(`[${index + 1}]`);
      expectCitationsResolve(answer);
      fake.enqueue(({ body }) => {
        expect(body.tools.map((tool: any) => tool.function.name)).toContain('web_search');
        return { content: 'Nothing needed.' };
      });
      await engine.using(upstreamEngine, () => web.post(`/agent/threads/${thread.id}/messages`, tenant.key, { content: 'Anything else?' }));
      expect(fake.pending).toBe(0);
    } finally {
      await web.close();
    }
  });
});
