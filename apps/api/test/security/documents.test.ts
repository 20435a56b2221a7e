import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocumentBounded, PARSE_LIMITS } from '../../src/ai/document-parse.js';
import type { DatabaseHandle } from '../../src/db/client.js';
import type { JobRuntime } from '../../src/jobs/queue.js';
import { brandVoiceJobs } from '../../src/resources/brand-voices/job.js';
import { imageThumbnail } from '../../src/resources/files/thumbnails.js';
import { createLocalStorage } from '../../src/storage/local.js';
import { balanceOf } from '../support/ai.js';
import { openTestDatabase } from '../support/database.js';
import { docxOf, pdfOf } from '../support/documents.js';
import { Harness, TestClock, type Tenant } from '../support/harness.js';
import { openTestJobQueue } from '../support/jobs.js';
import { watchMemoryGrowth } from '../support/memory.js';
import { testServices } from '../support/services.js';
import { storeFile } from '../support/uploads.js';
import { docxBomb, pdfStreamBomb, pngPixelBomb, zipOf } from './bombs.js';

// SECURITY.md, Documents: bombs made in the test (about 1 MB each) that inflate to a gibibyte. Each ends
// its brand voice `failed` with the reason and the 100 credits back, while /healthz keeps answering
// (p99 under 50 ms over at least 100 answers, none over 250 ms) and the server's RSS grows by less than
// the stated bound; the PDF bomb is stopped by the child's memory watchdog, the zip bombs by the yauzl
// check before any parser inflates them.

/**
 * The bound SECURITY.md states for the server's own RSS during a bomb: the parse runs in a child process
 * (itself killed past PARSE_LIMITS.rssBytes), so the server only holds the document's bytes once.
 */
const RSS_GROWTH_BOUND = 64 * 1024 * 1024;
const HEALTHZ_P99_MS = 50;
/**
 * No /healthz answer may wait longer: a parse on the event loop blocks it once, for as long as the parse
 * (hundreds of ms to seconds for these bombs), which a p99 over many answers would not see. The job's own
 * database work on the in-process PGlite holds the loop 20–50 ms at times (its queries run in this thread).
 */
const HEALTHZ_MAX_MS = 250;
/** Answers a run takes at least (it samples on after the work): with fewer, a p99 is the single slowest. */
const HEALTHZ_MIN_SAMPLES = 100;
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

let database: DatabaseHandle;
let h: Harness;
let queue: JobRuntime;
let storageDir: string;
let storage: ReturnType<typeof createLocalStorage>;
let t: Tenant;
const clock = new TestClock();

beforeAll(async () => {
  storageDir = await mkdtemp(join(tmpdir(), 'security-documents-'));
  database = await openTestDatabase();
  storage = createLocalStorage(storageDir);
  const services = testServices(database.db, { clock, storage });
  queue = await openTestJobQueue(database, brandVoiceJobs(services));
  services.jobs = queue;
  h = await Harness.create({ database, clock, services: { jobs: queue, storage } });
  t = await h.tenant({ credits: 10_000 });
});
afterAll(async () => {
  await h?.close();
  await queue?.stop({ timeoutMs: 1_000 });
  await database?.close();
  await rm(storageDir, { recursive: true, force: true });
});

const storedFile = (name: string, type: string, bytes: Buffer) =>
  storeFile(h.db, storage, { workspaceId: t.workspaceId, name, type, content: bytes, now: clock.now() });

/** The size of the in-process PGlite's WebAssembly memory (0 on PostgreSQL). */
const pgliteMemoryBytes = (): number => {
  if (database.connection.driver !== 'pglite') return 0;
  const mod = (database.connection.client as unknown as { mod?: { HEAPU8?: Uint8Array } }).mod;
  return mod?.HEAPU8?.byteLength ?? 0;
};

/**
 * The server's memory outside V8's JS heap: where a document's bytes (Buffers) or a native parse would sit. The
 * JS heap grows with the garbage of the 2 ms /healthz loop until V8 collects it; PGlite's WebAssembly memory
 * grows when the job's first charge and refund run its functions, so it is left out (together 75–78 MiB in
 * CI, with no document in this process). A reading over the bound is confirmed after a full collection
 * (support/memory.ts). A parse in this process would also show in the /healthz p99.
 */
const rssOutsideHeap = () => {
  const { rss, heapTotal } = process.memoryUsage();
  return rss - heapTotal;
};

