import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOfflineEngine } from '@persona-api/engine';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import { accounts } from '../../src/db/schema/tenancy.js';
import type { JobRuntime } from '../../src/jobs/queue.js';
import { fileJobs } from '../../src/resources/files/jobs.js';
import { uploadObjectKey } from '../../src/resources/files/keys.js';
import { MediaInputError, mediaInputOf } from '../../src/resources/files/media-input.js';
import { files } from '../../src/resources/files/table.js';
import { videoThumbnail } from '../../src/resources/files/thumbnails.js';
import { videoAnalysisJobs } from '../../src/resources/video-analyses/jobs.js';
import type { Services } from '../../src/services.js';
import { createLocalStorage } from '../../src/storage/local.js';
import type { ObjectStorage } from '../../src/storage/types.js';
import { uploadAndRecord } from '../resources/files/flow.js';
import { openTestDatabase } from '../support/database.js';
import { Harness, TestClock, type Tenant } from '../support/harness.js';
import { openTestJobQueue } from '../support/jobs.js';
import { testServices } from '../support/services.js';
import { makeVideo, storeUpload } from '../support/videos.js';
import { writeFile } from 'node:fs/promises';

// SECURITY.md, Media: ffmpeg and ffprobe only ever open the one object analysed, through the demuxer
// sniffed from its bytes. The reproduction of issue 22: a playlist that names another account's private
// upload (or any local file) is refused, the analysis ends `failed` with the reason and the credits
// come back. Without the rule, ffmpeg's HLS demuxer reads the victim's video and the OCR quotes it.

let dir: string;
let database: DatabaseHandle;
let storage: ObjectStorage;
let queue: JobRuntime;
let services: Services;
let h: Harness;
let attacker: Tenant;
let victimObjectPath: string;
let victimVideo: string;
const clock = new TestClock();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'security-media-'));
  database = await openTestDatabase();
  storage = createLocalStorage(join(dir, 'storage'));
  const fileSettings = await Harness.fileSettings(database, 'https://api.example.test/api/v1');
  services = testServices(database.db, { engine: createOfflineEngine(), storage, clock, files: fileSettings });
  queue = await openTestJobQueue(database, [
    ...videoAnalysisJobs(services),
    ...fileJobs({ db: database.db, storage, now: clock.now, ffmpegPath: fileSettings.ffmpegPath }),
  ]);
  services.jobs = queue;
  h = await Harness.create({ database, clock, services: { storage, jobs: queue, files: fileSettings } });
  attacker = await h.tenant({ credits: 1000 });
  const victim = await h.tenant({ credits: 1000 });
  victimVideo = await makeVideo(join(dir, 'secret.mp4'), [{ seconds: 3, color: 'black', text: 'SECRET PLANS' }], null, { size: '320x180', rate: 5 });
  const victimFile = await storeUpload(database.db, storage, victim.workspaceId, victimVideo);
  const [row] = await database.db.select().from(files).where(eq(files.id, victimFile));
  victimObjectPath = join(dir, 'storage', 'objects', ...uploadObjectKey(row!.storageKey!).split('/'));
}, 60_000);

afterAll(async () => {
  await queue?.stop();
  await h?.close();
  await database?.close();
  await rm(dir, { recursive: true, force: true });
});

const balanceOf = async (t: Tenant) =>
  (await database.db.select({ balance: accounts.creditBalance }).from(accounts).where(eq(accounts.id, t.accountId)))[0]!.balance;

const hls = (target: string) => `#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:3\n#EXTINF:3.0,\n${target}\n#EXT-X-ENDLIST\n`;
const PLAYLISTS: Record<string, (victim: string) => string> = {
  'HLS naming another account’s object': (victim) => hls(victim),
  'HLS naming a file:// URL': (victim) => hls(`file://${victim}`),
  'HLS naming a file outside storage': () => hls('/etc/passwd'),
  'HLS naming a concat: input': (victim) => hls(`concat:${victim}|${victim}`),
  'DASH manifest with a file:// BaseURL': (victim) =>
    `<?xml version="1.0"?><MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT3S" minBufferTime="PT1S" profiles="urn:mpeg:dash:profile:isoff-on-demand:2011"><Period><AdaptationSet mimeType="video/mp4"><Representation id="1" bandwidth="100000"><BaseURL>file://${victim}</BaseURL></Representation></AdaptationSet></Period></MPD>\n`,
  'ffconcat list': (victim) => `ffconcat version 1.0\nfile '${victim}'\n`,
  'concat list without a header': (victim) => `file '${victim}'\n`,
};

