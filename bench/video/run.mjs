// Processing time of a video analysis per minute of 1080p video, and the process's RSS during it.
// Runs the job's media steps as the worker does (ffprobe, the one ffmpeg decoding pass, OCR of each
// chunk's middle frame) on a generated 1080p30 clip with motion, cuts, drawn text and a tone, from the
// built api package (`pnpm build` first). Usage: pnpm --filter @persona-api/bench video [--seconds 60]
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { measure, probe } from '../../apps/api/dist/resources/video-analyses/media.js';
import { openTextReader } from '../../apps/api/dist/resources/video-analyses/ocr.js';

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '60' }, chunk: { type: 'string', default: '10' }, frames: { type: 'string', default: '4' } },
});
const seconds = Number(values.seconds);
const dir = mkdtempSync(join(tmpdir(), 'bench-video-'));
const input = join(dir, 'in.mp4');
const third = Math.round(seconds / 3);
const text = (t) => `drawtext=text='${t}':fontsize=96:fontcolor=white:x=(w-tw)/2:y=(h-th)/2`;
console.error(`generating a ${seconds}s 1080p30 clip…`);
execFileSync('ffmpeg', [
  '-hide_banner',
  '-v',
  'error',
  '-y',
  '-f',
  'lavfi',
  '-i',
  `testsrc2=size=1920x1080:rate=30:duration=${third}`,
  '-f',
  'lavfi',
  '-i',
  `color=c=navy:size=1920x1080:rate=30:duration=${third}`,
  '-f',
  'lavfi',
  '-i',
  `mandelbrot=size=1920x1080:rate=30,trim=duration=${seconds - 2 * third}`,
  '-f',
  'lavfi',
  '-i',
  `sine=frequency=440:duration=${seconds}`,
  '-filter_complex',
  `[1:v]${text('STRIDE ATHLETICS')}[b];[2:v]${text('SHOP NOW')},setsar=1[c];[0:v][b][c]concat=n=3:v=1:a=0[v]`,
  '-map',
  '[v]',
  '-map',
  '3:a',
  '-c:v',
  'libx264',
  '-preset',
  'veryfast',
  '-pix_fmt',
  'yuv420p',
  '-c:a',
  'aac',
  input,
]);

let peakRss = process.memoryUsage.rss();
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
}, 50);
const signal = new AbortController().signal;
const started = performance.now();
const media = await probe(input, signal);
const frameDir = join(dir, 'frames');
mkdirSync(frameDir);
const decodeStart = performance.now();
const chunks = await measure(
  input,
  frameDir,
  { chunkDuration: Number(values.chunk), framesPerChunk: Number(values.frames), durationSeconds: media.durationSeconds, hasAudio: media.hasAudio },
  signal,
  () => {},
);
const decodeMs = performance.now() - decodeStart;
const ocrStart = performance.now();
const reader = await openTextReader();
for (const chunk of chunks) await reader.read(join(frameDir, chunk.frames[Math.floor(chunk.frames.length / 2)].file));
await reader.close();
const ocrMs = performance.now() - ocrStart;
const totalMs = performance.now() - started;
clearInterval(sampler);
rmSync(dir, { recursive: true, force: true });
const perMinute = (ms) => (ms / 1000 / (media.durationSeconds / 60)).toFixed(1);
const frames = chunks.reduce((sum, chunk) => sum + chunk.frames.length, 0);
console.log(
  `| ${media.durationSeconds.toFixed(0)} s 1080p30 | ${chunks.length} × ${values.chunk} s, ${frames} frames | ${perMinute(decodeMs)} s | ${perMinute(ocrMs)} s | **${perMinute(totalMs)} s** | ${(peakRss / 1024 / 1024).toFixed(0)} MiB |`,
);
