import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOfflineEngine, type Engine } from '@persona-api/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import type { JobRuntime } from '../../src/jobs/queue.js';
import { createGuardedFetcher } from '../../src/lib/guarded-fetch.js';
import { brandVoiceJobs } from '../../src/resources/brand-voices/job.js';
import { createLocalStorage } from '../../src/storage/local.js';
import { balanceOf, fakeUpstreamEngine, SwitchableEngine } from '../support/ai.js';
import { openTestDatabase } from '../support/database.js';
import { docxOf, pdfOf } from '../support/documents.js';
import { errorOf, Harness, TestClock, type Tenant } from '../support/harness.js';
import { openTestJobQueue } from '../support/jobs.js';
import { testServices } from '../support/services.js';
import { storeFile } from '../support/uploads.js';

// Brand voices: creation charges 100 credits and enqueues the learning job in the charge's transaction;
// the job reads web pages (guarded fetcher + Readability) and stored documents (PDF, DOCX, Markdown,
// HTML, text), records each source's outcome, and derives the voice on the offline or upstream engine.
// Failures, early deletes and the 10-minute deadline refund; PATCH only on final voices; roles.

const PLAYFUL = [
  "Hungry? We've got you! Our crunchy chickpea puffs are loaded with flavour and you'll love every bite.",
  'Grab a bag, share it, snap it. Who says snacks can not be good for you? Try the spicy mango crunch today!',
  "You deserve a treat that tastes amazing. We're obsessed with crunch, and we think you will be too!",
];
const FORMAL = [
  'The consolidated financial statements have been prepared in accordance with International Financial Reporting Standards.',
  'Management evaluates the recoverability of goodwill annually through impairment testing of cash-generating units.',
  'Amortisation of intangible assets is recognised on a straight-line basis over their estimated useful lives.',
  'The company maintains a conservative liquidity position, with covenant headroom reviewed quarterly by the audit committee.',
];
const article = (title: string, paragraphs: string[]) =>
  `<!doctype html><html><head><title>${title}</title><script>track()</script></head><body><nav><a href="/">Home</a> <a href="/shop">Shop</a> Cookie settings</nav><article><h1>${title}</h1>${paragraphs.map((p) => `<p>${p}</p>`).join('')}</article><footer>© Example Ltd. All rights reserved.</footer></body></html>`;

let database: DatabaseHandle;
let h: Harness;
let queue: JobRuntime;
let pages: Server;
let base: string;
let storageDir: string;
let storage: ReturnType<typeof createLocalStorage>;
let t: Tenant;
const clock = new TestClock();
const engine = new SwitchableEngine(createOfflineEngine());
let upstream: { fake: Awaited<ReturnType<typeof fakeUpstreamEngine>>['fake']; engine: Engine };

beforeAll(async () => {
  pages = createServer((req, res) => {
    if (req.url === '/snacks') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(article('Sunny Snacks', PLAYFUL));
    } else if (req.url === '/report') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(article('Annual report', FORMAL));
    } else if (req.url === '/to-private') {
      res.writeHead(302, { location: 'http://10.0.0.1/internal' });
      res.end();
    } else if (req.url === '/huge') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<html><body><p>${'word '.repeat(300_000)}</p></body></html>`);
    } else if (req.url === '/hang') {
      // Never answers: the fetcher's time limit must end the wait.
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  pages.listen(0, '127.0.0.1');
  await once(pages, 'listening');
  const host = `127.0.0.1:${(pages.address() as AddressInfo).port}`;
  base = `http://${host}`;
  storageDir = await mkdtemp(join(tmpdir(), 'brand-voices-'));
  upstream = await fakeUpstreamEngine();
  database = await openTestDatabase();
  // Only the test’s own server is reachable on loopback: a redirect to any other private address is refused.
  // 2 s: long enough for every other page on a loaded 2-core machine; /hang waits for it.
  const fetcher = createGuardedFetcher({ timeoutMs: 2_000, maxBytes: 1024 * 1024, allowedPrivateHosts: [host] });
  storage = createLocalStorage(storageDir);
  const services = testServices(database.db, { engine, clock, fetcher, storage });
  queue = await openTestJobQueue(database, brandVoiceJobs(services));
  services.jobs = queue;
  h = await Harness.create({ database, engine, clock, services: { jobs: queue, storage, fetcher } });
  t = await h.tenant({ credits: 10_000 });
});
afterAll(async () => {
  await h.close();
  await queue.stop({ timeoutMs: 1_000 });
  await database.close();
  await upstream.fake.close();
  pages.closeAllConnections();
  pages.close();
  await rm(storageDir, { recursive: true, force: true });
});

/** A stored upload of the workspace, as the files flow leaves it (row + object). */
const storedFile = (workspaceId: string, name: string, type: string, bytes: Buffer) =>
  storeFile(h.db, storage, { workspaceId, name, type, content: bytes, now: clock.now() });

