// The offline meeting analysis: every summary line, key point, action item, next step and risk is a sentence
// of the transcript itself, chosen by rule (extractive, never invented); sentiment is a lexicon count.
import type { MeetingSentimentLabel, MeetingTranscriptSegment } from '@persona-api/types';
import * as chrono from 'chrono-node';
import { sentences, valence } from '../../text/index.js';
import type { MeetingAnalysisDraft, MeetingAnalysisInput } from './index.js';

interface Sentence {
  text: string;
  segment: MeetingTranscriptSegment;
}

/** The call topics a sentence can be about; the server measures each topic's time from the same list. */
export const MEETING_TOPICS: Readonly<Record<string, RegExp>> = {
  Pricing: /\b(price|pricing|cost|discount|quote|per seat|licen[cs]e)/i,
  Budget: /\b(budget|spend|funding|approved amount)/i,
  Timeline: /\b(timeline|deadline|by (?:the )?end of|quarter|q[1-4]|next (?:week|month)|go-live|launch date)/i,
  Integration: /\b(integrat|api|salesforce|hubspot|sso|connector|webhook)/i,
  'Security and compliance': /\b(security|soc ?2|gdpr|hipaa|compliance|encrypt|audit)/i,
  Onboarding: /\b(onboard|training|rollout|implementation|set ?up)/i,
  Support: /\b(support|ticket|outage|incident|response time|escalat)/i,
  Competition: /\b(competitor|alternative|switch(?:ing)? (?:to|from)|gong|chorus|otter|vendor)/i,
  'Decision process': /\b(decision|sign[- ]off|approv|procurement|legal|stakeholder|champion)/i,
  Renewal: /\b(renew|contract|expir|churn|upsell|expansion)/i,
  // Not "report": a SOC 2 report or a board report is no product feedback.
  'Product feedback': /\b(feature|bug|roadmap|request|dashboard|workflow)/i,
};
const POSITIVE = /\b(great|good|love|like|happy|excited|helpful|perfect|excellent|works well|impressed|thanks|thank you|agree|definitely|glad)\b/gi;
const NEGATIVE =
  /\b(problem|issue|concern|worried|frustrat|slow|expensive|difficult|hard|broken|bug|churn|unhappy|disappoint|blocker|risk|delay|outage|not sure)\w*/gi;
const CONDITIONAL = /^(?:if|unless|when|otherwise)\b/i;
const COMMITMENT = /\b(I'll|I will|we'll|we will|let me|I can send|I'm going to|we're going to|I will follow up)\b/i;
const NEXT_STEP = /\b(next step|follow[- ]up|schedule|send (?:over|you)|set up a|book a|circle back)\b/i;
const RISK_HIGH = /\b(cancel|churn|budget freeze|no budget|switch(?:ing)? to|deal[- ]breaker|blocker|escalat)\w*/i;
const RISK_MEDIUM = /\b(concern|worried|delay|competitor|legal review|not sure|outage|expensive|too (?:much|high)|problem|slip(?:s|ped|ping)?\b)\w*/i;
// Something still owed before the deal can move: "I still need a SOC 2 report before legal signs anything".
const PRECONDITION = /\b(?:need|needs|require|requires|must have)\b.+\bbefore\b/i;
// Opening courtesies: no key point however long ("Hi Tom, thanks for making time").
const PLEASANTRY = /^(?:hi|hello|hey|good (?:morning|afternoon|evening)|thanks|thank you|great to|nice to|glad to)\b/i;

/** A sentence a call's risk list names: a risk word, a precondition, or a rise in what the customer pays ("prices went up"). */
function riskOf(text: string): 'high' | 'medium' | null {
  if (RISK_HIGH.test(text)) return 'high';
  return RISK_MEDIUM.test(text) || PRECONDITION.test(text) || valence(text).paidUp > 0 ? 'medium' : null;
}

export function sentencesOf(segments: readonly MeetingTranscriptSegment[]): Sentence[] {
  return segments.flatMap((segment) =>
    // Sentences end at . ! ? before a space: "2.1 percent" stays one.
    sentences(segment.text)
      .map((text) => text.trim())
      .filter((text) => text.length > 0)
      .map((text) => ({ text, segment })),
  );
}

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;
const words = (text: string) => text.match(/\S+/g)?.length ?? 0;

/** Lexicon sentiment: (positive − negative) / (positive + negative + 2), "mixed" when both are frequent and balanced. */
export function sentimentOf(texts: readonly string[]): { label: MeetingSentimentLabel; score: number } {
  let positive = 0;
  let negative = 0;
  for (const text of texts) {
    positive += text.match(POSITIVE)?.length ?? 0;
    negative += text.match(NEGATIVE)?.length ?? 0;
  }
  const score = round((positive - negative) / (positive + negative + 2));
  const label: MeetingSentimentLabel =
    positive >= 2 && negative >= 2 && Math.abs(score) < 0.25 ? 'mixed' : score > 0.15 ? 'positive' : score < -0.15 ? 'negative' : 'neutral';
  return { label, score };
}