describe('media inputs', () => {
  it('refuses playlists, manifests and concat lists uploaded through the real flow; the analysis fails with the reason and refunds', async () => {
    for (const [name, make] of Object.entries(PLAYLISTS)) {
      const before = await balanceOf(attacker);
      const { file } = await uploadAndRecord(h, attacker, Buffer.from(make(victimObjectPath)), 'application/octet-stream', { file_name: 'p.m3u8' });
      const created = await h.post('/video-analyses', attacker.key, { file_id: file.id });
      expect(created.status, name).toBe(200);
      await queue.drain();
      const read = (await h.get(`/video-analyses/${created.body.id}`, attacker.key)).body;
      expect(read, name).toMatchObject({ status: 'failed', credits_used: 0, result: null });
      expect(read.error, name).toMatch(/not a readable video: .*(playlist|manifest|concat list|not in a known audio or video container)/);
      expect(JSON.stringify(read), name).not.toMatch(/SECRET/i);
      expect(await balanceOf(attacker), name).toBe(before);
    }
  }, 60_000);

  it('refuses a playlist stored under a video type too (the bytes decide, not the declared type)', async () => {
    const playlist = join(dir, 'typed.mp4');
    await writeFile(playlist, hls(victimObjectPath));
    const fileId = await storeUpload(database.db, storage, attacker.workspaceId, playlist, 'video/mp4');
    const created = await h.post('/video-analyses', attacker.key, { file_id: fileId });
    await queue.drain();
    const read = (await h.get(`/video-analyses/${created.body.id}`, attacker.key)).body;
    expect(read).toMatchObject({ status: 'failed', credits_used: 0 });
    expect(read.error).toMatch(/HLS playlist/);
  });

  it('never lets the thumbnail renderer open a playlist, and still renders a real video', async () => {
    for (const make of Object.values(PLAYLISTS)) {
      const path = join(dir, 'thumb-input');
      await writeFile(path, make(victimObjectPath));
      await expect(videoThumbnail(path, { ffmpegPath: 'ffmpeg' })).rejects.toBeInstanceOf(MediaInputError);
    }
    const jpeg = await videoThumbnail(victimVideo, { ffmpegPath: 'ffmpeg' });
    expect(jpeg.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  });

  it('maps real containers to one demuxer each and names what it refuses', async () => {
    const { readFile } = await import('node:fs/promises');
    expect(await mediaInputOf(await readFile(victimVideo))).toEqual({ container: 'video/mp4', demuxer: 'mov' });
    const { execFileSync } = await import('node:child_process');
    for (const [extension, container, demuxer] of [
      ['mkv', 'video/matroska', 'matroska'],
      ['webm', 'video/webm', 'matroska'],
      ['avi', 'video/vnd.avi', 'avi'],
      ['ts', 'video/mp2t', 'mpegts'],
      ['wav', 'audio/wav', 'wav'],
    ] as const) {
      const path = join(dir, `sample.${extension}`);
      const codec = extension === 'wav' ? [] : extension === 'webm' ? ['-c:v', 'libvpx', '-b:v', '50k'] : ['-c:v', 'mpeg4'];
      const input = extension === 'wav' ? ['-f', 'lavfi', '-i', 'sine=duration=0.2'] : ['-f', 'lavfi', '-i', 'testsrc2=size=32x32:rate=5:duration=0.4'];
      execFileSync('ffmpeg', ['-hide_banner', '-v', 'error', '-y', ...input, ...codec, path]);
      expect(await mediaInputOf(await readFile(path)), extension).toEqual({ container, demuxer });
    }
    await expect(mediaInputOf(Buffer.from(hls('/etc/passwd')))).rejects.toThrow(/HLS playlist/);
    await expect(mediaInputOf(Buffer.from('<MPD type="static"></MPD>'))).rejects.toThrow(/DASH manifest/);
    await expect(mediaInputOf(Buffer.from("ffconcat version 1.0\nfile 'a.mp4'\n"))).rejects.toThrow(/concat list/);
    await expect(mediaInputOf(Buffer.from('%PDF-1.4\n%%EOF\n'))).rejects.toThrow(/application\/pdf, not audio or video/);
  });
});
