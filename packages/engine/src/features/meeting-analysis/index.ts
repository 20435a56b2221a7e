// Meeting analysis: the summary, key points, action items with owners, next steps, risks and sentiment of
// a call, from its transcript. Upstream: the model reads the speaker-labelled, timed transcript and what the
// server measured (talk ratio, topics) and replies in the schema below. Offline: sentences of the transcript
// chosen by rule (offline.ts). Either way the draft goes through the same rules in code (`settleAnalysis`):
// an owner or a per-speaker sentiment must name a real speaker of the transcript, dates must be dates, and
// every part is bounded as the contract bounds it. What is measured (talk ratio, questions and whether they
// were answered, topic timing) is never asked of the model: the server computes it from the segments.
import type { MeetingAnalysis, MeetingSpeaker, MeetingTranscriptSegment } from '@persona-api/types';
import type { JsonSchema } from '../../types.js';
import { defineFeature } from '../define.js';
import { durationPhrase, offlineMeetingAnalysis } from './offline.js';

export { MEETING_TOPICS, sentimentOf } from './offline.js';

export interface MeetingAnalysisInput {
  segments: MeetingTranscriptSegment[];
  speakers: MeetingSpeaker[];
  duration_seconds: number;
  /**
   * The day of the call (YYYY-MM-DD, UTC), so that a due date said relative to it ("by Friday") can be
   * resolved; absent or null when unknown (then no relative due date is given).
   */
  held_on?: string | null;
  /** Measured by the server from the segments; the prompt shows them, the offline summary states them. */
  measured: {
    talk_ratio: { speaker_id: string; speaker: string; ratio: number }[];
    /** Topic names, most talked about first. */
    topics: string[];
  };
}

/** What a model (or the offline rule) proposes, before the rules in code. */
export interface MeetingAnalysisDraft {
  summary: string;
  key_points: string[];
  action_items: { text: string; owner_speaker_id: string | null; due: string | null }[];
  next_steps: string[];
  risks: { text: string; severity: string }[];
  sentiment: {
    overall: { label: string; score: number };
    per_speaker: { speaker_id: string; label: string; score: number }[];
  };
}

export type MeetingAnalysisResult = Pick<MeetingAnalysis, 'summary' | 'key_points' | 'action_items' | 'next_steps' | 'risks' | 'sentiment'>;

// The transcript as the prompt carries it: bounded for the context window (≈ 2 hours of talk).
const PROMPT_TRANSCRIPT_CHARS = 120_000;
const LABELS = ['positive', 'neutral', 'negative', 'mixed'] as const;
const SEVERITIES = ['low', 'medium', 'high'] as const;

const labelSchema: JsonSchema = { type: 'string', enum: [...LABELS] };
const scoreSchema: JsonSchema = { type: 'number', minimum: -1, maximum: 1 };
const sentimentSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['label', 'score'],
  properties: { label: labelSchema, score: scoreSchema },
};

// Speaker ids are plain strings here, not an enum: not every OpenAI-compatible server enforces the schema
// while generating, so the rule that an owner is a real speaker is kept in code (settleAnalysis) for all.
const replySchema = (input: MeetingAnalysisInput): JsonSchema => {
  const speakerId: JsonSchema = { type: 'string', maxLength: 64 };
  return {
    type: 'object',
    additionalProperties: false,
    required: ['summary', 'key_points', 'action_items', 'next_steps', 'risks', 'sentiment'],
    properties: {
      summary: { type: 'string', maxLength: 5000 },
      key_points: { type: 'array', maxItems: 20, items: { type: 'string', maxLength: 500 } },
      action_items: {
        type: 'array',
        maxItems: 50,
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['text', 'owner_speaker_id', 'due'],
          properties: {
            text: { type: 'string', maxLength: 500 },
            owner_speaker_id: { anyOf: [{ type: 'null' }, speakerId] },
            due: { anyOf: [{ type: 'null' }, { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' }] },
          },
        },
      },
      next_steps: { type: 'array', maxItems: 20, items: { type: 'string', maxLength: 500 } },
      risks: {
        type: 'array',
        maxItems: 20,
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['text', 'severity'],
          properties: { text: { type: 'string', maxLength: 500 }, severity: { type: 'string', enum: [...SEVERITIES] } },
        },
      },
      sentiment: {
        type: 'object',
        additionalProperties: false,
        required: ['overall', 'per_speaker'],
        properties: {
          overall: sentimentSchema,
          per_speaker: {
            type: 'array',
            maxItems: Math.max(1, input.speakers.length),
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['speaker_id', 'label', 'score'],
              properties: { speaker_id: speakerId, label: labelSchema, score: scoreSchema },
            },
          },
        },
      },
    },
  };
};

