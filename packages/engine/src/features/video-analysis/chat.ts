// A chat over a completed video analysis (POST /video-analyses/{id}/chat), grounded in its result: every
// answer cites chunk times as [mm:ss–mm:ss], and only times of the result's chunks survive. The upstream
// model answers from the result given as JSON; the offline engine picks the chunks whose words match the
// question and quotes their descriptions, on-screen or spoken text and scores — computed, never canned.
import type { VideoAnalysisChunk, VideoAnalysisResult } from '@persona-api/types';
import { z } from 'zod';
import { counted } from '../../text/index.js';
import type { EnginePersona } from '../../types.js';
import { defineFeature, type FeatureMessage } from '../define.js';

export interface VideoChatInput {
  title: string;
  brand: string;
  product: string;
  goal: string;
  result: VideoAnalysisResult;
  /** The conversation, oldest first; the last message is the user's question. */
  messages: { role: 'user' | 'assistant'; content: string }[];
  /** The persona that answers; null: a neutral video analyst. */
  persona: EnginePersona | null;
}

export interface VideoChatOutput {
  /** The answer, with each claim about a part of the video followed by its chunk's time range. */
  answer: string;
  /** The chunks the answer relies on (indexes into `result.chunks`). */
  chunk_indexes: number[];
}

/** At most this many chunks are quoted in one offline answer. */
const OFFLINE_CHUNKS_QUOTED = 3;

const twoDigits = (value: number) => String(value).padStart(2, '0');

/** `mm:ss` (or `h:mm:ss` past an hour) of a time in seconds, rounded down. */
export function clockTime(seconds: number): string {
  const whole = Math.floor(seconds);
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  return hours > 0 ? `${hours}:${twoDigits(minutes)}:${twoDigits(whole % 60)}` : `${twoDigits(minutes)}:${twoDigits(whole % 60)}`;
}

/** The citation of a chunk: `[00:30–01:00]`. */
export const chunkCitation = (chunk: Pick<VideoAnalysisChunk, 'start_seconds' | 'end_seconds'>) =>
  `[${clockTime(chunk.start_seconds)}–${clockTime(chunk.end_seconds)}]`;

const CITATION = /\[(\d{1,2}(?::\d{2}){1,2})\s*[–-]\s*(\d{1,2}(?::\d{2}){1,2})\]/g;

/**
 * Keeps the citations that name a chunk of the result (a model may invent times), drops the others, and
 * appends the cited chunks' times when the answer has none left.
 */
export function groundCitations(answer: string, chunkIndexes: readonly number[], chunks: readonly VideoAnalysisChunk[]): VideoChatOutput {
  const real = new Set(chunks.map(chunkCitation));
  let kept = 0;
  const cleaned = answer
    .replace(CITATION, (_citation, start: string, end: string) => {
      const normal = `[${start}–${end}]`;
      if (real.has(normal)) {
        kept += 1;
        return normal;
      }
      return '';
    })
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
  const indexes = [...new Set(chunkIndexes)].filter((index) => chunks[index] !== undefined).sort((a, b) => a - b);
  if (kept > 0 || indexes.length === 0) return { answer: cleaned, chunk_indexes: indexes };
  return { answer: `${cleaned} (${indexes.map((index) => chunkCitation(chunks[index]!)).join(', ')})`, chunk_indexes: indexes };
}

const STOP_WORDS = new Set(
  'the a an and or but if of to in on at by for with from about into over under is are was were be been being do does did has have had what which who whom whose when where why how this that these those it its they them their there here you your yours we our us me my i he she his her can could should would will shall may might must not no yes any some all each most more less very just than then so too also video clip part parts chunk chunks moment moments time times second seconds minute minutes show shows tell please much many where'.split(
    ' ',
  ),
);

