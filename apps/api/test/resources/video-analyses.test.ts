import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOfflineEngine } from '@persona-api/engine';
import { eq } from 'drizzle-orm';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import { accounts } from '../../src/db/schema/tenancy.js';
import type { JobRuntime } from '../../src/jobs/queue.js';
import { videoAnalysisJobs } from '../../src/resources/video-analyses/jobs.js';
import type { Services } from '../../src/services.js';
import { createLocalStorage } from '../../src/storage/local.js';
import type { ObjectStorage } from '../../src/storage/types.js';
import { openTestDatabase } from '../support/database.js';
import { basePersonas } from '@persona-api/engine';
import { imagesOf } from '@persona-api/engine/testing';
import { events, fakeUpstreamEngine, SwitchableEngine, typesOf } from '../support/ai.js';
import { errorOf, Harness, TestClock, type Tenant } from '../support/harness.js';
import { openTestJobQueue } from '../support/jobs.js';
import { testServices } from '../support/services.js';
import { fileJobs } from '../../src/resources/files/jobs.js';
import { uploadAndRecord } from './files/flow.js';
import { fakeSpeechToText } from '../support/speech.js';
import { openAiTranscriber } from '../../src/resources/meetings/transcriber.js';
import { makeVideo, storeUpload } from '../support/videos.js';

let dir: string;
let database: DatabaseHandle;
let storage: ObjectStorage;
let queue: JobRuntime;
let services: Services;
let h: Harness;
const clock = new TestClock();
// The server's engine: offline, or the OpenAI-compatible engine on a fake upstream while a test says so.
const engine = new SwitchableEngine(createOfflineEngine());
const videos: Record<string, string> = {};
const PUBLIC_BASE = 'https://api.example.test/api/v1';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'video-analyses-test-'));
  database = await openTestDatabase();
  storage = createLocalStorage(join(dir, 'storage'));
  // An https public base, as production has: the service's own upload links pass `video_url`'s https rule.
  const files = await Harness.fileSettings(database, PUBLIC_BASE);
  services = testServices(database.db, { engine, storage, clock, files });
  queue = await openTestJobQueue(database, [
    ...videoAnalysisJobs(services),
    ...fileJobs({ db: database.db, storage, now: clock.now, ffmpegPath: files.ffmpegPath }),
  ]);
  services.jobs = queue;
  h = await Harness.create({ database, clock, engine, logger: pino({ level: 'error' }), services: { storage, jobs: queue, files } });
  // 15 s in three 5 s segments: a moving pattern, the brand on navy, other text on green; a tone for 10 s, then silence.
  videos.brand = await makeVideo(
    join(dir, 'stride-spot.mp4'),
    [
      { seconds: 5, pattern: true },
      { seconds: 5, color: 'navy', text: 'STRIDE ATHLETICS' },
      { seconds: 5, color: 'darkgreen', text: 'RUN FURTHER' },
    ],
    { toneSeconds: 10 },
  );
  // Tiny and at 1 fps: only its length matters.
  videos.long = await makeVideo(join(dir, 'too-long.mp4'), [{ seconds: 3601 }], null, { size: '32x32', rate: 1 });
  videos.corrupt = join(dir, 'corrupt.mp4');
  await writeFile(videos.corrupt, Buffer.from('this is not a video at all, just bytes'.repeat(100)));
  videos.audioOnly = join(dir, 'audio-only.m4a');
  const { execFileSync } = await import('node:child_process');
  execFileSync('ffmpeg', ['-hide_banner', '-v', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=3', '-c:a', 'aac', videos.audioOnly]);
}, 120_000);

afterAll(async () => {
  await queue?.stop();
  await h?.close();
  await database?.close();
  await rm(dir, { recursive: true, force: true });
});

const balanceOf = async (t: Tenant) =>
  (await database.db.select({ balance: accounts.creditBalance }).from(accounts).where(eq(accounts.id, t.accountId)))[0]!.balance;

async function analyse(t: Tenant, video: string, body: Record<string, unknown> = {}) {
  const fileId = await storeUpload(database.db, storage, t.workspaceId, video);
  const created = await h.post('/video-analyses', t.key, { file_id: fileId, ...body });
  expect(created.status).toBe(200);
  await queue.drain();
  return { created: created.body, read: (await h.get(`/video-analyses/${created.body.id}`, t.key)).body };
}

