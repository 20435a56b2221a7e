// A focus group (TinyTroupe's broadcast + results extraction): every persona answers the same question on its
// own (`focusGroupAnswer`, one call per persona, run in parallel by the caller), then a moderator summarises
// the answers (`focusGroupSummary`). What can be counted — the sentiment breakdown — is counted in code by
// `sentimentBreakdown`, on both engines; the model only writes the prose.
import { z } from 'zod';
import type { EnginePersona } from '../../types.js';
import { defineFeature } from '../define.js';
import { answerOffline, summaryOffline } from './offline.js';
import { answerPrompt, summaryPrompt } from './upstream.js';

export const FOCUS_GROUP_SENTIMENTS = ['positive', 'neutral', 'negative', 'mixed'] as const;
export type FocusGroupSentiment = (typeof FOCUS_GROUP_SENTIMENTS)[number];

export interface FocusGroupAnswerInput {
  question: string;
  instructions: string | null;
  persona: EnginePersona;
}

const answerSchema = z.object({
  answer: z.string().min(1).max(8000),
  sentiment: z.enum(FOCUS_GROUP_SENTIMENTS),
  key_points: z.array(z.string().min(1).max(500)).max(10),
  confidence: z.number().min(0).max(1),
});
export type FocusGroupAnswerOutput = z.infer<typeof answerSchema>;

export const focusGroupAnswer = defineFeature<FocusGroupAnswerInput, FocusGroupAnswerOutput>({
  name: 'focus_group_answer',
  schema: answerSchema,
  prompt: answerPrompt,
  offline: answerOffline,
});

export interface FocusGroupSummaryInput {
  question: string;
  instructions: string | null;
  answers: ReadonlyArray<{ persona_name: string; answer: string; sentiment: FocusGroupSentiment; key_points: readonly string[] }>;
}

const summarySchema = z.object({
  consensus: z.string().min(1).max(4000),
  disagreements: z.array(z.string().min(1).max(1000)).max(10),
  key_themes: z.array(z.string().min(1).max(200)).max(10),
  recommendations: z.array(z.string().min(1).max(1000)).max(10),
});
export type FocusGroupSummaryOutput = z.infer<typeof summarySchema>;

export const focusGroupSummary = defineFeature<FocusGroupSummaryInput, FocusGroupSummaryOutput>({
  name: 'focus_group_summary',
  schema: summarySchema,
  prompt: summaryPrompt,
  offline: summaryOffline,
});

/** Number of answers of each sentiment: counted, never asked of a model. */
export function sentimentBreakdown(answers: ReadonlyArray<{ sentiment: FocusGroupSentiment }>): Record<FocusGroupSentiment, number> {
  const counts: Record<FocusGroupSentiment, number> = { positive: 0, neutral: 0, negative: 0, mixed: 0 };
  for (const answer of answers) counts[answer.sentiment] += 1;
  return counts;
}
