// The offline video analysis: every value is derived from the measurements (no canned text). Scales:
// motion and cuts drive arousal and engagement, brightness valence, legible on-screen text clarity.
import type { VideoAnalysisChunk, VideoAnalysisResult } from '@persona-api/types';
import { counted } from '../../text/index.js';
import type { VideoAnalysisInput, VideoChunkMeasurements } from './index.js';

type Emotion = VideoAnalysisChunk['dominant_emotion'];
type ArcShape = VideoAnalysisResult['emotional_arc']['shape'];

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));
const round2 = (value: number) => Math.round(value * 100) / 100;
const cut = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);
const seconds = (value: number) => `${round2(value)}s`;
const normalise = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();

/**
 * The fewest edits (insert, delete, substitute) that turn `needle` into some substring of `haystack`
 * (Sellers' approximate substring matching): noise before or after the needle costs nothing.
 */
function editsToSubstring(needle: string, haystack: string): number {
  let previous: number[] = new Array(haystack.length + 1).fill(0);
  for (let i = 1; i <= needle.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= haystack.length; j += 1) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (needle[i - 1] === haystack[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return Math.min(...previous);
}

/**
 * Whether `name` (the brand or product) is in OCR'd on-screen `text`. OCR output needs more than a whole-word
 * match: case and punctuation are folded; the name may be split (`ORB ITAL`) or glued (`ACMECORP`), so runs of
 * consecutive words are compared without their spaces; a box edge or stray mark may stick to it (`HORBITAL`,
 * `|ORBITAL`): up to 2 extra characters around it are allowed; and one character may be misread (`0RBITAL`) in
 * names of 5+ letters (two in 10+). Names under 4 letters must match whole words exactly: in a short name one
 * error or an extra letter makes another word.
 */
export function mentions(text: string, name: string): boolean {
  const needleWords = normalise(name).split(' ').filter(Boolean);
  const needle = needleWords.join('');
  if (needle.length === 0) return false;
  const words = normalise(text).split(' ').filter(Boolean);
  if (needle.length < 4) return ` ${words.join(' ')} `.includes(` ${needleWords.join(' ')} `);
  const allowedEdits = needle.length >= 10 ? 2 : needle.length >= 5 ? 1 : 0;
  const maxNoise = 2;
  for (let start = 0; start < words.length; start += 1) {
    let run = '';
    for (let end = start; end < words.length && end < start + needleWords.length + 2; end += 1) {
      run += words[end];
      if (run.length > needle.length + maxNoise + allowedEdits) break;
      if (run.length >= needle.length - allowedEdits && editsToSubstring(needle, run) <= allowedEdits) return true;
    }
  }
  return false;
}

/** How often `brand` is said in `speech`. */
export function brandMentions(speech: string, brand: string): number {
  const needle = normalise(brand);
  if (!needle) return 0;
  return ` ${normalise(speech)} `.split(` ${needle} `).length - 1;
}

const CALL_TO_ACTION = /\b(shop|buy|order|sign up|signup|subscribe|try|visit|download|join|book|get|learn more|start|call)\b/i;

interface Signals {
  motion: number;
  cuts: number;
  loudness: number;
  text: boolean;
}

function signalsOf(chunk: VideoChunkMeasurements): Signals {
  const length = Math.max(chunk.end_seconds - chunk.start_seconds, 0.001);
  return {
    // YDIF of 20+ is fast movement; 4+ cuts per 10 s is a fast edit.
    motion: clamp(chunk.motion / 20, 0, 1),
    cuts: clamp((chunk.cuts.length / length) * 2.5, 0, 1),
    // −50 LUFS is near silence, −10 LUFS loud; silence lowers it further.
    loudness: chunk.loudness_lufs === null ? 0 : clamp((chunk.loudness_lufs + 50) / 40, 0, 1) * (1 - clamp(chunk.silence_seconds / length, 0, 1)),
    text: chunk.on_screen_text.trim().length > 0,
  };
}

function emotionOf(valence: number, arousal: number): Emotion {
  if (valence >= 0.2) return arousal >= 0.5 ? 'joy' : 'trust';
  if (valence <= -0.2) return arousal >= 0.5 ? 'fear' : 'sadness';
  return arousal >= 0.5 ? 'surprise' : 'anticipation';
}

const brightnessWord = (luma: number) => (luma < 50 ? 'dark' : luma < 110 ? 'dim' : luma < 180 ? 'evenly lit' : 'bright');
const motionWord = (motion: number) => (motion < 0.5 ? 'still' : motion < 5 ? 'slow' : motion < 15 ? 'moderate' : 'fast');

function chunkOf(chunk: VideoChunkMeasurements, input: VideoAnalysisInput): VideoAnalysisChunk {
  const signals = signalsOf(chunk);
  const length = chunk.end_seconds - chunk.start_seconds;
  const text = chunk.on_screen_text.replace(/\s+/g, ' ').trim();
  const brandVisible = mentions(text, input.brand) || mentions(text, input.product);
  const arousal = round2(clamp(0.45 * signals.motion + 0.3 * signals.cuts + 0.25 * signals.loudness, 0, 1));
  const valence = round2(clamp(((chunk.brightness - 110) / 145) * 0.8 + (brandVisible ? 0.1 : 0) + (signals.text ? 0.05 : 0), -1, 1));
  const engagement = Math.round(100 * clamp(0.3 * signals.motion + 0.25 * signals.cuts + 0.25 * signals.loudness + 0.2 * (signals.text ? 1 : 0), 0, 1));
  const words = text ? text.split(' ').length : 0;
  const silentShare = length > 0 ? clamp(chunk.silence_seconds / length, 0, 1) : 1;
  const clarity = Math.round(clamp((words > 0 ? 55 + Math.min(words, 10) * 3 : 25) + (input.has_audio ? (1 - silentShare) * 10 : 0), 0, 100));
  const audio = chunk.loudness_lufs === null ? 'no audio' : `${round2(chunk.loudness_lufs)} LUFS, ${seconds(chunk.silence_seconds)} of silence`;
  const cutsText = chunk.cuts.length === 0 ? 'no cuts' : `${counted(chunk.cuts.length, 'cut')} at ${chunk.cuts.map(seconds).join(', ')}`;
  const description = `${seconds(chunk.start_seconds)}–${seconds(chunk.end_seconds)}: ${brightnessWord(chunk.brightness)} picture (mean luma ${Math.round(chunk.brightness)}), ${motionWord(chunk.motion)} motion, ${cutsText}; ${audio}${text ? `; on screen: "${cut(text, 300)}"` : '; no legible text on screen'}.`;
  const observations: string[] = [];
  if (brandVisible) observations.push(`The ${mentions(text, input.brand) ? 'brand' : 'product'} name is on screen.`);
  if (chunk.speech && input.brand && brandMentions(chunk.speech, input.brand) > 0) observations.push('The brand is named in the speech.');
  if (CALL_TO_ACTION.test(text)) observations.push(`On-screen call to action: "${cut(text, 200)}".`);
  if (chunk.cuts.length >= 3) observations.push(`Fast editing: ${chunk.cuts.length} cuts in ${seconds(length)}.`);
  // The description's own word for the motion, so a chunk it calls "slow" is never also "static".
  if (motionWord(chunk.motion) === 'still' && chunk.cuts.length === 0) observations.push('Static picture: no movement and no cuts.');
  if (input.has_audio && silentShare >= 0.5) observations.push(`Mostly silent: ${seconds(chunk.silence_seconds)} of ${seconds(length)}.`);
  if (chunk.brightness < 40) observations.push('Very dark picture.');
  const transcript = [chunk.speech ?? '', text].filter((part) => part.trim().length > 0).join('\n');
  return {
    index: chunk.index,
    start_seconds: chunk.start_seconds,
    end_seconds: chunk.end_seconds,
    description: cut(description, 2000),
    transcript: transcript ? cut(transcript, 5000) : null,
    observations: observations.slice(0, 10).map((item) => cut(item, 500)),
    dominant_emotion: emotionOf(valence, arousal),
    valence,
    arousal,
    engagement,
    message_clarity: clarity,
    brand_visible: brandVisible,
  };
}

const mean = (values: number[]) => (values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length);

// How each arc reads in a sentence ("The valence falls across 3 chunks"; was "goes falling").
const ARC_WORDS: Record<ArcShape, string> = {
  flat: 'stays flat',
  rising: 'rises',
  falling: 'falls',
  u_shaped: 'dips in the middle and recovers',
  peak_end: 'builds to a peak and ends high',
  rollercoaster: 'swings up and down',
};

function arcShape(valences: number[]): ArcShape {
  if (valences.length < 2 || Math.max(...valences) - Math.min(...valences) < 0.1) return 'flat';
  const third = Math.max(1, Math.floor(valences.length / 3));
  const start = mean(valences.slice(0, third));
  const middle = mean(valences.slice(third, valences.length - third).length ? valences.slice(third, valences.length - third) : valences);
  const end = mean(valences.slice(-third));
  let turns = 0;
  for (let i = 2; i < valences.length; i++) {
    const before = valences[i - 1]! - valences[i - 2]!;
    const after = valences[i]! - valences[i - 1]!;
    if (Math.abs(before) > 0.05 && Math.abs(after) > 0.05 && Math.sign(before) !== Math.sign(after)) turns++;
  }
  if (turns >= 3) return 'rollercoaster';
  if (middle < start - 0.05 && middle < end - 0.05) return 'u_shaped';
  if (middle > start + 0.05 && end > start) return 'peak_end';
  return end >= start ? 'rising' : 'falling';
}

/** The parts computed from the media on both engines, given the per-chunk judgements (the model's or ours). */
export function computedParts(
  result: Pick<VideoAnalysisResult, 'chunks'>,
  input: VideoAnalysisInput,
): Pick<VideoAnalysisResult, 'chunks' | 'brand_presence' | 'emotional_arc' | 'frames_analyzed'> {
  const measured = input.chunks.map((chunk) => chunkOf(chunk, input));
  // Times, text and brand visibility come from the media, whatever a model said; its judgements are kept.
  const chunks = measured.map((own, position) => {
    const judged = result.chunks?.[position];
    if (!judged || result.chunks === measured) return own;
    return {
      ...judged,
      index: own.index,
      start_seconds: own.start_seconds,
      end_seconds: own.end_seconds,
      transcript: own.transcript,
      brand_visible: own.brand_visible,
    };
  });
  const visible = chunks.filter((chunk) => chunk.brand_visible);
  const speech = input.chunks.map((chunk) => chunk.speech ?? '').join(' ');
  const peak = chunks.reduce((best, chunk) => (chunk.arousal > best.arousal ? chunk : best), chunks[0] ?? { arousal: 0, start_seconds: 0 });
  const valences = chunks.map((chunk) => chunk.valence);
  const shape = arcShape(valences);
  return {
    chunks,
    brand_presence: {
      first_appearance_seconds: visible[0]?.start_seconds ?? null,
      screen_time_seconds: round2(visible.reduce((sum, chunk) => sum + (chunk.end_seconds - chunk.start_seconds), 0)),
      logo_detected: visible.length > 0,
      spoken_mentions: input.speech_transcribed ? Math.min(10_000, brandMentions(speech, input.brand)) : 0,
    },
    emotional_arc: {
      shape,
      summary: cut(
        `The valence ${ARC_WORDS[shape]} across ${counted(chunks.length, 'chunk')} (from ${valences[0] ?? 0} to ${valences.at(-1) ?? 0}); the most intense chunk starts at ${seconds(peak.start_seconds)}.`,
        1000,
      ),
      peak_seconds: peak.start_seconds,
      average_valence: round2(clamp(mean(valences), -1, 1)),
    },
    frames_analyzed: Math.min(
      11_520,
      input.chunks.reduce((sum, chunk) => sum + chunk.frames, 0),
    ),
  };
}

function intentScore(intent: string, chunks: VideoAnalysisChunk[]): { score: number; rationale: string } {
  const words = new Set(
    normalise(intent)
      .split(' ')
      .filter((word) => word.length > 3),
  );
  const seen = new Set(normalise(chunks.map((chunk) => chunk.transcript ?? '').join(' ')).split(' '));
  const matched = [...words].filter((word) => seen.has(word));
  const engagement = mean(chunks.map((chunk) => chunk.engagement));
  const score = Math.round(clamp(0.6 * engagement + (words.size ? (matched.length / words.size) * 40 : 0), 0, 100));
  const rationale = matched.length
    ? `On-screen text echoes ${matched.map((word) => `"${word}"`).join(', ')}; mean engagement ${Math.round(engagement)}.`
    : `None of the intent's words appear in the on-screen text; mean engagement ${Math.round(engagement)}.`;
  return { score, rationale: cut(rationale, 1000) };
}

export function analyseOffline(input: VideoAnalysisInput): VideoAnalysisResult {
  const computed = computedParts({ chunks: [] }, input);
  const { chunks, brand_presence } = computed;
  const first = chunks[0];
  const last = chunks.at(-1);
  const firstCutsIn3s = input.chunks.flatMap((chunk) => chunk.cuts).filter((time) => time < 3).length;
  const hook = Math.round(clamp((first?.engagement ?? 0) * 0.8 + firstCutsIn3s * 10, 0, 100));
  const clarity = Math.round(mean(chunks.map((chunk) => chunk.message_clarity)));
  const impact = Math.round(100 * mean(chunks.map((chunk) => chunk.arousal)));
  const visibleShare = chunks.length ? chunks.filter((chunk) => chunk.brand_visible).length / chunks.length : 0;
  const brandScore = input.brand
    ? Math.round(
        clamp(
          visibleShare * 60 +
            (brand_presence.first_appearance_seconds === null ? 0 : 40 * (1 - brand_presence.first_appearance_seconds / Math.max(input.duration_seconds, 1))),
          0,
          100,
        ),
      )
    : Math.round(visibleShare * 100);
  const ctaChunk = [...chunks].reverse().find((chunk) => CALL_TO_ACTION.test(chunk.transcript ?? ''));
  const callToAction = ctaChunk ? (ctaChunk === last ? 85 : 65) : 15;
  const intents = (
    [
      ['primary', input.intents.primary],
      ['secondary', input.intents.secondary],
      ['tertiary', input.intents.tertiary],
    ] as const
  )
    .filter(([, intent]) => intent.trim().length > 0)
    .map(([rank, intent]) => ({ rank, intent: cut(intent, 500), ...intentScore(intent, chunks) }));
  const weights = [0.5, 0.3, 0.2];
  const weightSum = intents.reduce((sum, _intent, i) => sum + weights[i]!, 0);
  const intentAlignment = intents.length
    ? Math.round(intents.reduce((sum, intent, i) => sum + intent.score * weights[i]!, 0) / weightSum)
    : Math.round(mean(chunks.map((chunk) => chunk.engagement)));
  const scores = {
    message_clarity: clarity,
    brand_consistency: brandScore,
    emotional_impact: impact,
    hook_strength: hook,
    call_to_action: callToAction,
    intent_alignment: intentAlignment,
  };
  const overall = Math.round(mean(Object.values(scores)));
  const strengths: string[] = [];
  const weaknesses: string[] = [];
  const recommendations: VideoAnalysisResult['recommendations'] = [];
  if (brand_presence.first_appearance_seconds !== null)
    strengths.push(
      `The brand name is on screen from ${seconds(brand_presence.first_appearance_seconds)}, in ${chunks.filter((chunk) => chunk.brand_visible).length} of ${counted(chunks.length, 'chunk')}.`,
    );
  else if (input.brand) {
    weaknesses.push(`"${cut(input.brand, 200)}" never appears on screen.`);
    recommendations.push({ priority: 'high', recommendation: `Show "${cut(input.brand, 200)}" on screen in the first chunk.`, start_seconds: 0 });
  }
  if (hook >= 60) strengths.push(`A strong opening: engagement ${first?.engagement ?? 0} in the first chunk.`);
  else {
    weaknesses.push(`A weak opening: engagement ${first?.engagement ?? 0} in the first chunk, ${counted(firstCutsIn3s, 'cut')} in the first 3 s.`);
    recommendations.push({ priority: 'high', recommendation: 'Open with movement or a cut in the first 3 seconds.', start_seconds: 0 });
  }
  if (ctaChunk) strengths.push(`A call to action on screen at ${seconds(ctaChunk.start_seconds)}.`);
  else {
    weaknesses.push('No call to action is read on screen.');
    recommendations.push({ priority: 'medium', recommendation: 'End on an on-screen call to action.', start_seconds: last?.start_seconds ?? null });
  }
  const lowest = chunks.reduce<VideoAnalysisChunk | undefined>(
    (worst, chunk) => (worst === undefined || chunk.engagement < worst.engagement ? chunk : worst),
    undefined,
  );
  if (lowest && lowest.engagement < 40) {
    weaknesses.push(`Engagement drops to ${lowest.engagement} at ${seconds(lowest.start_seconds)}–${seconds(lowest.end_seconds)}.`);
    recommendations.push({
      priority: 'medium',
      recommendation: `Tighten ${seconds(lowest.start_seconds)}–${seconds(lowest.end_seconds)}: add motion, a cut or text.`,
      start_seconds: lowest.start_seconds,
    });
  }
  const speechNote = input.speech_transcribed
    ? 'Speech was transcribed.'
    : 'Speech was not transcribed (no transcription server is configured), so spoken words are not part of this analysis.';
  const summary = `${cut(input.title || 'The video', 200)} runs ${seconds(input.duration_seconds)} in ${counted(chunks.length, 'chunk')} of ${counted(computed.frames_analyzed, 'sampled frame')}. Overall score ${overall}: clarity ${clarity}, brand ${brandScore}, impact ${impact}, hook ${hook}, call to action ${callToAction}. ${computed.emotional_arc.summary} ${speechNote} Scores are derived from measured motion, cuts, loudness, brightness and on-screen text.`;
  return {
    summary: cut(summary, 4000),
    overall_score: overall,
    scores,
    intent_alignment: intents,
    goal_assessment: input.goal.trim()
      ? {
          goal: cut(input.goal, 1000),
          likelihood: Math.round((overall + callToAction) / 2),
          rationale: cut(`Derived from the overall score ${overall} and the call-to-action score ${callToAction}.`, 1000),
        }
      : null,
    emotional_arc: computed.emotional_arc,
    brand_presence,
    chunks,
    strengths: strengths.slice(0, 10).map((item) => cut(item, 500)),
    weaknesses: weaknesses.slice(0, 10).map((item) => cut(item, 500)),
    recommendations: recommendations.slice(0, 10),
    frames_analyzed: computed.frames_analyzed,
  };
}