const body = (sources: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  label: 'House voice',
  usage_context: 'Marketing copy for the website and newsletters.',
  workspace_id: t.workspaceId,
  sources,
  ...extra,
});

async function learned(id: string, key = t.key) {
  await queue.drain();
  return (await h.get(`/brand-voices/${id}`, key)).body;
}

describe('learning a brand voice', () => {
  it('reads pages and documents, records every outcome and derives the voice from the texts', async () => {
    const before = await balanceOf(h, t.accountId);
    const pdf = await storedFile(t.workspaceId, 'playbook.pdf', 'application/pdf', pdfOf(PLAYFUL));
    const docx = await storedFile(t.workspaceId, 'tone.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', docxOf(PLAYFUL));
    const md = await storedFile(t.workspaceId, 'notes.md', 'text/markdown', Buffer.from(`# Notes\n\n${PLAYFUL.map((p) => `- **${p}**`).join('\n')}\n`));
    const created = await h.post(
      '/brand-voices',
      t.key,
      body({
        urls: [
          { url: `${base}/snacks` },
          { url: `${base}/to-private`, name: 'Intranet' },
          { url: `${base}/huge` },
          { url: `${base}/hang` },
          { url: `${base}/missing` },
        ],
        file_ids: [pdf, docx, md],
      }),
    );
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ status: 'pending', credits_charged: 100, voice_summary: null, example_phrases: null, tone: { adjectives: [] } });
    expect(created.body.sources.urls.every((u: any) => u.outcome.status === 'pending')).toBe(true);
    expect(await balanceOf(h, t.accountId)).toBe(before - 100);

    const voice = await learned(created.body.id);
    expect(voice.status).toBe('completed');
    const [snacks, intranet, huge, hang, missing] = voice.sources.urls;
    expect(snacks).toMatchObject({ name: 'Sunny Snacks', outcome: { status: 'read', error: null } });
    // Readability keeps the article, not the navigation or the footer.
    expect(snacks.outcome.characters).toBeGreaterThan(PLAYFUL.join(' ').length * 0.9);
    expect(snacks.outcome.characters).toBeLessThan(PLAYFUL.join(' ').length + 100);
    expect(intranet.outcome).toMatchObject({ status: 'failed', characters: null, error: expect.stringMatching(/private/) });
    expect(huge.outcome).toMatchObject({ status: 'failed', error: expect.stringMatching(/larger/) });
    expect(hang.outcome).toMatchObject({ status: 'failed', error: expect.stringMatching(/time limit/) });
    expect(missing.outcome).toMatchObject({ status: 'failed', error: 'The page answered HTTP 404.' });
    for (const document of voice.sources.documents) expect(document.outcome).toMatchObject({ status: 'read', error: null });
    expect(voice.sources.documents.map((d: any) => d.outcome.characters)).toEqual(expect.arrayContaining([expect.any(Number)]));

    // Measured from the texts read: playful sources give a direct, enthusiastic voice quoting them.
    expect(voice.tone.adjectives).toEqual(expect.arrayContaining(['direct', 'enthusiastic']));
    expect(voice.vocabulary.preferred_terms).toContain('crunch');
    expect(voice.voice_summary).toContain('4 sources');
    // Verbatim from the extracted text; pdf.js renders the PDF's apostrophes as typographic ones.
    const corpus = PLAYFUL.join(' ');
    for (const phrase of voice.example_phrases) expect(corpus).toContain(phrase.example.replace(/’/g, "'"));
    expect(voice.credits_charged).toBe(100);
    expect(await balanceOf(h, t.accountId)).toBe(before - 100);
  }, 120_000);

  it('gives two corpora two voices and one corpus the same voice', async () => {
    const a1 = await learned((await h.post('/brand-voices', t.key, body({ urls: [{ url: `${base}/snacks` }] }))).body.id);
    const a2 = await learned((await h.post('/brand-voices', t.key, body({ urls: [{ url: `${base}/snacks` }] }))).body.id);
    const formalFile = await storedFile(t.workspaceId, 'report.html', 'text/html', Buffer.from(article('Annual report', FORMAL)));
    const b = await learned((await h.post('/brand-voices', t.key, body({ file_ids: [formalFile] }))).body.id);
    expect({ ...a2, id: a1.id, sources: null, created_at: null, updated_at: null }).toEqual({ ...a1, sources: null, created_at: null, updated_at: null });
    expect(b.status).toBe('completed');
    expect(b.tone.adjectives).not.toEqual(a1.tone.adjectives);
    expect(b.tone.adjectives).toContain('formal');
    expect(b.vocabulary.preferred_terms).not.toContain('crunch');
    expect(b.writing_style.sentence_structure).not.toBe(a1.writing_style.sentence_structure);
    for (const phrase of b.example_phrases) expect(FORMAL.join(' ')).toContain(phrase.example);
  });

  it('fails with the reasons and refunds when no source can be read', async () => {
    const before = await balanceOf(h, t.accountId);
    const created = (await h.post('/brand-voices', t.key, body({ urls: [{ url: `${base}/to-private` }, { url: `${base}/missing` }] }))).body;
    const voice = await learned(created.id);
    expect(voice).toMatchObject({ status: 'failed', credits_charged: 0, voice_summary: null, example_phrases: null });
    expect(voice.error).toContain('None of the sources could be read');
    expect(voice.error).toContain('HTTP 404');
    expect(await balanceOf(h, before === 0 ? t.accountId : t.accountId)).toBe(before);
  });

  it('fails and refunds a voice not learned within 10 minutes', async () => {
    const before = await balanceOf(h, t.accountId);
    const created = (await h.post('/brand-voices', t.key, body({ urls: [{ url: `${base}/snacks` }] }))).body;
    clock.advance(11 * 60 * 1000);
    const voice = await learned(created.id);
    expect(voice).toMatchObject({ status: 'failed', credits_charged: 0, error: 'The voice was not learned within 10 minutes.' });
    expect(await balanceOf(h, t.accountId)).toBe(before);
  });

  it('learns on the upstream engine through the structured-output feature', async () => {
    const reply = {
      voice_summary: 'Cheerful and direct, built on crunch.',
      tone: { adjectives: ['cheerful'], dos: ['Talk to the reader.'], donts: ['Lecture.'] },
      writing_style: { sentence_structure: 'Short, punchy lines.', jargon_usage: 'None.' },
      vocabulary: { preferred_terms: ['crunch'], avoid_terms: ['premium'] },
      example_phrases: [{ use_case: 'Call to action', example: 'Try the spicy mango crunch today!' }],
    };
    upstream.fake.enqueue({ content: JSON.stringify(reply) });
    const created = (await h.post('/brand-voices', t.key, body({ urls: [{ url: `${base}/snacks` }] }))).body;
    const voice = await engine.using(upstream.engine, () => learned(created.id));
    expect(voice).toMatchObject({
      status: 'completed',
      voice_summary: reply.voice_summary,
      tone: reply.tone,
      vocabulary: reply.vocabulary,
      example_phrases: reply.example_phrases,
    });
    expect(JSON.stringify(upstream.fake.requests.at(-1)!.body)).toContain('spicy mango crunch');
  });
});