const clip = (text: string, max: number) => text.trim().slice(0, max);
// A calendar date that exists: JavaScript rolls 2026-02-30 over to March 2, so the date must survive a round trip.
const isDate = (value: string | null): value is string => {
  if (value === null || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const time = Date.parse(`${value}T00:00:00Z`);
  return Number.isFinite(time) && new Date(time).toISOString().slice(0, 10) === value;
};
const clampScore = (score: number) => (Number.isFinite(score) ? Math.max(-1, Math.min(1, Math.round(score * 100) / 100)) : 0);
const labelOf = (label: string) => ((LABELS as readonly string[]).includes(label) ? (label as (typeof LABELS)[number]) : 'neutral');

/**
 * The rules the model cannot be trusted with, applied to both engines' drafts: an action item's owner is a
 * speaker of this transcript (any other id becomes null, so no owner is invented) and carries that
 * speaker's name; `due` is a real date or null; per-speaker sentiment only for real speakers, once each;
 * scores within −1..1; every text trimmed, non-empty and bounded as the contract bounds it.
 */
export function settleAnalysis(draft: MeetingAnalysisDraft, input: MeetingAnalysisInput): MeetingAnalysisResult {
  const nameOf = new Map(input.speakers.map((speaker) => [speaker.id, speaker.name.slice(0, 100)]));
  const texts = (items: readonly string[], max: number, count: number) =>
    items
      .map((item) => clip(item, max))
      .filter((item) => item.length > 0)
      .slice(0, count);
  const seen = new Set<string>();
  return {
    summary: clip(draft.summary, 5000),
    key_points: texts(draft.key_points, 500, 20),
    action_items: draft.action_items
      .filter((item) => item.text.trim().length > 0)
      .slice(0, 50)
      .map((item) => {
        const owner = item.owner_speaker_id && nameOf.has(item.owner_speaker_id) ? item.owner_speaker_id : null;
        return { text: clip(item.text, 500), owner: owner ? nameOf.get(owner)! : null, owner_speaker_id: owner, due: isDate(item.due) ? item.due : null };
      }),
    next_steps: texts(draft.next_steps, 500, 20),
    risks: draft.risks
      .filter((risk) => risk.text.trim().length > 0)
      .slice(0, 20)
      .map((risk) => ({
        text: clip(risk.text, 500),
        severity: (SEVERITIES as readonly string[]).includes(risk.severity) ? (risk.severity as (typeof SEVERITIES)[number]) : 'medium',
      })),
    sentiment: {
      overall: { label: labelOf(draft.sentiment.overall.label), score: clampScore(draft.sentiment.overall.score) },
      per_speaker: draft.sentiment.per_speaker
        .filter((entry) => nameOf.has(entry.speaker_id) && !seen.has(entry.speaker_id) && seen.add(entry.speaker_id))
        .map((entry) => ({
          speaker_id: entry.speaker_id,
          speaker: nameOf.get(entry.speaker_id)!,
          label: labelOf(entry.label),
          score: clampScore(entry.score),
        })),
    },
  };
}

export const meetingAnalysis = defineFeature<MeetingAnalysisInput, MeetingAnalysisResult>({
  name: 'meeting_analysis',
  schema: replySchema,
  prompt: (input) => {
    let transcript = '';
    for (const segment of input.segments) {
      const line = `[${segment.start.toFixed(1)}–${segment.end.toFixed(1)}s] ${segment.speaker_id} (${segment.speaker}): ${segment.text}\n`;
      if (transcript.length + line.length > PROMPT_TRANSCRIPT_CHARS) break;
      transcript += line;
    }
    const heldOn = input.held_on
      ? `The call took place on ${input.held_on} (${new Date(`${input.held_on}T12:00:00Z`).toLocaleDateString('en-US', { weekday: 'long', timeZone: 'UTC' })}): resolve a due date said relative to it ("by Friday") to YYYY-MM-DD.`
      : 'The day of the call is unknown: give a due date only when a full date was said.';
    return [
      {
        role: 'system',
        content: [
          'You analyse a recorded business call for the people who were in it, from its transcript only.',
          '- summary: what the call was about, what was decided and what is open, in a few sentences.',
          '- key_points: the facts and statements that matter (numbers, needs, objections, decisions), at most 20.',
          '- action_items: what someone committed to do; owner_speaker_id is the speaker id of the person who committed (null when nobody did), due a date YYYY-MM-DD only when one was said.',
          '- next_steps: what happens next, as agreed in the call.',
          '- risks: what could stop the deal or project (budget, timing, competitors, objections), with severity low, medium or high.',
          '- sentiment: overall and per speaker (by speaker id), label and a score from −1 (negative) to 1 (positive).',
          'Use only what the transcript says; never invent names, numbers or commitments. Speakers:',
          ...input.speakers.map((speaker) => `- ${speaker.id}: ${speaker.name}`),
          heldOn,
          `Measured by the server (do not recompute): ${durationPhrase(input.duration_seconds)}; talk ratio ${input.measured.talk_ratio
            .map((entry) => `${entry.speaker} ${Math.round(entry.ratio * 100)}%`)
            .join(', ')}; topics ${input.measured.topics.join(', ') || 'none detected'}.`,
        ].join('\n'),
      },
      { role: 'user', content: `Transcript:\n${transcript}` },
    ];
  },
  fromReply: (reply, input) => settleAnalysis(reply as unknown as MeetingAnalysisDraft, input),
  offline: (input) => settleAnalysis(offlineMeetingAnalysis(input), input),
});
