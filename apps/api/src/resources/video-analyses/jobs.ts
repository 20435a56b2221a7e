// The processing job of a video analysis: bytes to a temp file, ffprobe, one ffmpeg pass, frames to
// storage, OCR of each chunk's middle frame, then the engine's analysis. Faults of the media (and of
// the URL) end the analysis as `failed` at once with a refund; anything else is retried, and
// `onFailure` marks it failed and refunds once the retries are used up.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { VIDEO_ANALYSIS_MODEL_FRAME_CAP, videoAnalysis, type VideoChunkMeasurements, type VideoFrameImage } from '@persona-api/engine';
import { eq } from 'drizzle-orm';
import { refundCredits } from '../../billing/credits.js';
import type { JobDefinition } from '../../jobs/types.js';
import { FetchError } from '../../lib/guarded-fetch.js';
import type { Services } from '../../services.js';
import { uploadObjectKey } from '../files/keys.js';
import { files } from '../files/table.js';
import { MediaInputError, mediaInputOfFile, type MediaInput } from '../files/media-input.js';
import { MAX_TRANSCRIPTION_BYTES, TranscriptionError, type Transcriber } from '../meetings/transcriber.js';
import { extractFrame, extractSpeechAudio, measure, MediaError, probe, type MeasuredChunk } from './media.js';
import { openTextReader } from './ocr.js';
import { ownUploadFile, readVideoAnalysis, updateRunning } from './repository.js';
import { videoAnalyses } from './table.js';

export const VIDEO_ANALYSIS_JOB = 'video-analysis.process';
/** DECISIONS.md, Video analyses: the bounds of the media. */
export const MAX_VIDEO_SECONDS = 3600;
export const MAX_VIDEO_BYTES = 2 * 1024 ** 3;
const DOWNLOAD_TIMEOUT_MS = 10 * 60 * 1000;
/** A 60-minute 1080p video decodes in 9 minutes on 2 idle cores and about 40 on loaded ones (bench/README.md). */
export const PROCESSING_LIMIT_MS = 60 * 60 * 1000;

export interface VideoAnalysisJobOptions {
  /** How long one analysis may run before it fails (tests shorten it). */
  processingLimitMs?: number;
  /** Speech-to-text (the OpenAI-compatible /audio/transcriptions setting meetings use); none: speech is not transcribed. */
  transcriber?: Transcriber | null;
}

/** Where an analysis' frames are kept. */
export const framesPrefix = (id: string) => `video-analyses/${id}/`;

type Payload = { id: string };

/**
 * The frames a model that reads images is shown: all of them up to VIDEO_ANALYSIS_MODEL_FRAME_CAP, else
 * that many spread evenly over the video (the flat price's cap, DECISIONS.md).
 */
async function framesForModel(chunks: MeasuredChunk[], frameDir: string): Promise<VideoFrameImage[]> {
  const all = chunks.flatMap((chunk) => chunk.frames.map((frame) => ({ chunk_index: chunk.index, ...frame })));
  const picked =
    all.length <= VIDEO_ANALYSIS_MODEL_FRAME_CAP
      ? all
      : Array.from({ length: VIDEO_ANALYSIS_MODEL_FRAME_CAP }, (_, i) => all[Math.floor(((i + 0.5) * all.length) / VIDEO_ANALYSIS_MODEL_FRAME_CAP)]!);
  return Promise.all(
    picked.map(async (frame) => ({
      chunk_index: frame.chunk_index,
      seconds: frame.seconds,
      jpeg_base64: (await readFile(join(frameDir, frame.file))).toString('base64'),
    })),
  );
}