/** The question's content words, lower-cased (≥ 3 letters, stop words out). */
function contentWords(text: string): string[] {
  return [...new Set((text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((word) => word.length >= 3 && !STOP_WORDS.has(word)))];
}

/** A word of the question matches a word of the chunk when one starts with the other (run/running, cut/cuts). */
function matches(word: string, chunkWords: Set<string>): boolean {
  for (const candidate of chunkWords) {
    if (candidate === word) return true;
    const [short, long] = candidate.length < word.length ? [candidate, word] : [word, candidate];
    if (short.length >= 4 && long.startsWith(short)) return true;
  }
  return false;
}

const chunkText = (chunk: VideoAnalysisChunk) =>
  [chunk.description, chunk.transcript ?? '', ...chunk.observations, chunk.dominant_emotion, chunk.brand_visible ? 'brand logo visible' : ''].join(' ');

const ENGAGEMENT_WORDS = /\b(engag\w*|interest\w*|attention|bor\w*|drop\w*|dip\w*|lose|losing|lost|weak\w*|best|strong\w*|peak\w*|hook)\b/i;
const LOW_WORDS = /\b(bor\w*|drop\w*|dip\w*|lose|losing|lost|weak\w*|worst|low\w*)\b/i;

function describeChunk(chunk: VideoAnalysisChunk): string {
  const said = chunk.transcript ? ` Text: "${chunk.transcript.replace(/\s+/g, ' ').slice(0, 200)}".` : '';
  return `${chunkCitation(chunk)} ${chunk.description}${said} Engagement ${chunk.engagement}/100, ${chunk.dominant_emotion}${chunk.brand_visible ? ', brand on screen' : ''}.`;
}

/** The offline answer: the chunks that match the question, quoted with their times. */
export function answerOffline(input: VideoChatInput): VideoChatOutput {
  const question = [...input.messages].reverse().find((message) => message.role === 'user')?.content ?? '';
  const chunks = input.result.chunks;
  const words = contentWords(question);
  const brandWords = new Set(contentWords(`${input.brand} brand logo`));
  const chunkWords = chunks.map((chunk) => new Set(contentWords(chunkText(chunk))));
  // A word found in every chunk (e.g. "motion", which every description measures) tells no chunk apart.
  const telling = words.filter((word) => chunkWords.filter((own) => matches(word, own)).length < Math.max(2, chunks.length));
  const scored = chunks.map((chunk, index) => {
    const matched = telling.filter((word) => matches(word, chunkWords[index]!));
    const score = matched.length + (chunk.brand_visible && words.some((word) => brandWords.has(word)) ? 1 : 0);
    return { index, chunk, score, matched };
  });
  let picked = scored
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, OFFLINE_CHUNKS_QUOTED);
  let lead: string;
  const opener = input.persona ? `${input.persona.name}, answering from the analysis of "${input.title}"` : `From the analysis of "${input.title}"`;
  if (picked.length > 0) {
    const matchedWords = [...new Set(picked.flatMap((entry) => entry.matched))];
    lead = `${opener}, ${picked.length === 1 ? 'one part matches' : `${picked.length} parts match`} your question${matchedWords.length ? ` (${matchedWords.map((word) => `"${word}"`).join(', ')})` : ''}:`;
  } else if (chunks.length > 0 && ENGAGEMENT_WORDS.test(question)) {
    // Engagement questions: the measured extreme the question asks about.
    const low = LOW_WORDS.test(question);
    const ordered = [...scored].sort((a, b) => (low ? a.chunk.engagement - b.chunk.engagement : b.chunk.engagement - a.chunk.engagement) || a.index - b.index);
    picked = ordered.slice(0, 1);
    lead = `${opener}, engagement is ${low ? 'lowest' : 'highest'} here:`;
  } else {
    const first = chunks[0];
    return {
      answer: `${opener}: no part of the video matches ${words.length ? words.map((word) => `"${word}"`).join(', ') : 'your question'}. ${input.result.summary}${first ? ` The analysis covers ${counted(chunks.length, 'chunk')}, ${clockTime(first.start_seconds)} to ${clockTime(chunks.at(-1)!.end_seconds)}.` : ''}`,
      chunk_indexes: [],
    };
  }
  picked.sort((a, b) => a.index - b.index);
  return { answer: [lead, ...picked.map((entry) => `- ${describeChunk(entry.chunk)}`)].join('\n'), chunk_indexes: picked.map((entry) => entry.index) };
}

const ANALYST =
  'You are a video analyst answering questions about one analysed marketing video. Answer only from the analysis given (measured chunk times, descriptions, on-screen text, transcripts, scores); say so when it does not hold the answer. After every statement about a part of the video, cite its chunk time range exactly as given in `citation`, e.g. [00:30–01:00]; never cite other times. Reply with the JSON schema: `answer` (plain text) and `chunk_indexes` (the chunks you relied on).';

export function videoChatPrompt(input: VideoChatInput): FeatureMessage[] {
  const { chunks, ...overall } = input.result;
  const analysis = {
    title: input.title,
    brand: input.brand,
    product: input.product,
    goal: input.goal,
    ...overall,
    chunks: chunks.map((chunk, index) => ({ chunk_index: index, citation: chunkCitation(chunk), ...chunk })),
  };
  const system = input.persona ? `${input.persona.system_prompt}\n\n${ANALYST} Answer from your point of view as ${input.persona.name}.` : ANALYST;
  return [
    { role: 'system', content: system },
    { role: 'user', content: `The video analysis:\n${JSON.stringify(analysis)}` },
    ...input.messages.map((message) => ({ role: message.role, content: message.content })),
  ];
}

const replySchema = z.object({
  answer: z.string().min(1).max(20_000),
  chunk_indexes: z.array(z.number().int().min(0)).max(720),
});

export const videoAnalysisChat = defineFeature<VideoChatInput, VideoChatOutput>({
  name: 'video_analysis_chat',
  schema: replySchema,
  prompt: videoChatPrompt,
  fromReply: (reply, input) => {
    const parsed = replySchema.parse(reply);
    return groundCitations(parsed.answer, parsed.chunk_indexes, input.result.chunks);
  },
  offline: (input) => answerOffline(input),
});