describe('video analyses', () => {
  it('cuts an uploaded video into chunks, measures them and finds the brand on screen where it is drawn', async () => {
    const t = await h.tenant({ credits: 1000 });
    const { created, read } = await analyse(t, videos.brand!, {
      brand: 'Stride Athletics',
      product: 'Stride Pro',
      chunk_duration: 5,
      frames_per_chunk: 2,
      primary_intent: 'Make runners run further',
      goal: 'Sign-ups',
    });
    expect(created).toMatchObject({ status: 'pending', progress: 0, video_url: null, title: 'stride-spot.mp4', credits_used: 100, result: null });
    expect(await balanceOf(t)).toBe(900);
    expect(read).toMatchObject({ status: 'completed', progress: 100, credits_used: 100, error: null });
    expect(read.duration_seconds).toBeCloseTo(15, 0);
    const result = read.result;
    expect(result.chunks.map((c: { start_seconds: number; end_seconds: number }) => [c.start_seconds, c.end_seconds])).toEqual([
      [0, 5],
      [5, 10],
      [10, 15],
    ]);
    expect(result.frames_analyzed).toBe(6);
    expect(result.chunks.map((c: { brand_visible: boolean }) => c.brand_visible)).toEqual([false, true, false]);
    expect(result.chunks[1].transcript).toMatch(/STRIDE ATHLETICS/);
    expect(result.chunks[2].transcript).toMatch(/RUN FURTHER/);
    expect(result.brand_presence).toEqual({ first_appearance_seconds: 5, screen_time_seconds: 5, logo_detected: true, spoken_mentions: 0 });
    // The cuts between segments are measured where they were made.
    expect(result.chunks[1].description).toMatch(/1 cut at 5s/);
    expect(result.chunks[2].description).toMatch(/1 cut at 10s/);
    // The tone stops at 10 s: the last chunk is silent, the first is not.
    expect(result.chunks[2].description).toMatch(/5s of silence/);
    expect(result.chunks[0].description).toMatch(/0s of silence/);
    // A moving pattern has motion; a still colour none.
    expect(result.chunks[0].description).not.toMatch(/still motion/);
    expect(result.chunks[1].description).toMatch(/still motion/);
    expect(result.intent_alignment[0]).toMatchObject({ rank: 'primary' });
    expect(result.intent_alignment[0].rationale).toMatch(/"further"/);
    expect(result.summary).toMatch(/Speech was not transcribed/);
    // Every frame kept in storage, two per chunk, and a thumbnail.
    for (const chunk of ['000', '001', '002']) {
      for (const frame of ['00', '01'])
        expect(await storage.head(`video-analyses/${read.id}/frames/${chunk}_${frame}.jpg`)).toMatchObject({ contentType: 'image/jpeg' });
      expect(await storage.head(`video-analyses/${read.id}/frames/${chunk}_02.jpg`)).toBeNull();
    }
    expect(await storage.head(`video-analyses/${read.id}/thumbnail.jpg`)).not.toBeNull();

    // Each chunk's frame_url is a signed link, without an API key, to a real JPEG shown inline: the middle frame (of two, the second).
    for (const chunk of result.chunks as { index: number; frame_url: string }[]) {
      const link = new URL(chunk.frame_url);
      expect(`${link.origin}${link.pathname}`).toBe(`${PUBLIC_BASE}/video-analyses/${read.id}/frames/${chunk.index}`);
      const frame = await h.get(`${link.pathname.slice('/api/v1'.length)}${link.search}`);
      expect(frame.status).toBe(200);
      expect(frame.headers['content-type']).toBe('image/jpeg');
      expect(frame.headers['content-disposition']).toBe('inline');
      expect(frame.headers['x-content-type-options']).toBe('nosniff');
      expect([...frame.bytes.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
      const stored = await storage.get(`video-analyses/${read.id}/frames/${String(chunk.index).padStart(3, '0')}_01.jpg`);
      const chunks: Buffer[] = [];
      for await (const part of stored!.body) chunks.push(part as Buffer);
      expect(frame.bytes.equals(Buffer.concat(chunks))).toBe(true);
    }
    const first = new URL(result.chunks[0].frame_url);
    const path = `${first.pathname.slice('/api/v1'.length)}`;
    const expires = Number(first.searchParams.get('expires'));
    const signature = first.searchParams.get('signature')!;
    // Forged: another chunk, another expiry, another analysis, or a made-up signature are each refused.
    const forged = [
      `${path.replace(/\/0$/, '/1')}?expires=${expires}&signature=${signature}`,
      `${path}?expires=${expires + 3600}&signature=${signature}`,
      `${path.replace(read.id, `${read.id}x`)}?expires=${expires}&signature=${signature}`,
      `${path}?expires=${expires}&signature=${'a'.repeat(64)}`,
    ];
    for (const link of forged) {
      const refused = await h.get(link);
      expect(refused.status).toBe(401);
      expect(errorOf(refused)).toMatchObject({ type: 'authentication_error', code: 'invalid_upload_signature' });
    }
    // Cached by the browser until the link expires, which is at least an hour away and on a five-minute mark.
    const nowSeconds = Math.floor(clock.now().getTime() / 1000);
    expect(expires % 300).toBe(0);
    expect(expires - nowSeconds).toBeGreaterThanOrEqual(3600);
    expect(expires - nowSeconds).toBeLessThan(3900);
    expect((await h.get(`${path}${first.search}`)).headers['cache-control']).toBe(`private, max-age=${expires - nowSeconds}, immutable`);
    // Read again within the same five minutes, the analysis gives the same links.
    expect((await h.get(`/video-analyses/${read.id}`, t.key)).body.result.chunks[0].frame_url).toBe(result.chunks[0].frame_url);
    // Expired: a second after its expiry the same link is refused; a fresh read signs a working one.
    clock.advance((expires + 1) * 1000 - clock.now().getTime());
    expect((await h.get(`${path}${first.search}`)).status).toBe(401);
    const fresh = new URL((await h.get(`/video-analyses/${read.id}`, t.key)).body.result.chunks[0].frame_url);
    expect((await h.get(`${fresh.pathname.slice('/api/v1'.length)}${fresh.search}`)).status).toBe(200);

    // Deleting a completed analysis refunds nothing and removes its frames and thumbnail; the upload stays.
    const deleted = await h.delete(`/video-analyses/${read.id}`, t.key);
    expect(deleted.body).toEqual({ id: read.id, object: 'video_analysis', deleted: true });
    expect(await balanceOf(t)).toBe(900);
    expect(await storage.head(`video-analyses/${read.id}/frames/000_00.jpg`)).toBeNull();
    expect(await storage.head(`video-analyses/${read.id}/thumbnail.jpg`)).toBeNull();
    expect((await h.get(`/video-analyses/${read.id}`, t.key)).status).toBe(404);
    expect((await h.get(`/files/${read.file_id}`, t.key)).status).toBe(200);
  }, 120_000);

  it('finds the brand in noisy OCR of real frames: a box edge glued to it, a split word (issue 24)', async () => {
    const t = await h.tenant({ credits: 1000 });
    const big = (text: string) => `drawtext=text='${text}':fontsize=90:fontcolor=white:x=(w-tw)/2:y=(h-th)/2`;
    // A white bar just left of the name: tesseract reads it as a letter stuck to the word ("JORBITAL").
    const video = await makeVideo(
      join(dir, 'orbital-spot.mp4'),
      [
        { seconds: 5, color: 'black', draw: `${big('ORBITAL')},drawbox=x=90:y=130:w=30:h=100:color=white:t=fill` },
        { seconds: 5, color: 'black', draw: big('ORB ITAL') },
        { seconds: 5, pattern: true },
      ],
      null,
    );
    const { read } = await analyse(t, video, { brand: 'Orbital', chunk_duration: 5, frames_per_chunk: 1 });
    expect(read.status).toBe('completed');
    const result = read.result;
    // What the OCR really read: not the clean word a whole-word match needs.
    expect(result.chunks[0].transcript).toMatch(/[A-Z|]\s?ORBITAL/);
    expect(result.chunks[0].transcript).not.toMatch(/(^|\s)ORBITAL(\s|$)/);
    expect(result.chunks[1].transcript).toMatch(/ORB ITAL/);
    expect(result.chunks.map((c: { brand_visible: boolean }) => c.brand_visible)).toEqual([true, true, false]);
    expect(result.brand_presence).toMatchObject({ first_appearance_seconds: 0, screen_time_seconds: 10 });
    expect(JSON.stringify(result.recommendations)).not.toMatch(/Show "Orbital" on screen/);
  }, 120_000);

  it('deletes an analysis before it completes with a refund; only content-deleting roles may delete', async () => {
    const owner = await h.tenant({ credits: 1000 });
    const analyst = await h.tenant();
    const editor = await h.tenant();
    await h.post(`/workspaces/${owner.workspaceId}/members`, owner.key, { email: analyst.email, role: 'analyst' });
    await h.post(`/workspaces/${owner.workspaceId}/members`, owner.key, { email: editor.email, role: 'editor' });
    const pending = (await h.post('/video-analyses', owner.key, { video_url: 'https://videos.example/a.mp4' })).body;
    expect(await balanceOf(owner)).toBe(900);
    // An analyst may spend credits on an analysis but not delete one.
    expect(errorOf(await h.delete(`/video-analyses/${pending.id}`, analyst.key))).toMatchObject({ code: 'permission_denied' });
    expect((await h.delete(`/video-analyses/${pending.id}`, editor.key)).body).toMatchObject({ id: pending.id, deleted: true });
    expect(await balanceOf(owner)).toBe(1000);
    // The queued job finds no row and does nothing; a second delete is a 404.
    await queue.drain();
    expect(await balanceOf(owner)).toBe(1000);
    expect((await h.delete(`/video-analyses/${pending.id}`, owner.key)).status).toBe(404);
    // A failed analysis was refunded already: deleting it gives nothing more.
    const failed = await analyse(owner, videos.corrupt!);
    expect(failed.read.status).toBe('failed');
    expect(await balanceOf(owner)).toBe(1000);
    await h.delete(`/video-analyses/${failed.read.id}`, owner.key);
    expect(await balanceOf(owner)).toBe(1000);
  }, 60_000);

  it('fails a corrupt file, a video over 60 minutes and a file without a video stream, refunding each', async () => {
    const t = await h.tenant({ credits: 1000 });
    const corrupt = await analyse(t, videos.corrupt!);
    expect(corrupt.read).toMatchObject({ status: 'failed', credits_used: 0, result: null });
    expect(corrupt.read.error).toMatch(/not a readable video/);
    const long = await analyse(t, videos.long!);
    expect(long.read).toMatchObject({ status: 'failed', credits_used: 0 });
    expect(long.read.error).toMatch(/runs 3601 s; at most 3600 s/);
    const audio = await analyse(t, videos.audioOnly!);
    expect(audio.read.error).toBe('The file has no video stream.');
    expect(await balanceOf(t)).toBe(1000);
    const failed = await h.get('/video-analyses?status=failed', t.key);
    expect(failed.body.data).toHaveLength(3);
  }, 120_000);

  it('fails and refunds an analysis that passes its processing deadline', async () => {
    const t = await h.tenant({ credits: 1000 });
    const fileId = await storeUpload(database.db, storage, t.workspaceId, videos.brand!);
    const created = await h.post('/video-analyses', t.key, { file_id: fileId });
    const [job] = videoAnalysisJobs(services, { processingLimitMs: 1 });
    await job!.run({ id: created.body.id }, { jobId: 'deadline', attempt: 0, signal: new AbortController().signal, log: pino({ level: 'silent' }) });
    const read = (await h.get(`/video-analyses/${created.body.id}`, t.key)).body;
    expect(read).toMatchObject({ status: 'failed', credits_used: 0 });
    expect(read.error).toMatch(/longer than the limit/);
    expect(await balanceOf(t)).toBe(1000);
    // The queued job finds the row final and leaves it.
    await queue.drain();
    expect((await h.get(`/video-analyses/${created.body.id}`, t.key)).body.error).toBe(read.error);
  }, 60_000);

  it('needs exactly one of video_url and file_id, and a file of the workspace', async () => {
    const t = await h.tenant();
    expect(errorOf(await h.post('/video-analyses', t.key, {}))).toMatchObject({ code: 'missing_parameter', param: 'video_url' });
    const fileId = await storeUpload(database.db, storage, t.workspaceId, videos.corrupt!);
    expect(errorOf(await h.post('/video-analyses', t.key, { file_id: fileId, video_url: 'https://videos.example/a.mp4' }))).toMatchObject({
      code: 'parameter_conflict',
      param: 'file_id',
    });
    expect(errorOf(await h.post('/video-analyses', t.key, { file_id: 'file_nope' }))).toMatchObject({ code: 'resource_not_found', param: 'file_id' });
    expect(errorOf(await h.post('/video-analyses', t.key, { video_url: 'http://videos.example/a.mp4' }))).toMatchObject({ code: 'invalid_parameter' });
  });

  it('charges 100 or answers 402, and refuses members who may not spend credits', async () => {
    const poor = await h.tenant({ credits: 99 });
    const refused = await h.post('/video-analyses', poor.key, { video_url: 'https://videos.example/a.mp4' });
    expect(refused.status).toBe(402);
    expect(await balanceOf(poor)).toBe(99);
    const owner = await h.tenant();
    const viewer = await h.tenant();
    await h.post(`/workspaces/${owner.workspaceId}/members`, owner.key, { email: viewer.email, role: 'viewer' });
    const denied = await h.post('/video-analyses', viewer.key, { video_url: 'https://videos.example/a.mp4', workspace_id: owner.workspaceId });
    expect(errorOf(denied)).toMatchObject({ code: 'permission_denied' });
  });

  it('reads a video named by its own upload link (the files flow) from storage, never over the network; only in its workspace', async () => {
    const t = await h.tenant({ credits: 1000 });
    const { file } = await uploadAndRecord(h, t, await readFile(videos.brand!), 'video/mp4', { file_name: 'own-link.mp4' });
    expect(file.url.startsWith(`${PUBLIC_BASE}/uploads/`)).toBe(true);
    // Another workspace cannot name it.
    const other = await h.tenant({ credits: 1000 });
    expect(errorOf(await h.post('/video-analyses', other.key, { video_url: file.url }))).toMatchObject({ code: 'resource_not_found', param: 'video_url' });
    expect(await balanceOf(other)).toBe(1000);
    const created = await h.post('/video-analyses', t.key, { video_url: file.url, brand: 'Stride Athletics', chunk_duration: 5, frames_per_chunk: 1 });
    expect(created.body).toMatchObject({ video_url: file.url, file_id: null, title: 'own-link.mp4' });
    await queue.drain();
    // api.example.test does not resolve: a fetch over the network would have failed the analysis.
    const read = (await h.get(`/video-analyses/${created.body.id}`, t.key)).body;
    expect(read).toMatchObject({ status: 'completed', error: null });
    expect(read.result.chunks.map((c: { brand_visible: boolean }) => c.brand_visible)).toEqual([false, true, false]);
  }, 120_000);

  it('fails a URL the guarded fetcher refuses, with the reason, and refunds', async () => {
    const t = await h.tenant({ credits: 1000 });
    // A name that resolves to a private address: the guarded fetcher refuses it.
    const created = await h.post('/video-analyses', t.key, { video_url: 'https://localhost/spot.mp4', title: 'Local' });
    expect(created.body).toMatchObject({ video_url: 'https://localhost/spot.mp4', file_id: null, title: 'Local' });
    await queue.drain();
    const read = (await h.get(`/video-analyses/${created.body.id}`, t.key)).body;
    expect(read).toMatchObject({ status: 'failed', credits_used: 0 });
    expect(read.error).toMatch(/could not be fetched/);
    expect(await balanceOf(t)).toBe(1000);
  });

  it('lists newest first with status, search and workspace filters, without result', async () => {
    const t = await h.tenant();
    const first = await h.post('/video-analyses', t.key, { video_url: 'https://videos.example/summer-spot.mp4' });
    clock.advance(1000);
    const second = await h.post('/video-analyses', t.key, { video_url: 'https://videos.example/winter-spot.mp4', workspace_id: t.workspaceId });
    const all = await h.get('/video-analyses', t.key);
    expect(all.body.data.map((v: { id: string }) => v.id)).toEqual([second.body.id, first.body.id]);
    expect(all.body.data[0]).not.toHaveProperty('result');
    expect((await h.get('/video-analyses?search=SUMMER', t.key)).body.data.map((v: { id: string }) => v.id)).toEqual([first.body.id]);
    expect((await h.get(`/video-analyses?workspace_id=${t.workspaceId}&status=pending&limit=1`, t.key)).body).toMatchObject({ has_more: true });
    expect((await h.get('/video-analyses?status=completed', t.key)).body.data).toEqual([]);
    await queue.drain();
  });

  it('on an upstream model: sends the measurements and on-screen text, keeps its judgements, and puts measured times and brand presence back', async () => {
    const { fake, engine } = await fakeUpstreamEngine({ timeoutMs: 10_000 });
    try {
      const invented = (index: number) => ({
        index,
        start_seconds: 99,
        end_seconds: 120,
        description: `Model description ${index}`,
        transcript: 'invented words',
        observations: [`Model observation ${index}`],
        dominant_emotion: 'joy',
        valence: 0.5,
        arousal: 0.9 - index * 0.3,
        engagement: 80,
        message_clarity: 70,
        brand_visible: true,
      });
      const reply = {
        summary: 'Model summary.',
        overall_score: 77,
        scores: { message_clarity: 70, brand_consistency: 60, emotional_impact: 65, hook_strength: 80, call_to_action: 40, intent_alignment: 55 },
        intent_alignment: [],
        goal_assessment: null,
        emotional_arc: { shape: 'rollercoaster', summary: 'Model arc.', peak_seconds: 42, average_valence: 0.9 },
        brand_presence: { first_appearance_seconds: 0, screen_time_seconds: 15, logo_detected: true, spoken_mentions: 7 },
        chunks: [invented(0), invented(1), invented(2)],
        strengths: ['Model strength'],
        weaknesses: [],
        recommendations: [],
        frames_analyzed: 999,
      };
      fake.enqueue({ content: JSON.stringify(reply) });
      const t = await h.tenant({ credits: 1000 });
      const fileId = await storeUpload(database.db, storage, t.workspaceId, videos.brand!);
      const created = await h.post('/video-analyses', t.key, { file_id: fileId, brand: 'Stride Athletics', chunk_duration: 5, frames_per_chunk: 1 });
      const [job] = videoAnalysisJobs({ ...services, engine });
      await job!.run({ id: created.body.id }, { jobId: 'upstream', attempt: 0, signal: new AbortController().signal, log: pino({ level: 'silent' }) });
      await queue.drain();
      // A model without image input gets no frames.
      expect(imagesOf(fake.requests.at(-1)!)).toEqual([]);
      const sent = JSON.stringify(fake.requests.at(-1)!.body);
      expect(sent).toContain('STRIDE ATHLETICS');
      expect(sent).toContain('\\"start_seconds\\":5,\\"end_seconds\\":10');
      const result = (await h.get(`/video-analyses/${created.body.id}`, t.key)).body.result;
      expect(result.summary).toBe('Model summary.');
      expect(result.chunks.map((c: any) => [c.start_seconds, c.end_seconds, c.brand_visible, c.description])).toEqual([
        [0, 5, false, 'Model description 0'],
        [5, 10, true, 'Model description 1'],
        [10, 15, false, 'Model description 2'],
      ]);
      expect(result.chunks[0].transcript).not.toBe('invented words');
      expect(result.brand_presence).toEqual({ first_appearance_seconds: 5, screen_time_seconds: 5, logo_detected: true, spoken_mentions: 0 });
      expect(result.emotional_arc).toMatchObject({ peak_seconds: 0, average_valence: 0.5 });
      expect(result.frames_analyzed).toBe(3);
    } finally {
      await fake.close();
    }
  }, 120_000);
});

it('on an upstream model that reads images: the frames of every chunk go to it labelled with their times, at most 32 per analysis', async () => {
  const { fake, engine: vision } = await fakeUpstreamEngine({ timeoutMs: 10_000, acceptsImages: true });
  try {
    const t = await h.tenant({ credits: 1000 });
    const run = async (framesPerChunk: number) => {
      const fileId = await storeUpload(database.db, storage, t.workspaceId, videos.brand!);
      const created = await h.post('/video-analyses', t.key, {
        file_id: fileId,
        brand: 'Stride Athletics',
        goal: 'Sign-ups',
        chunk_duration: 5,
        frames_per_chunk: framesPerChunk,
      });
      const [job] = videoAnalysisJobs({ ...services, engine: vision });
      await job!.run(
        { id: created.body.id },
        { jobId: `vision-${framesPerChunk}`, attempt: 0, signal: new AbortController().signal, log: pino({ level: 'silent' }) },
      );
      return { request: fake.requests.at(-1)!, read: (await h.get(`/video-analyses/${created.body.id}`, t.key)).body };
    };
    const reply = (frames: number) => ({
      summary: 'Seen.',
      overall_score: 50,
      scores: { message_clarity: 50, brand_consistency: 50, emotional_impact: 50, hook_strength: 50, call_to_action: 50, intent_alignment: 50 },
      intent_alignment: [],
      goal_assessment: null,
      emotional_arc: { shape: 'flat', summary: 'Flat.', peak_seconds: 0, average_valence: 0 },
      brand_presence: { first_appearance_seconds: null, screen_time_seconds: 0, logo_detected: false, spoken_mentions: 0 },
      chunks: [0, 1, 2].map((index) => ({
        index,
        start_seconds: 0,
        end_seconds: 0,
        description: `A frame of chunk ${index}`,
        transcript: null,
        observations: [],
        dominant_emotion: 'trust',
        valence: 0,
        arousal: 0.5,
        engagement: 50,
        message_clarity: 50,
        brand_visible: false,
      })),
      strengths: [],
      weaknesses: [],
      recommendations: [],
      frames_analyzed: frames,
    });
    fake.enqueue({ content: JSON.stringify(reply(6)) }, { content: JSON.stringify(reply(48)) });
    const two = await run(2);
    expect(two.read.status).toBe('completed');
    const images = imagesOf(two.request);
    expect(images).toHaveLength(6);
    for (const image of images) {
      expect(image).toMatchObject({ mediaType: 'image/jpeg', detail: 'low' });
      expect(image.bytes!.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    }
    const text = JSON.stringify(two.request.body.messages.at(-1).content);
    // Labels carry the measured frame times: the first frame at or after each 2.5 s slot's centre (25 fps).
    for (const label of [/chunk 0 at 1\.2\d*s/, /chunk 0 at 3\.7\d*s/, /chunk 1 at 6\.2\d*s/, /chunk 2 at 13\.7\d*s/]) expect(text).toMatch(label);
    // With the brand, intents and goal in the same message.
    expect(text).toContain('Stride Athletics');
    expect(text).toContain('Sign-ups');
    // 3 chunks × 16 frames = 48 sampled: 32 sent, spread over every chunk.
    const many = await run(16);
    expect(many.read.result.frames_analyzed).toBe(48);
    expect(imagesOf(many.request)).toHaveLength(32);
    const labelled = JSON.stringify(many.request.body.messages.at(-1).content);
    for (const chunk of [0, 1, 2]) expect(labelled).toContain(`Frame of chunk ${chunk} at`);
  } finally {
    await fake.close();
  }
}, 120_000);

it('transcribes speech through the /audio/transcriptions setting meetings use: per-chunk transcript and spoken brand mentions', async () => {
  const stt = await fakeSpeechToText(() => ({
    status: 200,
    json: {
      text: 'x',
      duration: 15,
      segments: [
        { start: 0.5, end: 3.5, text: ' Stride Athletics gets you running.' },
        { start: 6, end: 9, text: ' Join the Stride Athletics 5K.' },
      ],
    },
  }));
  try {
    const t = await h.tenant({ credits: 1000 });
    const fileId = await storeUpload(database.db, storage, t.workspaceId, videos.brand!);
    const created = await h.post('/video-analyses', t.key, { file_id: fileId, brand: 'Stride Athletics', chunk_duration: 5, frames_per_chunk: 1 });
    const transcriber = openAiTranscriber({ baseUrl: stt.url, model: 'whisper-test', apiKey: 'sk-stt' });
    const [job] = videoAnalysisJobs(services, { transcriber });
    await job!.run({ id: created.body.id }, { jobId: 'speech', attempt: 0, signal: new AbortController().signal, log: pino({ level: 'silent' }) });
    // One upload of the sound track, as MP3, with the configured model and key.
    expect(stt.bodies).toHaveLength(1);
    expect(stt.bodies[0]).toMatch(/^POST \/v1\/audio\/transcriptions Bearer sk-stt/);
    expect(stt.bodies[0]).toContain('whisper-test');
    expect(stt.bodies[0]).toContain('Content-Type: audio/mpeg');
    const result = (await h.get(`/video-analyses/${created.body.id}`, t.key)).body.result;
    expect(result.chunks[0].transcript).toContain('Stride Athletics gets you running.');
    expect(result.chunks[1].transcript).toContain('Join the Stride Athletics 5K.');
    // The on-screen text stays next to the speech.
    expect(result.chunks[1].transcript).toContain('STRIDE ATHLETICS');
    expect(result.chunks[2].transcript).not.toContain('Stride Athletics gets');
    expect(result.brand_presence.spoken_mentions).toBe(2);
    expect(result.summary).toMatch(/Speech was transcribed/);
  } finally {
    stt.server.close();
  }
}, 120_000);

describe('chat over a completed analysis', () => {
  let owner: Tenant;
  let analysis: { id: string; result: any };
  const ask = (content: string, extra: Record<string, unknown> = {}, key = owner.key) =>
    h.post(`/video-analyses/${analysis.id}/chat`, key, { messages: [{ role: 'user', content }], ...extra });
  const answerOf = (response: any) => response.output[0].content[0].text as string;

  beforeAll(async () => {
    owner = await h.tenant({ credits: 1000 });
    const { read } = await analyse(owner, videos.brand!, { brand: 'Stride Athletics', chunk_duration: 5, frames_per_chunk: 1 });
    expect(read.status).toBe('completed');
    analysis = read;
  }, 120_000);

  it('answers 409 until completed, 400 when the last message is not the question, 403 to a viewer', async () => {
    const pending = (await h.post('/video-analyses', owner.key, { video_url: 'https://videos.example/later.mp4' })).body;
    const early = await h.post(`/video-analyses/${pending.id}/chat`, owner.key, { messages: [{ role: 'user', content: 'Any brand?' }] });
    expect(early.status).toBe(409);
    expect(errorOf(early)).toMatchObject({ code: 'invalid_state' });
    await h.delete(`/video-analyses/${pending.id}`, owner.key);
    const last = await h.post(`/video-analyses/${analysis.id}/chat`, owner.key, {
      messages: [
        { role: 'user', content: 'Any brand?' },
        { role: 'assistant', content: 'Yes.' },
      ],
    });
    expect(errorOf(last)).toMatchObject({ code: 'invalid_parameter', param: 'messages' });
    const viewer = await h.tenant();
    await h.post(`/workspaces/${owner.workspaceId}/members`, owner.key, { email: viewer.email, role: 'viewer' });
    expect(errorOf(await ask('Any brand?', {}, viewer.key))).toMatchObject({ code: 'permission_denied' });
    expect(errorOf(await ask('Any brand?', { persona_id: 'cp_nope' }))).toMatchObject({ code: 'resource_not_found', param: 'persona_id' });
  });

  it('offline: quotes the chunks matching the question with their measured times, and charges the tokens', async () => {
    const before = await balanceOf(owner);
    const brand = await ask('When does the STRIDE ATHLETICS logo appear?');
    expect(brand.status).toBe(200);
    expect(brand.body).toMatchObject({ object: 'response', status: 'completed', persona_id: null, instructions: null, tools: [] });
    const text = answerOf(brand.body);
    // The brand is drawn in the second chunk only: that chunk is cited, with its text quoted.
    expect(text).toContain('[00:05–00:10]');
    expect(text).toContain(analysis.result.chunks[1].description);
    expect(text).not.toContain('[00:00–00:05]');
    expect(brand.body.usage.credits_used).toBeGreaterThan(0);
    expect(await balanceOf(owner)).toBe(before - brand.body.usage.credits_used);
    // Every chunk's description measures motion: only the still ones (plain colours) are told apart.
    const still = answerOf((await ask('Where is the motion still?')).body);
    expect(still).toContain('[00:05–00:10]');
    expect(still).toContain('[00:10–00:15]');
    expect(still).not.toContain('[00:00–00:05]');
    // Nothing matches: said so, no time cited.
    const nothing = answerOf((await ask('Does a dolphin swim by?')).body);
    expect(nothing).toMatch(/no part of the video matches "dolphin"/);
    expect(nothing).not.toMatch(/\[\d\d:\d\d–/);
    // A persona answers in its name.
    const persona = basePersonas[0]!;
    const asPersona = await ask('When does the STRIDE ATHLETICS logo appear?', { persona_id: persona.id });
    expect(asPersona.body.persona_id).toBe(persona.id);
    expect(answerOf(asPersona.body)).toContain(persona.name);
  });

  it('offline, streamed: the events of POST /responses whose deltas add up to the cited answer', async () => {
    const res = await ask('Which part says RUN FURTHER?', { stream: true });
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    const types = typesOf(res.text);
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    const deltas = events(res.text)
      .filter((event) => event.data.type === 'response.output_text.delta')
      .map((event) => event.data.delta)
      .join('');
    const final = events(res.text).at(-1)!.data.response;
    expect(answerOf(final)).toBe(deltas);
    expect(deltas).toContain('[00:10–00:15]');
    expect(deltas).toContain('RUN FURTHER');
    expect(final.usage.credits_used).toBeGreaterThan(0);
  });

  it('upstream, streamed and not: sends the result, keeps cited chunk times and drops invented ones', async () => {
    const { fake, engine: upstream } = await fakeUpstreamEngine({ timeoutMs: 10_000 });
    try {
      await engine.using(upstream, async () => {
        const reply = { answer: 'The brand shows at [00:05–00:10] and again at [00:42–00:50].', chunk_indexes: [1, 7] };
        fake.enqueue({ content: JSON.stringify(reply) }, { content: JSON.stringify({ answer: 'The brand is on screen in the middle.', chunk_indexes: [1] }) });
        const plain = await ask('When does the brand appear?');
        expect(answerOf(plain.body)).toBe('The brand shows at [00:05–00:10] and again at .');
        const sent = JSON.stringify(fake.requests.at(-1)!.body);
        expect(sent).toContain('STRIDE ATHLETICS');
        expect(sent).toContain('[00:05–00:10]');
        expect(sent).toContain('When does the brand appear?');
        expect(plain.body.usage.credits_used).toBeGreaterThan(0);
        // No citation left in the reply: the cited chunk's time is added.
        const streamed = await ask('Where is the brand?', { stream: true });
        const final = events(streamed.text).at(-1)!.data.response;
        expect(answerOf(final)).toBe('The brand is on screen in the middle. ([00:05–00:10])');
        expect(typesOf(streamed.text)).toContain('response.output_text.delta');
      });
    } finally {
      await fake.close();
    }
  });
});
