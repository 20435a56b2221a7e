import type { FeatureMessage } from '../define.js';
import { VIDEO_ANALYSIS_MODEL_CHUNK_CAP, type VideoAnalysisInput } from './index.js';

/** The measurements and on-screen text of at most the first VIDEO_ANALYSIS_MODEL_CHUNK_CAP chunks, as text. */
export function videoAnalysisPrompt(input: VideoAnalysisInput): FeatureMessage[] {
  const shown = input.chunks.slice(0, VIDEO_ANALYSIS_MODEL_CHUNK_CAP).map((chunk) => ({
    index: chunk.index,
    start_seconds: chunk.start_seconds,
    end_seconds: chunk.end_seconds,
    brightness: Math.round(chunk.brightness),
    motion: Math.round(chunk.motion * 10) / 10,
    cuts: chunk.cuts,
    loudness_lufs: chunk.loudness_lufs,
    silence_seconds: chunk.silence_seconds,
    on_screen_text: chunk.on_screen_text,
    speech: chunk.speech,
  }));
  const context = {
    title: input.title,
    brand: input.brand,
    product: input.product,
    intents: input.intents,
    goal: input.goal,
    duration_seconds: input.duration_seconds,
    speech_transcribed: input.speech_transcribed,
  };
  return [
    {
      role: 'system',
      content:
        'You judge marketing videos. You are given measurements of each chunk (mean luma 0-255, motion as mean luma change, scene cut times, loudness in LUFS, seconds of silence, text read on screen, speech when transcribed). Describe and judge only what the measurements and text show; never invent times: use the chunk boundaries given. Reply with the JSON schema, one entry in `chunks` per chunk given, in order.',
    },
    { role: 'user', content: JSON.stringify({ context, chunks: shown }) },
  ];
}