export function videoAnalysisJobs(services: Services, options: VideoAnalysisJobOptions = {}): JobDefinition<Payload>[] {
  const limitMs = options.processingLimitMs ?? PROCESSING_LIMIT_MS;
  const transcriber = options.transcriber ?? null;

  /**
   * Each chunk's `speech`: the text of the transcript's segments whose middle falls in it ('' for none).
   * A server that hears no speech (music, silence) leaves every chunk ''; any other failure is retried.
   */
  async function transcribeSpeech(
    input: string,
    container: MediaInput,
    audioFile: string,
    chunks: VideoChunkMeasurements[],
    signal: AbortSignal,
  ): Promise<boolean> {
    for (const chunk of chunks) chunk.speech = '';
    // Silence all through (measured): nothing to send.
    if (chunks.every((chunk) => chunk.silence_seconds >= chunk.end_seconds - chunk.start_seconds - 0.001)) return true;
    await extractSpeechAudio(input, container, audioFile, signal);
    const audio = await readFile(audioFile);
    if (audio.length > MAX_TRANSCRIPTION_BYTES) throw new MediaError('The sound track is too long for one transcription upload.');
    let segments: { start: number; end: number; text: string }[];
    try {
      segments = (await transcriber!.transcribe(audio, 'speech.mp3', 'audio/mpeg', signal)).segments;
    } catch (error) {
      // transcriber.ts reports a reply without segments this way: no speech, not a failure of the analysis.
      if (error instanceof TranscriptionError && /heard no speech/.test(error.message)) return true;
      throw error;
    }
    for (const segment of segments) {
      const middle = (segment.start + segment.end) / 2;
      const chunk = chunks.findLast((candidate) => candidate.start_seconds <= middle) ?? chunks[0]!;
      chunk.speech = `${chunk.speech} ${segment.text}`.trim().slice(0, 5000);
    }
    return true;
  }

  /** Ends the analysis as failed with `reason` and gives the credits back, once. */
  async function fail(id: string, reason: string): Promise<void> {
    await services.db.transaction(async (tx) => {
      const now = services.clock.now();
      const [row] = await tx.select().from(videoAnalyses).where(eq(videoAnalyses.id, id)).for('update');
      if (!row || row.status === 'completed' || row.status === 'failed') return;
      if (row.chargeLedgerId) await refundCredits(tx, { chargeLedgerId: row.chargeLedgerId, description: `Refund: video analysis ${id} failed`, now });
      await updateRunning(tx, id, { status: 'failed', error: reason.slice(0, 2000), creditsUsed: 0, result: null, updatedAt: now, completedAt: now });
    });
    await services.storage.deletePrefix(framesPrefix(id));
  }

  /** The video's bytes into `target`: an upload from storage, anything else through the guarded fetcher. */
  async function download(row: { videoUrl: string | null; fileId: string | null; workspaceId: string }, target: string, signal: AbortSignal): Promise<void> {
    let url = row.videoUrl;
    // The service's own upload link is read from storage like a file id, never fetched over the network.
    const own = row.videoUrl ? await ownUploadFile(services.db, services.files.baseUrl, row.videoUrl, row.workspaceId) : undefined;
    if (own === null) throw new MediaError('The uploaded video was deleted before it could be analysed.');
    if (row.fileId || own) {
      const [file] = own ? [own] : await services.db.select().from(files).where(eq(files.id, row.fileId!));
      if (!file) throw new MediaError(`The file ${row.fileId} was deleted before it could be analysed.`);
      if (file.storageKey) {
        if (file.sizeBytes > MAX_VIDEO_BYTES) throw new MediaError('The video is larger than 2 GB.');
        const object = await services.storage.get(uploadObjectKey(file.storageKey));
        if (!object) throw new MediaError(`The bytes of file ${file.id} are not in storage.`);
        await pipeline(object.body, createWriteStream(target), { signal });
        return;
      }
      url = file.url;
    }
    if (!url) throw new MediaError('The analysis names no video.');
    try {
      const response = await services.fetcher.get(url, { maxBytes: MAX_VIDEO_BYTES, timeoutMs: DOWNLOAD_TIMEOUT_MS, signal });
      if (!response.ok) {
        response.body.destroy();
        throw new MediaError(`The video URL answered HTTP ${response.status}.`);
      }
      await pipeline(response.body, createWriteStream(target), { signal });
    } catch (error) {
      if (error instanceof FetchError) {
        throw new MediaError(error.reason === 'too_large' ? 'The video is larger than 2 GB.' : `The video URL could not be fetched (${error.message}).`);
      }
      throw error;
    }
  }

  async function process(id: string, signal: AbortSignal): Promise<void> {
    const row = await readVideoAnalysis(services.db, id);
    if (!row || (row.status !== 'pending' && row.status !== 'generating')) return;
    let lastProgress = -1;
    const setProgress = async (progress: number, changes: Partial<typeof row> = {}) => {
      if (progress < lastProgress + 5 && Object.keys(changes).length === 0) return;
      lastProgress = progress;
      await updateRunning(services.db, id, { status: 'generating', progress, updatedAt: services.clock.now(), ...changes });
    };
    await setProgress(1);
    const workDir = await mkdtemp(join(tmpdir(), 'video-analysis-'));
    try {
      const input = join(workDir, 'input');
      await download(row, input, signal);
      if ((await stat(input)).size > MAX_VIDEO_BYTES) throw new MediaError('The video is larger than 2 GB.');
      // The container from the file's own bytes: playlists, manifests and concat lists end here.
      const container = await mediaInputOfFile(input).catch((error: unknown) => {
        throw error instanceof MediaInputError ? new MediaError(`The file is not a readable video: ${error.message}`) : error;
      });
      const media = await probe(input, container, signal);
      if (media.durationSeconds > MAX_VIDEO_SECONDS)
        throw new MediaError(`The video runs ${Math.round(media.durationSeconds)} s; at most ${MAX_VIDEO_SECONDS} s (60 minutes) can be analysed.`);
      await setProgress(5, { durationSeconds: Math.round(media.durationSeconds * 1000) / 1000 });

      const frameDir = join(workDir, 'frames');
      await mkdir(frameDir, { recursive: true });
      let pending = Promise.resolve();
      const chunks = await measure(
        input,
        container,
        frameDir,
        { chunkDuration: row.chunkDuration, framesPerChunk: row.framesPerChunk, durationSeconds: media.durationSeconds, hasAudio: media.hasAudio },
        signal,
        (share) => {
          pending = pending.then(() => setProgress(5 + Math.floor(share * 70)));
        },
      );
      await pending;
      for (const chunk of chunks.filter((c) => c.frames.length === 0)) {
        const seconds = Math.round(((chunk.startSeconds + chunk.endSeconds) / 2) * 1000) / 1000;
        const file = `extra_${chunk.index}.jpg`;
        await extractFrame(input, container, seconds, join(frameDir, file), signal);
        chunk.frames.push({ file, seconds });
      }

      const measured = await readChunks(id, chunks, frameDir, signal, (done) => setProgress(75 + Math.floor((done / chunks.length) * 20)));
      const transcribed = transcriber && media.hasAudio ? await transcribeSpeech(input, container, join(workDir, 'speech.mp3'), measured, signal) : false;
      const frames = services.engine.describe().accepts_images ? await framesForModel(chunks, frameDir) : undefined;
      const { output } = await services.engine.run(
        videoAnalysis,
        {
          title: row.title,
          brand: row.brand,
          product: row.product,
          intents: { primary: row.primaryIntent, secondary: row.secondaryIntent, tertiary: row.tertiaryIntent },
          goal: row.goal,
          duration_seconds: media.durationSeconds,
          has_audio: media.hasAudio,
          speech_transcribed: transcribed,
          chunks: measured,
          ...(frames ? { frames } : {}),
        },
        { signal },
      );
      const now = services.clock.now();
      const stored = await updateRunning(services.db, id, { status: 'completed', progress: 100, result: output, updatedAt: now, completedAt: now });
      // Deleted while it ran: the frames written since the delete go too.
      if (!stored && !(await readVideoAnalysis(services.db, id))) await services.storage.deletePrefix(framesPrefix(id));
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  }

  /** Frames into storage and the on-screen text of each chunk's middle frame. */
  async function readChunks(
    id: string,
    chunks: MeasuredChunk[],
    frameDir: string,
    signal: AbortSignal,
    onChunk: (done: number) => Promise<void>,
  ): Promise<VideoChunkMeasurements[]> {
    const reader = await openTextReader();
    try {
      const measured: VideoChunkMeasurements[] = [];
      for (const chunk of chunks) {
        signal.throwIfAborted();
        for (const [position, frame] of chunk.frames.entries()) {
          await services.storage.put(
            `${framesPrefix(id)}frames/${String(chunk.index).padStart(3, '0')}_${String(position).padStart(2, '0')}.jpg`,
            createReadStream(join(frameDir, frame.file)),
            { contentType: 'image/jpeg' },
          );
        }
        const middle = chunk.frames[Math.floor(chunk.frames.length / 2)]!;
        const text = await reader.read(join(frameDir, middle.file));
        measured.push({
          index: chunk.index,
          start_seconds: chunk.startSeconds,
          end_seconds: chunk.endSeconds,
          frames: chunk.frames.length,
          brightness: chunk.brightness,
          motion: chunk.motion,
          cuts: chunk.cuts,
          loudness_lufs: chunk.loudnessLufs,
          silence_seconds: chunk.silenceSeconds,
          on_screen_text: text.slice(0, 2000),
          speech: null,
        });
        await onChunk(measured.length);
      }
      // The first chunk's middle frame is the analysis' thumbnail.
      const first = chunks[0]!.frames[Math.floor(chunks[0]!.frames.length / 2)]!;
      await services.storage.put(`${framesPrefix(id)}thumbnail.jpg`, createReadStream(join(frameDir, first.file)), { contentType: 'image/jpeg' });
      return measured;
    } finally {
      await reader.close();
    }
  }

  return [
    {
      kind: VIDEO_ANALYSIS_JOB,
      deadlineSeconds: Math.ceil(limitMs / 1000) + 60,
      retryLimit: 1,
      retryDelaySeconds: 30,
      run: async ({ id }, { signal }) => {
        const deadline = AbortSignal.timeout(limitMs);
        try {
          await process(id, AbortSignal.any([signal, deadline]));
        } catch (error) {
          if (error instanceof MediaError) return fail(id, error.message);
          if (deadline.aborted) return fail(id, `Processing took longer than the limit of ${limitMs / 1000} s.`);
          throw error;
        }
      },
      onFailure: async ({ id }, error) => fail(id, `The analysis failed: ${error instanceof Error ? error.message : String(error)}`.slice(0, 2000)),
    },
  ];
}
