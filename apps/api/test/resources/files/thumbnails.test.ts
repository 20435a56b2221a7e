import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imageThumbnail, renderThumbnail, thumbnailKind, videoThumbnail } from '../../../src/resources/files/thumbnails.js';
import { MemoryStorage } from './memory-storage.js';

const FFMPEG = process.env.FFMPEG_PATH ?? 'ffmpeg';
const hasFfmpeg = spawnSync(FFMPEG, ['-version']).status === 0;
if (!hasFfmpeg) console.warn(`video thumbnail tests skipped: ${FFMPEG} is not installed (scripts/setup.sh installs Debian's ffmpeg)`);

const jpegInfo = (bytes: Buffer) => sharp(bytes).metadata();

describe('thumbnailKind', () => {
  it('renders images sharp can read and every video, nothing else', () => {
    expect(thumbnailKind('image/PNG')).toBe('image');
    expect(thumbnailKind('image/svg+xml')).toBe('image');
    expect(thumbnailKind('video/quicktime')).toBe('video');
    expect(thumbnailKind('image/vnd.adobe.photoshop')).toBeNull();
    expect(thumbnailKind('application/pdf')).toBeNull();
  });
});

describe('imageThumbnail', () => {
  it('makes a 640 px wide JPEG of a large transparent PNG, flattened', async () => {
    const png = await sharp({ create: { width: 1600, height: 1200, channels: 4, background: { r: 0, g: 0, b: 255, alpha: 0 } } })
      .png()
      .toBuffer();
    const thumb = await imageThumbnail(Readable.from([png]));
    const info = await jpegInfo(thumb);
    expect([info.format, info.width, info.height, info.hasAlpha]).toEqual(['jpeg', 640, 480, false]);
    // Transparent pixels became white, not black.
    const { data } = await sharp(thumb).raw().toBuffer({ resolveWithObject: true });
    expect(data[0]).toBeGreaterThan(240);
  });

  it('never upscales a small image', async () => {
    const png = await sharp({ create: { width: 200, height: 100, channels: 3, background: '#336699' } })
      .png()
      .toBuffer();
    expect((await jpegInfo(await imageThumbnail(Readable.from([png])))).width).toBe(200);
  });

  it('rejects bytes that are not an image', async () => {
    await expect(imageThumbnail(Readable.from([Buffer.from('%PDF-1.7 not an image')]))).rejects.toThrow();
  });
});

describe.skipIf(!hasFfmpeg)('videoThumbnail (ffmpeg)', () => {
  let dir: string;
  const clip = (name: string, seconds: number) => {
    const path = join(dir, name);
    const made = spawnSync(FFMPEG, [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      `testsrc=size=1280x720:rate=25:duration=${seconds}`,
      '-pix_fmt',
      'yuv420p',
      '-y',
      path,
    ]);
    expect(made.status, made.stderr.toString()).toBe(0);
    return path;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'thumb-test-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('makes a 640 px JPEG from the frame at 1 s', async () => {
    const info = await jpegInfo(await videoThumbnail(clip('a.mp4', 2), { ffmpegPath: FFMPEG }));
    expect([info.format, info.width, info.height]).toEqual(['jpeg', 640, 360]);
  });

  it('takes the first frame of a clip shorter than 1 s', async () => {
    const info = await jpegInfo(await videoThumbnail(clip('short.webm', 0.4), { ffmpegPath: FFMPEG }));
    expect(info.width).toBe(640);
  });

  it('refuses a playlist that points elsewhere (sniffed before ffmpeg runs; SECURITY.md, Media)', async () => {
    const playlist = join(dir, 'evil.mp4');
    await writeFile(playlist, '#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:10.0,\nhttp://127.0.0.1:9/secret.ts\n#EXT-X-ENDLIST\n');
    await expect(videoThumbnail(playlist, { ffmpegPath: FFMPEG })).rejects.toThrow(/HLS playlist/);
  });

  it('renders from storage through a temporary file', async () => {
    const storage = new MemoryStorage();
    const { readFile } = await import('node:fs/promises');
    storage.objects.set('uploads/upl_v.mp4', { bytes: await readFile(clip('b.mp4', 2)), contentType: 'video/mp4' });
    const thumb = await renderThumbnail(storage, 'uploads/upl_v.mp4', 'video/mp4', { ffmpegPath: FFMPEG });
    expect((await jpegInfo(thumb!)).width).toBe(640);
    expect(await renderThumbnail(storage, 'uploads/upl_v.mp4', 'application/pdf', { ffmpegPath: FFMPEG })).toBeNull();
  });
});
