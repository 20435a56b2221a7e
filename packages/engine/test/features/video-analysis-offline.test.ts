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

describe('the summary and a chunk’s observations, as written', () => {
  it('counts in words, names the arc with a verb, and notes a brand said in the speech', () => {
    const falling = {
      ...input(12),
      duration_seconds: 8,
      speech_transcribed: true,
      chunks: [
        { ...chunk(12), on_screen_text: 'Acme: love it', speech: 'Acme makes this easy.' },
        { ...chunk(0.1), index: 1, start_seconds: 4, end_seconds: 8, loudness_lufs: -40, silence_seconds: 4 },
      ],
    };
    const result = analyseOffline(falling);
    // Was "runs 8s in 2 chunk(s) of 4 sampled frame(s)" and "The valence goes falling across 2 chunk(s)".
    expect(result.summary).toMatch(/ runs 8s in 2 chunks of 4 sampled frames\. /);
    expect(result.emotional_arc.summary).toMatch(
      /^The valence (falls|rises|stays flat|swings up and down|dips in the middle and recovers|builds to a peak and ends high) across 2 chunks /,
    );
    expect(result.summary).not.toContain('(s)');
    expect(result.chunks[0]?.observations).toContain('The brand is named in the speech.');
    expect(result.chunks[1]?.observations).not.toContain('The brand is named in the speech.');
  });
});

describe('counts in the offline texts', () => {
  it('say one thing and several things, never "thing(s)"', async () => {
    const { counted } = await import('../../src/text/index.js');
    expect([counted(1, 'chunk'), counted(3, 'chunk'), counted(0, 'cut'), counted(2, 'key term')]).toEqual(['1 chunk', '3 chunks', '0 cuts', '2 key terms']);
  });
});