/** Runs `work` while /healthz is asked every 2 ms and the memory sampled; the figures of the run. */
async function underLoad<T>(
  work: () => Promise<T>,
): Promise<{ result: T; healthzP99Ms: number; healthzMaxMs: number; healthzCount: number; rssGrowth: number }> {
  const memory = watchMemoryGrowth(RSS_GROWTH_BOUND, rssOutsideHeap, pgliteMemoryBytes);
  let running = true;
  const latencies: number[] = [];
  const sampler = (async () => {
    while (running || latencies.length < HEALTHZ_MIN_SAMPLES) {
      const started = performance.now();
      const response = await h.app.inject({ method: 'GET', url: '/healthz' });
      latencies.push(performance.now() - started);
      expect(response.statusCode).toBe(200);
      memory.sample();
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  })();
  let result: T;
  let rssGrowth: number;
  try {
    result = await work();
  } finally {
    running = false;
    await sampler;
    rssGrowth = memory.stop();
  }
  return { result, ...figures(rssGrowth) };
  function figures(rssGrowth: number) {
    const sorted = [...latencies].sort((a, b) => a - b);
    return {
      // Nearest rank: of 100 answers the 99th slowest.
      healthzP99Ms: sorted[Math.max(0, Math.ceil(sorted.length * 0.99) - 1)] ?? 0,
      healthzMaxMs: sorted.at(-1) ?? 0,
      healthzCount: sorted.length,
      rssGrowth,
    };
  }
}

const voiceBody = (fileId: string) => ({
  label: 'Bomb',
  workspace_id: t.workspaceId,
  usage_context: 'Marketing copy for the website and newsletters.',
  sources: { file_ids: [fileId] },
});

describe('document bombs as brand-voice sources', () => {
  const cases: [string, string, string, () => Buffer, RegExp][] = [
    [
      'a PDF whose one content stream inflates to 1 GiB',
      'bomb.pdf',
      'application/pdf',
      () => pdfStreamBomb(1024),
      /PDF document needed more than \d+ MiB|PDF document took longer/,
    ],
    [
      'a DOCX whose directory lies (says 10 kB, inflates to 1 GiB)',
      'lie.docx',
      DOCX,
      () => docxBomb(1024, 10_000),
      /inflates to more than its directory declares/,
    ],
    ['a DOCX that honestly declares 1 GiB', 'honest.docx', DOCX, () => docxBomb(1024, 1024 * 1024 * 1024 - 1), /inflates to more than 64 MiB/],
  ];
  for (const [name, fileName, type, make, reason] of cases) {
    it(`fails the voice with the reason and a refund, /healthz p99 < ${HEALTHZ_P99_MS} ms and none over ${HEALTHZ_MAX_MS} ms, server RSS growth < 64 MiB: ${name}`, async () => {
      const fileId = await storedFile(fileName, type, make());
      const before = await balanceOf(h, t.accountId);
      const created = await h.post('/brand-voices', t.key, voiceBody(fileId));
      expect(created.status).toBe(200);
      expect(await balanceOf(h, t.accountId)).toBe(before - 100);
      // The same /healthz loop with no document first: what the loop and this process's first-time growth cost
      // on their own is taken before the baseline of the measured run.
      await underLoad(() => new Promise((resolve) => setTimeout(resolve, 2_000)));
      const run = await underLoad(() => queue.drain());
      const voice = (await h.get(`/brand-voices/${created.body.id}`, t.key)).body;
      expect(voice).toMatchObject({ status: 'failed', credits_charged: 0 });
      expect(voice.error).toMatch(/None of the sources could be read/);
      expect(voice.sources.documents[0].outcome).toMatchObject({ status: 'failed', characters: null });
      expect(voice.sources.documents[0].outcome.error).toMatch(reason);
      expect(await balanceOf(h, t.accountId)).toBe(before);
      console.info(
        `${name}: /healthz p99 ${run.healthzP99Ms.toFixed(1)} ms, slowest ${run.healthzMaxMs.toFixed(1)} ms over ${run.healthzCount} requests, RSS growth outside the JS heap ${(run.rssGrowth / 1024 / 1024).toFixed(0)} MiB`,
      );
      expect(run.healthzCount).toBeGreaterThanOrEqual(HEALTHZ_MIN_SAMPLES);
      expect(run.healthzP99Ms).toBeLessThan(HEALTHZ_P99_MS);
      expect(run.healthzMaxMs).toBeLessThan(HEALTHZ_MAX_MS);
      expect(run.rssGrowth).toBeLessThan(RSS_GROWTH_BOUND);
    }, 60_000);
  }

  it('still reads real PDF and DOCX documents in the child process', async () => {
    const lines = [
      'We make crunchy chickpea puffs loaded with flavour, and you will love every single bite of them.',
      'Grab a bag and share it with your friends today.',
    ];
    const pdf = await parseDocumentBounded('pdf', pdfOf(lines), 200_000);
    expect(pdf.ok ? pdf.text : pdf.error).toMatch(/crunchy chickpea puffs/);
    const docx = await parseDocumentBounded('docx', docxOf(lines), 200_000);
    expect(docx.ok ? docx.text : docx.error).toMatch(/Grab a bag/);
  });

  it('refuses a zip with too many entries, and stops a parse that runs past its time', async () => {
    const many = zipOf(Array.from({ length: 2_001 }, (_, i) => ({ name: `p${i}.xml`, data: Buffer.alloc(0), method: 0, declaredSize: 0 })));
    expect(await parseDocumentBounded('docx', many, 1000)).toEqual({ ok: false, error: 'The DOCX has 2001 parts; at most 2000 are read.' });
    // A cancelled parse ends at once, the worker with it.
    const controller = new AbortController();
    const pending = parseDocumentBounded('pdf', pdfStreamBomb(256), 1000, controller.signal);
    setTimeout(() => controller.abort(), 50);
    expect(await pending).toEqual({ ok: false, error: 'Reading the PDF document was cancelled.' });
    expect(PARSE_LIMITS.timeMs).toBeLessThanOrEqual(20_000);
  });

  it('refuses an image pixel bomb before decoding it (sharp’s pixel limit)', async () => {
    const started = performance.now();
    await expect(imageThumbnail(Readable.from([pngPixelBomb(60_000, 60_000)]))).rejects.toThrow(/pixel limit/i);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
