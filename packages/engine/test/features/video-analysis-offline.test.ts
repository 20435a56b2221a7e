import { describe, expect, it } from 'vitest';
import type { VideoAnalysisInput, VideoChunkMeasurements } from '../../src/features/video-analysis/index.js';
import { analyseOffline } from '../../src/features/video-analysis/offline.js';

const chunk = (motion: number): VideoChunkMeasurements => ({
  index: 0,
  start_seconds: 0,
  end_seconds: 4,
  frames: 2,
  brightness: 125,
  motion,
  cuts: [],
  loudness_lufs: -25,
  silence_seconds: 0,
  on_screen_text: '',
  speech: null,
});
const input = (motion: number): VideoAnalysisInput => ({
  title: 'Clip',
  brand: 'Acme',
  product: 'Widget',
  intents: { primary: '', secondary: '', tertiary: '' },
  goal: 'Awareness',
  duration_seconds: 4,
  has_audio: true,
  speech_transcribed: false,
  chunks: [chunk(motion)],
});

// The newcomer check (a test pattern whose counter moves slowly) read "slow motion" in a chunk's
// description beside "Static picture: no movement" in its observations.
describe('a chunk’s motion, described once', () => {
  it.each([
    [0.2, 'still', true],
    [0.8, 'slow', false],
    [3, 'slow', false],
  ])('motion %d reads as %s, static: %s', (motion, word, isStatic) => {
    const [result] = analyseOffline(input(motion)).chunks;
    expect(result?.description).toContain(`${word} motion`);
    expect(result?.observations.includes('Static picture: no movement and no cuts.')).toBe(isStatic);
  });
});
