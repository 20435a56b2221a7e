// A video analysis (POST /video-analyses) from what was measured in the media: per-chunk brightness,
// motion, scene cuts, loudness, silence and on-screen text. What can be computed (times, brand presence,
// the arc's shape and peak, frame counts) is computed here on both engines; the upstream model only
// describes and judges what it is shown, and `fromReply` puts the computed parts back over its reply.
import type { VideoAnalysisResult } from '@persona-api/types';
import { contractSchema } from '../../schema/bundle.js';
import { defineFeature } from '../define.js';
import { analyseOffline, computedParts } from './offline.js';
import { videoAnalysisPrompt } from './upstream.js';

/** What ffmpeg and OCR measured in one chunk. */
export interface VideoChunkMeasurements {
  index: number;
  start_seconds: number;
  end_seconds: number;
  /** Frames sampled in the chunk. */
  frames: number;
  /** Mean luma of the chunk, 0–255. */
  brightness: number;
  /** Mean absolute luma change between consecutive frames, 0–255. */
  motion: number;
  /** Scene cuts found in the chunk (seconds from the start of the video). */
  cuts: number[];
  /** Mean momentary loudness (LUFS); null when the video has no audio. */
  loudness_lufs: number | null;
  /** Seconds of the chunk under −40 dBFS; equal to its length when there is no audio. */
  silence_seconds: number;
  /** Text read on screen (OCR), empty when none. */
  on_screen_text: string;
  /** Speech transcribed in the chunk; null when no transcription server is configured. */
  speech: string | null;
}

/** A sampled frame shown to a model that accepts images. */
export interface VideoFrameImage {
  chunk_index: number;
  /** Time of the frame in the video (seconds). */
  seconds: number;
  /** The JPEG's bytes, base64. */
  jpeg_base64: string;
}

export interface VideoAnalysisInput {
  title: string;
  brand: string;
  product: string;
  intents: { primary: string; secondary: string; tertiary: string };
  goal: string;
  duration_seconds: number;
  has_audio: boolean;
  /** Whether speech was transcribed (a transcription server is configured). */
  speech_transcribed: boolean;
  chunks: VideoChunkMeasurements[];
  /** Frames to show a model that accepts images (at most VIDEO_ANALYSIS_MODEL_FRAME_CAP); none otherwise. */
  frames?: VideoFrameImage[];
}

/** At most this many chunks are shown to the model (DECISIONS.md: the cap that keeps the flat price honest). */
export const VIDEO_ANALYSIS_MODEL_CHUNK_CAP = 120;
/**
 * At most this many frames go to a model that reads images, at low detail (DECISIONS.md): 32 × 85 image
 * tokens (OpenAI's low detail; Gemini counts 258) stay well inside the 10 000 tokens a 100-credit flat price buys.
 */
export const VIDEO_ANALYSIS_MODEL_FRAME_CAP = 32;

export const videoAnalysis = defineFeature<VideoAnalysisInput, VideoAnalysisResult>({
  name: 'video_analysis',
  schema: () => contractSchema('VideoAnalysisResult'),
  prompt: videoAnalysisPrompt,
  fromReply: (reply, input) => ({ ...(reply as unknown as VideoAnalysisResult), ...computedParts(reply as unknown as VideoAnalysisResult, input) }),
  offline: (input) => analyseOffline(input),
});

export { brandMentions } from './offline.js';
