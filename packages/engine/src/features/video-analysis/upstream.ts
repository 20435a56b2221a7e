import type { FeatureImage, FeatureMessage } from '../define.js';
import { VIDEO_ANALYSIS_MODEL_CHUNK_CAP, VIDEO_ANALYSIS_MODEL_FRAME_CAP, type VideoAnalysisInput } from './index.js';

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
        'You judge marketing videos. You are given measurements of each chunk (mean luma 0-255, motion as mean luma change, scene cut times, loudness in LUFS, seconds of silence, text read on screen, speech when transcribed). Describe and judge only what the measurements and text show; never invent times: use the chunk boundaries given. Reply with the JSON schema, one entry in `chunks` per chunk given, in order. When frames are attached as images, each follows a line naming its chunk and time: describe what they show (people, products, setting, logos) in that chunk.',
    },
    { role: 'user', content: JSON.stringify({ context, chunks: shown }), images: framesShown(input) },
  ];
}

/** Each frame with a label naming its chunk and time, within the cap, in time order. */
function framesShown(input: VideoAnalysisInput): FeatureImage[] {
  return (input.frames ?? [])
    .slice(0, VIDEO_ANALYSIS_MODEL_FRAME_CAP)
    .map((frame) => ({ media_type: 'image/jpeg', data: frame.jpeg_base64, label: `Frame of chunk ${frame.chunk_index} at ${frame.seconds}s:` }));
}
