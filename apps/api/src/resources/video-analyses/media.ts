// ffprobe and the single ffmpeg decoding pass (the commands measured in wave2-anchors §2(e)): frames at
// the centres of `frames_per_chunk` equal slots of each chunk, per-frame luma and motion (signalstats),
// scene cuts (scdet), momentary loudness (ebur128) and silence (silencedetect). ffmpeg only ever gets the
// one local file, through its sniffed demuxer (files/media-input.ts), never a caller's URL or a playlist.
import { readFile, readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { runCommand } from '../../lib/spawner.js';
import { inSpan } from '../../observability/tracing.js';
import { ffmpegInputArgs, type MediaInput } from '../files/media-input.js';

const FFMPEG = process.env.FFMPEG_PATH ?? 'ffmpeg';
const FFPROBE = process.env.FFPROBE_PATH ?? 'ffprobe';

/** A fault of the media itself: the analysis fails with this message (no retry). */
export class MediaError extends Error {
  override name = 'MediaError';
}

/**
 * Each ffmpeg/ffprobe run is a span of the job that runs it (observability/tracing.ts). All of stderr is
 * kept: the filters' findings (showinfo, silencedetect) are read from it. A run that failed has a code
 * other than 0 (null when a signal ended it).
 */
const run = (command: string, args: string[], signal: AbortSignal, onStdout?: (text: string) => void) =>
  inSpan(basename(command), { 'process.executable.name': basename(command) }, () => runCommand(command, args, { signal, onStdout, stderrKept: null }));

export interface Probe {
  durationSeconds: number;
  hasAudio: boolean;
  width: number;
  height: number;
}

export async function probe(path: string, container: MediaInput, signal: AbortSignal): Promise<Probe> {
  const { code, stdout, stderr } = await run(
    FFPROBE,
    [
      '-v',
      'error',
      '-show_entries',
      'format=duration,format_name:stream=index,codec_type,codec_name,width,height',
      '-of',
      'json',
      ...ffmpegInputArgs(path, container),
    ],
    signal,
  );
  if (code !== 0) throw new MediaError(`The file is not a readable video (${stderr.trim().split('\n')[0]?.slice(0, 300) || 'ffprobe failed'}).`);
  const info = JSON.parse(stdout) as { format?: { duration?: string }; streams?: { codec_type?: string; width?: number; height?: number }[] };
  const video = info.streams?.find((stream) => stream.codec_type === 'video');
  if (!video) throw new MediaError('The file has no video stream.');
  const durationSeconds = Number(info.format?.duration);
  if (!Number.isFinite(durationSeconds) || durationSeconds <= 0) throw new MediaError('The video has no readable duration.');
  return {
    durationSeconds,
    hasAudio: info.streams?.some((stream) => stream.codec_type === 'audio') ?? false,
    width: video.width ?? 0,
    height: video.height ?? 0,
  };
}

export interface ChunkPlan {
  chunkDuration: number;
  framesPerChunk: number;
  durationSeconds: number;
  hasAudio: boolean;
}

export interface MeasuredChunk {
  index: number;
  startSeconds: number;
  endSeconds: number;
  /** Frame files (in `frameDir`) and their times, in time order. */
  frames: { file: string; seconds: number }[];
  brightness: number;
  motion: number;
  cuts: number[];
  loudnessLufs: number | null;
  silenceSeconds: number;
}

/** `key=value` blocks after `frame:… pts_time:T` lines (ffmpeg's metadata print). */
function metadataBlocks(text: string): { time: number; values: Map<string, number> }[] {
  const blocks: { time: number; values: Map<string, number> }[] = [];
  for (const line of text.split('\n')) {
    const frame = /pts_time:([\d.eE+-]+)/.exec(line);
    if (line.startsWith('frame:') && frame) blocks.push({ time: Number(frame[1]), values: new Map() });
    else {
      const pair = /^([\w.]+)=(.*)$/.exec(line.trim());
      // `-inf` (digital silence) and `nan` are left out: readers treat a missing value as the floor.
      if (pair && blocks.length > 0 && Number.isFinite(Number(pair[2]))) blocks.at(-1)!.values.set(pair[1]!, Number(pair[2]));
    }
  }
  return blocks;
}

const mean = (values: number[]) => (values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length);
const round3 = (value: number) => Math.round(value * 1000) / 1000;

/**
 * One decoding pass over `input`; frames go to `workDir/f_%05d.jpg`. `onProgress` gets 0–1 as the
 * decode advances. Chunk i is [i·D, min((i+1)·D, duration)).
 */
export async function measure(
  input: string,
  container: MediaInput,
  workDir: string,
  plan: ChunkPlan,
  signal: AbortSignal,
  onProgress: (share: number) => void,
): Promise<MeasuredChunk[]> {
  const slot = plan.chunkDuration / plan.framesPerChunk;
  const half = slot / 2;
  const videoFile = join(workDir, 'video.txt');
  const audioFile = join(workDir, 'audio.txt');
  const graph = [
    '[0:v]split=2[va][vb]',
    `[va]select='gte(t,${half})*if(isnan(prev_selected_t),1,gt(floor((t-${half})/${slot}),floor((prev_selected_t-${half})/${slot})))',scale=768:-2,showinfo[sel]`,
    `[vb]scale=320:-2,signalstats,scdet=threshold=10,metadata=mode=print:file=${videoFile},nullsink`,
    ...(plan.hasAudio ? [`[0:a]ebur128=metadata=1,ametadata=mode=print:file=${audioFile},silencedetect=n=-40dB:d=0.5,anullsink`] : []),
  ].join(';');
  let buffered = '';
  const { code, stderr } = await run(
    FFMPEG,
    [
      '-hide_banner',
      '-nostats',
      '-v',
      'info',
      '-threads',
      '2',
      ...ffmpegInputArgs(input, container),
      '-filter_complex',
      graph,
      '-map',
      '[sel]',
      '-fps_mode',
      'passthrough',
      '-q:v',
      '4',
      '-progress',
      'pipe:1',
      join(workDir, 'f_%05d.jpg'),
    ],
    signal,
    (text) => {
      buffered += text;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const match = /^out_time_us=(\d+)/.exec(line);
        if (match) onProgress(Math.min(1, Number(match[1]) / 1e6 / plan.durationSeconds));
      }
    },
  );
  if (code !== 0) throw new MediaError(`The video could not be decoded (${stderr.trim().split('\n').at(-1)?.slice(0, 300) ?? 'ffmpeg failed'}).`);

  const chunkCount = Math.max(1, Math.ceil(plan.durationSeconds / plan.chunkDuration - 1e-9));
  const chunkOf = (time: number) => Math.min(chunkCount - 1, Math.max(0, Math.floor(time / plan.chunkDuration)));
  const chunks: MeasuredChunk[] = Array.from({ length: chunkCount }, (_, index) => ({
    index,
    startSeconds: round3(index * plan.chunkDuration),
    endSeconds: round3(Math.min((index + 1) * plan.chunkDuration, plan.durationSeconds)),
    frames: [],
    brightness: 0,
    motion: 0,
    cuts: [],
    loudnessLufs: plan.hasAudio ? 0 : null,
    silenceSeconds: 0,
  }));

  // Frames: showinfo prints each selected frame's time, in output order.
  const times = [...stderr.matchAll(/Parsed_showinfo.*?\bn:\s*\d+.*?pts_time:([\d.]+)/g)].map((match) => Number(match[1]));
  const files = (await readdir(workDir)).filter((name) => /^f_\d+\.jpg$/.test(name)).sort();
  files.forEach((file, position) => {
    const seconds = times[position] ?? 0;
    chunks[chunkOf(seconds)]!.frames.push({ file, seconds: round3(seconds) });
  });

  const video = metadataBlocks(await readFile(videoFile, 'utf8'));
  for (const chunk of chunks) {
    const inside = video.filter((block) => chunkOf(block.time) === chunk.index);
    chunk.brightness = round3(mean(inside.map((block) => block.values.get('lavfi.signalstats.YAVG') ?? 0)));
    // Motion within shots: the first frame has nothing to differ from, and a cut's change is counted as a cut.
    chunk.motion = round3(
      mean(inside.filter((block) => block.time > 0 && !block.values.has('lavfi.scd.time')).map((block) => block.values.get('lavfi.signalstats.YDIF') ?? 0)),
    );
    chunk.cuts = inside.filter((block) => block.values.has('lavfi.scd.time')).map((block) => round3(block.values.get('lavfi.scd.time')!));
  }

  if (plan.hasAudio) {
    const audio = metadataBlocks(await readFile(audioFile, 'utf8'));
    for (const chunk of chunks) {
      // Momentary loudness every 100 ms; digital silence (−inf, −120) counts as −70 LUFS, the gate of R128.
      const values = audio.filter((block) => chunkOf(block.time) === chunk.index).map((block) => Math.max(-70, block.values.get('lavfi.r128.M') ?? -70));
      chunk.loudnessLufs = values.length ? Math.round(mean(values) * 10) / 10 : -70;
    }
    const silences: { start: number; end: number }[] = [];
    for (const match of stderr.matchAll(/silence_(start|end): ([\d.]+)/g)) {
      if (match[1] === 'start') silences.push({ start: Number(match[2]), end: plan.durationSeconds });
      else if (silences.length) silences.at(-1)!.end = Number(match[2]);
    }
    for (const chunk of chunks) {
      chunk.silenceSeconds = round3(
        silences.reduce((sum, silence) => sum + Math.max(0, Math.min(silence.end, chunk.endSeconds) - Math.max(silence.start, chunk.startSeconds)), 0),
      );
    }
  } else {
    for (const chunk of chunks) chunk.silenceSeconds = round3(chunk.endSeconds - chunk.startSeconds);
  }
  return chunks;
}

