import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import type { ObjectStorage } from '../../storage/types.js';
import { ffmpegInputArgs, mediaInputOfFile } from './media-input.js';
import { mediaTypeEssence } from './sniff.js';
import { inSpan } from '../../observability/tracing.js';
import { runCommand } from '../../lib/spawner.js';

/** `File.thumbnail_url`: a 640 px wide JPEG (never upscaled). */
export const THUMBNAIL_WIDTH = 640;
const JPEG_QUALITY = 80;
// A whole video is never decoded for a preview; ffmpeg that takes longer than this is stopped.
const FFMPEG_TIMEOUT_MS = 60_000;

let sharpModule: Promise<typeof import('sharp')> | undefined;
const loadSharp = async () => (await (sharpModule ??= import('sharp'))).default;

// Image formats sharp's prebuilt libvips decodes.
const SHARP_IMAGE_TYPES = new Set([
  'image/jpeg',
  'image/png',
  'image/webp',
  'image/gif',
  'image/avif',
  'image/tiff',
  'image/svg+xml',
  'image/heic',
  'image/heif',
]);

/** Which renderer makes a file's thumbnail, or null when it gets none. */
export function thumbnailKind(type: string): 'image' | 'video' | null {
  const essence = mediaTypeEssence(type);
  if (SHARP_IMAGE_TYPES.has(essence)) return 'image';
  if (essence.startsWith('video/')) return 'video';
  return null;
}

/**
 * An image's thumbnail via sharp, streamed in (no whole-file buffer): EXIF orientation applied, the first
 * frame of an animation, transparency flattened onto white (JPEG has no alpha). sharp's pixel limit
 * refuses decompression bombs.
 */
export async function imageThumbnail(input: Readable): Promise<Buffer> {
  // sharp (libvips) is imported at the first image, not by every server's start (bench/README.md, "Cold
  // start"); an error of the input while it loads is kept, not left unheard.
  let failed: unknown;
  const keep = (err: unknown) => (failed = err);
  input.once('error', keep);
  const sharp = await loadSharp();
  input.off('error', keep);
  if (failed !== undefined) {
    input.destroy();
    throw failed;
  }
  const transformer = sharp({ failOn: 'error' })
    .rotate()
    .resize({ width: THUMBNAIL_WIDTH, withoutEnlargement: true })
    .flatten({ background: '#ffffff' })
    .jpeg({ quality: JPEG_QUALITY, mozjpeg: true });
  input.once('error', (err) => transformer.destroy(err));
  return input.pipe(transformer).toBuffer();
}

export interface VideoThumbnailOptions {
  /** FFMPEG_PATH (default `ffmpeg`). */
  ffmpegPath: string;
  signal?: AbortSignal;
}

/** Each ffmpeg run is a span of the job that runs it (observability/tracing.ts). */
const runFfmpeg = (ffmpegPath: string, args: string[], signal?: AbortSignal) =>
  inSpan('ffmpeg', { 'process.executable.name': 'ffmpeg', 'persona.media.purpose': 'thumbnail' }, () => runFfmpegUntraced(ffmpegPath, args, signal));

async function runFfmpegUntraced(ffmpegPath: string, args: string[], signal?: AbortSignal): Promise<void> {
  const { code, signal: killedBy, stderr } = await runCommand(ffmpegPath, args, { signal, timeoutMs: FFMPEG_TIMEOUT_MS, stderrKept: 2000 });
  if (code !== 0) throw new Error(`ffmpeg exited with ${code ?? killedBy}: ${stderr.trim()}`);
}

/**
 * A video's thumbnail via ffmpeg from a local file: the frame at 1 s (the first frame of a shorter
 * clip), scaled to 640 px wide. Only the `file` protocol and the container sniffed from the file's bytes
 * are allowed (media-input.ts), so a crafted file cannot make ffmpeg open other files or the network.
 */
export async function videoThumbnail(path: string, options: VideoThumbnailOptions): Promise<Buffer> {
  const container = await mediaInputOfFile(path);
  const dir = await mkdtemp(join(tmpdir(), 'persona-thumb-'));
  const out = join(dir, 'thumb.jpg');
  const args = (seek: string[]) => [
    '-hide_banner',
    '-nostdin',
    '-v',
    'error',
    ...seek,
    ...ffmpegInputArgs(path, container),
    '-map',
    '0:v:0',
    '-frames:v',
    '1',
    '-vf',
    `scale='min(${THUMBNAIL_WIDTH},iw)':-2`,
    '-q:v',
    '4',
    '-f',
    'image2',
    '-c:v',
    'mjpeg',
    '-y',
    out,
  ];
  try {
    await runFfmpeg(options.ffmpegPath, args(['-ss', '1']), options.signal);
    // Seeking past the end of a clip shorter than 1 s writes no frame: take the first one.
    const written = await stat(out).then(
      (s) => s.size,
      () => 0,
    );
    if (written === 0) await runFfmpeg(options.ffmpegPath, args([]), options.signal);
    return await readFile(out);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Renders the thumbnail of the object at `objectKey` (of MIME type `type`), or null for types that get
 * none. Images stream from storage into sharp; a video is first copied to a temporary file, since
 * ffmpeg must never read a URL.
 */
export async function renderThumbnail(storage: ObjectStorage, objectKey: string, type: string, options: VideoThumbnailOptions): Promise<Buffer | null> {
  const kind = thumbnailKind(type);
  if (kind === null) return null;
  const object = await storage.get(objectKey);
  if (!object) throw new Error(`no object at ${objectKey}`);
  if (kind === 'image') return imageThumbnail(object.body);
  const dir = await mkdtemp(join(tmpdir(), 'persona-video-'));
  try {
    const path = join(dir, 'input');
    await pipeline(object.body, createWriteStream(path), { signal: options.signal });
    return await videoThumbnail(path, options);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