describe('brand voice rules', () => {
  it('refuses documents it cannot learn from, naming the file id', async () => {
    const doc = await storedFile(t.workspaceId, 'old.doc', 'application/msword', Buffer.from('legacy'));
    const image = await storedFile(t.workspaceId, 'logo.png', 'image/png', Buffer.from('png'));
    const other = await h.tenant();
    const foreign = await storedFile(other.workspaceId, 'theirs.txt', 'text/plain', Buffer.from('text'));
    const before = await balanceOf(h, t.accountId);
    const legacy = await h.post('/brand-voices', t.key, body({ urls: [{ url: `${base}/snacks` }], file_ids: [doc] }));
    expect(errorOf(legacy)).toMatchObject({ code: 'invalid_parameter', param: 'sources.file_ids.0' });
    expect(legacy.body.error.message).toContain('.docx');
    expect(errorOf(await h.post('/brand-voices', t.key, body({ file_ids: [foreign, image] })))).toMatchObject({
      code: 'invalid_parameter',
      param: 'sources.file_ids.0',
    });
    const txt = await storedFile(t.workspaceId, 'ok.txt', 'text/plain', Buffer.from(PLAYFUL.join(' ')));
    expect(errorOf(await h.post('/brand-voices', t.key, body({ file_ids: [txt, image] })))).toMatchObject({
      code: 'invalid_parameter',
      param: 'sources.file_ids.1',
    });
    expect(await balanceOf(h, t.accountId)).toBe(before);
  });

  it('is a 402 without 100 credits, and nothing is stored', async () => {
    const poor = await h.tenant({ credits: 99 });
    const res = await h.post('/brand-voices', poor.key, body({ urls: [{ url: `${base}/snacks` }] }, { workspace_id: poor.workspaceId }));
    expect(errorOf(res)).toMatchObject({ code: 'insufficient_credits' });
    expect((await h.get('/brand-voices', poor.key)).body.data).toEqual([]);
  });

  it('edits only final voices, replacing whole objects', async () => {
    const created = (await h.post('/brand-voices', t.key, body({ urls: [{ url: `${base}/snacks` }] }))).body;
    expect(errorOf(await h.patch(`/brand-voices/${created.id}`, t.key, { label: 'Too early' }))).toMatchObject({ code: 'invalid_state' });
    await learned(created.id);
    const edited = await h.patch(`/brand-voices/${created.id}`, t.key, {
      label: 'Edited',
      vocabulary: { preferred_terms: ['crunch'], avoid_terms: ['cheap'] },
      example_phrases: null,
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({
      label: 'Edited',
      status: 'completed',
      vocabulary: { preferred_terms: ['crunch'], avoid_terms: ['cheap'] },
      example_phrases: null,
    });
    expect((await h.get(`/brand-voices/${created.id}`, t.key)).body.label).toBe('Edited');
  });

  it('refunds a voice deleted before it completes; the job then does nothing', async () => {
    const before = await balanceOf(h, t.accountId);
    const created = (await h.post('/brand-voices', t.key, body({ urls: [{ url: `${base}/snacks` }] }))).body;
    expect(await balanceOf(h, t.accountId)).toBe(before - 100);
    expect((await h.delete(`/brand-voices/${created.id}`, t.key)).body).toEqual({ id: created.id, object: 'brand_voice', deleted: true });
    expect(await balanceOf(h, t.accountId)).toBe(before);
    await queue.drain();
    expect((await h.get(`/brand-voices/${created.id}`, t.key)).status).toBe(404);
    // A completed voice keeps its charge when deleted.
    const done = (await h.post('/brand-voices', t.key, body({ urls: [{ url: `${base}/snacks` }] }))).body;
    await learned(done.id);
    await h.delete(`/brand-voices/${done.id}`, t.key);
    expect(await balanceOf(h, t.accountId)).toBe(before - 100);
  });

  it('lists newest first with status, search and workspace filters', async () => {
    const tenant = await h.tenant({ credits: 1_000 });
    const mk = async (label: string) =>
      (await h.post('/brand-voices', tenant.key, body({ urls: [{ url: `${base}/snacks` }] }, { label, workspace_id: tenant.workspaceId }))).body.id;
    const first = await mk('Alpha voice');
    await queue.drain();
    clock.advance(1000);
    const second = await mk('Beta voice');
    const all = (await h.get('/brand-voices?limit=1', tenant.key)).body;
    expect(all.data.map((v: any) => v.id)).toEqual([second]);
    expect((await h.get(`/brand-voices?cursor=${all.next_cursor}`, tenant.key)).body.data.map((v: any) => v.id)).toEqual([first]);
    expect((await h.get('/brand-voices?status=pending', tenant.key)).body.data.map((v: any) => v.id)).toEqual([second]);
    expect((await h.get('/brand-voices?search=ALPHA', tenant.key)).body.data.map((v: any) => v.id)).toEqual([first]);
    expect((await h.get(`/brand-voices?workspace_id=${tenant.workspaceId}`, tenant.key)).body.data).toHaveLength(2);
    expect(errorOf(await h.get(`/brand-voices?workspace_id=${t.workspaceId}`, tenant.key))).toMatchObject({
      code: 'resource_not_found',
      param: 'workspace_id',
    });
    await queue.drain();
  });

  it('follows the workspace roles', async () => {
    const owner = await h.tenant({ credits: 1_000 });
    const team = (await h.post('/workspaces', owner.key, { name: 'Brand team' })).body.id;
    const roles = ['viewer', 'analyst', 'creative_specialist', 'editor'] as const;
    const members = Object.fromEntries(await Promise.all(roles.map(async (role) => [role, await h.tenant()] as const)));
    for (const role of roles) await h.post(`/workspaces/${team}/members`, owner.key, { email: members[role]!.email, role });
    const create = (key: string) => h.post('/brand-voices', key, body({ urls: [{ url: `${base}/snacks` }] }, { workspace_id: team }));
    expect(errorOf(await create(members.viewer!.key))).toMatchObject({ code: 'permission_denied' });
    expect(errorOf(await create(members.analyst!.key))).toMatchObject({ code: 'permission_denied' });
    const voice = (await create(members.creative_specialist!.key)).body;
    expect(voice.workspace_id).toBe(team);
    await queue.drain();
    expect((await h.get(`/brand-voices/${voice.id}`, members.viewer!.key)).status).toBe(200);
    expect(errorOf(await h.patch(`/brand-voices/${voice.id}`, members.analyst!.key, { label: 'No' }))).toMatchObject({ code: 'permission_denied' });
    expect((await h.patch(`/brand-voices/${voice.id}`, members.creative_specialist!.key, { label: 'Yes' })).status).toBe(200);
    expect(errorOf(await h.delete(`/brand-voices/${voice.id}`, members.creative_specialist!.key))).toMatchObject({ code: 'permission_denied' });
    expect((await h.delete(`/brand-voices/${voice.id}`, members.editor!.key)).status).toBe(200);
  });
});