/** A frame of a chunk the grid left without one (a last chunk shorter than half a slot): one seek to its middle. */
export async function extractFrame(input: string, container: MediaInput, seconds: number, output: string, signal: AbortSignal): Promise<void> {
  const { code, stderr } = await run(
    FFMPEG,
    [
      '-hide_banner',
      '-v',
      'error',
      '-ss',
      String(seconds),
      ...ffmpegInputArgs(input, container),
      '-frames:v',
      '1',
      '-vf',
      'scale=768:-2',
      '-q:v',
      '4',
      '-y',
      output,
    ],
    signal,
  );
  if (code !== 0) throw new MediaError(`A frame at ${seconds}s could not be decoded (${stderr.trim().slice(0, 300)}).`);
}

/**
 * The sound track as the speech-to-text server takes it: mono 16 kHz MP3 at 32 kbit/s, so 60 minutes is
 * 14.4 MB, under the 25 MB of one /audio/transcriptions upload.
 */
export async function extractSpeechAudio(input: string, container: MediaInput, output: string, signal: AbortSignal): Promise<void> {
  const { code, stderr } = await run(
    FFMPEG,
    ['-hide_banner', '-v', 'error', ...ffmpegInputArgs(input, container), '-vn', '-ac', '1', '-ar', '16000', '-c:a', 'libmp3lame', '-b:a', '32k', '-y', output],
    signal,
  );
  if (code !== 0) throw new MediaError(`The sound track could not be decoded (${stderr.trim().slice(0, 300)}).`);
}