export function offlineMeetingAnalysis(input: MeetingAnalysisInput): MeetingAnalysisDraft {
  const sentences = sentencesOf(input.segments);
  // Each sentence's risk, once: the ranking, the risks and its signal all read it (valence per sentence).
  const risks = new Map(sentences.map((sentence) => [sentence, riskOf(sentence.text)]));
  // What makes a sentence worth keeping beyond its length: topics, figures, commitments, steps, risks;
  // worked out once per sentence, not in every comparison of the sort.
  const signals = new Map(
    sentences.map((sentence) => [
      sentence,
      Object.values(MEETING_TOPICS).filter((pattern) => pattern.test(sentence.text)).length * 2 +
        (/\d/.test(sentence.text) ? 1 : 0) +
        (COMMITMENT.test(sentence.text) ? 2 : 0) +
        (NEXT_STEP.test(sentence.text) ? 1 : 0) +
        (risks.get(sentence) ? 1 : 0),
    ]),
  );
  const signal = (sentence: Sentence) => signals.get(sentence) ?? 0;
  const weight = (sentence: Sentence) => signal(sentence) + Math.min(2, words(sentence.text) / 12);
  const substantive = sentences.filter((sentence) => words(sentence.text) >= 6 && !sentence.text.endsWith('?'));
  const candidates = substantive.filter((sentence) => signal(sentence) > 0 && !(PLEASANTRY.test(sentence.text) && signal(sentence) < 2));
  const ranked = [...(candidates.length > 0 ? candidates : substantive)].sort((x, y) => weight(y) - weight(x) || x.segment.start - y.segment.start);
  const inOrder = (list: Sentence[]) => list.sort((x, y) => x.segment.start - y.segment.start);
  const keySentences = inOrder(ranked.slice(0, 8));
  // The summary quotes the four weightiest, in the order they were said.
  const summarySentences = inOrder(ranked.slice(0, 4));
  // A condition ("If the migration slips we will have a problem") is a risk, not a commitment or a step.
  const committed = (sentence: Sentence) => COMMITMENT.test(sentence.text) && !CONDITIONAL.test(sentence.text);

  const lead = input.measured.talk_ratio[0];
  const summary = [
    `${input.speakers.length} speaker${input.speakers.length === 1 ? '' : 's'} over ${durationPhrase(input.duration_seconds)}` +
      (lead ? `; ${lead.speaker} spoke ${Math.round(lead.ratio * 100)}% of the time` : '') +
      (input.measured.topics.length > 0 ? `; topics: ${input.measured.topics.slice(0, 4).join(', ').toLowerCase()}.` : '.'),
    ...summarySentences.map((sentence) => `${sentence.segment.speaker}: "${sentence.text}"`),
  ].join('\n\n');

  const bySpeaker = new Map<string, string[]>();
  for (const segment of input.segments) bySpeaker.set(segment.speaker_id, [...(bySpeaker.get(segment.speaker_id) ?? []), segment.text]);

  return {
    summary,
    key_points: keySentences.map((sentence) => `${sentence.segment.speaker}: ${sentence.text}`),
    action_items: substantive
      .filter(committed)
      .map((sentence) => ({ text: sentence.text, owner_speaker_id: sentence.segment.speaker_id, due: dueDateOf(sentence.text, input.held_on ?? null) })),
    next_steps: substantive
      .filter((sentence) => (NEXT_STEP.test(sentence.text) && !CONDITIONAL.test(sentence.text)) || committed(sentence))
      .slice(-20)
      .map((sentence) => sentence.text),
    risks: substantive.flatMap((sentence) => {
      const severity = risks.get(sentence) ?? null;
      return severity ? [{ text: sentence.text, severity }] : [];
    }),
    sentiment: {
      overall: sentimentOf(input.segments.map((segment) => segment.text)),
      per_speaker: [...bySpeaker.entries()].map(([speaker_id, texts]) => ({ speaker_id, ...sentimentOf(texts) })),
    },
  };
}

/** A call's length as said: seconds under a minute, else whole minutes. */
export function durationPhrase(seconds: number): string {
  if (seconds < 59.5) {
    const whole = Math.max(1, Math.round(seconds));
    return `${whole} second${whole === 1 ? '' : 's'}`;
  }
  const minutes = Math.round(seconds / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

/**
 * The date a commitment names ("by Friday", "next Tuesday", "on March 3"), as YYYY-MM-DD, read with chrono
 * relative to the day of the call (UTC) and never before it; null when it names none or the day is unknown.
 */
export function dueDateOf(text: string, heldOn: string | null): string | null {
  if (!heldOn) return null;
  const instant = new Date(`${heldOn}T12:00:00Z`);
  if (!Number.isFinite(instant.getTime())) return null;
  const dates = chrono.parse(text, { instant, timezone: 'UTC' }, { forwardDate: true });
  // A deadline ("by Friday") before any other date the sentence names ("the training for Tuesday").
  const found = dates.find((date) => /\b(?:by|before|until|no later than|due)\s*$/i.test(text.slice(0, date.index))) ?? dates[0];
  if (!found) return null;
  const due = found.start.date();
  return due.getTime() >= instant.getTime() - 12 * 3600_000 ? due.toISOString().slice(0, 10) : null;
}
