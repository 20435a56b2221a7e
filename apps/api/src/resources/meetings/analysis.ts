import type { MeetingAnalysis, MeetingSentimentLabel, MeetingTranscriptSegment } from '@persona-api/types';
import type { ParsedTranscript } from './transcript-parse.js';

export type ComputedAnalysis = Omit<MeetingAnalysis, 'object' | 'meeting_id' | 'created_at' | 'updated_at'>;

interface Sentence {
  text: string;
  segment: MeetingTranscriptSegment;
}

const QUESTION_ANSWER_WINDOW_SECONDS = 90;

const TOPICS: Record<string, RegExp> = {
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
  'Product feedback': /\b(feature|bug|roadmap|request|dashboard|report|workflow)/i,
};

const POSITIVE = /\b(great|good|love|like|happy|excited|helpful|perfect|excellent|works well|impressed|thanks|thank you|agree|definitely|glad)\b/gi;
const NEGATIVE =
  /\b(problem|issue|concern|worried|frustrat|slow|expensive|difficult|hard|broken|bug|churn|unhappy|disappoint|blocker|risk|delay|outage|not sure)\w*/gi;
const COMMITMENT = /\b(I'll|I will|we'll|we will|let me|I can send|I'm going to|we're going to|I will follow up)\b/i;
const NEXT_STEP = /\b(next step|follow[- ]up|schedule|send (?:over|you)|set up a|book a|circle back)\b/i;
const RISK_HIGH = /\b(cancel|churn|budget freeze|no budget|switch(?:ing)? to|deal[- ]breaker|blocker|escalat)\w*/i;
const RISK_MEDIUM = /\b(concern|worried|delay|competitor|legal review|not sure|outage|expensive|too (?:much|high))\w*/i;

function sentencesOf(segments: readonly MeetingTranscriptSegment[]): Sentence[] {
  return segments.flatMap((segment) =>
    (segment.text.match(/[^.!?]+[.!?]+|[^.!?]+$/g) ?? [])
      .map((text) => text.trim())
      .filter((text) => text.length > 0)
      .map((text) => ({ text, segment })),
  );
}

const round = (value: number, digits = 3) => Math.round(value * 10 ** digits) / 10 ** digits;
const words = (text: string) => text.match(/\S+/g)?.length ?? 0;

function sentimentOf(texts: readonly string[]): { label: MeetingSentimentLabel; score: number } {
  let positive = 0;
  let negative = 0;
  for (const text of texts) {
    positive += text.match(POSITIVE)?.length ?? 0;
    negative += text.match(NEGATIVE)?.length ?? 0;
  }
  const score = round((positive - negative) / (positive + negative + 2), 2);
  const label: MeetingSentimentLabel =
    positive >= 2 && negative >= 2 && Math.abs(score) < 0.25 ? 'mixed' : score > 0.15 ? 'positive' : score < -0.15 ? 'negative' : 'neutral';
  return { label, score };
}

/**
 * The analysis computed from the transcript itself: talk ratio, questions (answered when another
 * speaker talks within 90 s), topic timing and sentiment are measured; summary, key points, action items,
 * next steps and risks are sentences of the transcript chosen by rule (extractive, never invented).
 */
export function analyseTranscript(transcript: ParsedTranscript): ComputedAnalysis {
  const { segments, speakers } = transcript;
  const sentences = sentencesOf(segments);
  const talk = new Map<string, number>();
  for (const segment of segments) talk.set(segment.speaker_id, (talk.get(segment.speaker_id) ?? 0) + (segment.end - segment.start));
  const totalTalk = [...talk.values()].reduce((sum, seconds) => sum + seconds, 0);
  const nameOf = new Map(speakers.map((speaker) => [speaker.id, speaker.name]));
  const talk_ratio = [...talk.entries()]
    .sort((x, y) => y[1] - x[1])
    .map(([speaker_id, seconds]) => ({
      speaker_id,
      speaker: nameOf.get(speaker_id) ?? speaker_id,
      talk_time_seconds: round(seconds, 1),
      ratio: totalTalk > 0 ? round(seconds / totalTalk) : round(1 / talk.size),
    }));

  const questions = sentences
    .filter((sentence) => sentence.text.endsWith('?') && words(sentence.text) >= 3)
    .slice(0, 100)
    .map((sentence) => ({
      text: sentence.text.slice(0, 1000),
      speaker_id: sentence.segment.speaker_id,
      speaker: sentence.segment.speaker,
      timestamp: sentence.segment.start,
      answered: segments.some(
        (later) =>
          later.start >= sentence.segment.start &&
          later.start - sentence.segment.end <= QUESTION_ANSWER_WINDOW_SECONDS &&
          later.speaker_id !== sentence.segment.speaker_id &&
          !later.text.trim().endsWith('?'),
      ),
    }));

  const topicTime = new Map<string, { seconds: number; first: number }>();
  for (const segment of segments) {
    for (const [name, pattern] of Object.entries(TOPICS)) {
      if (!pattern.test(segment.text)) continue;
      const entry = topicTime.get(name) ?? { seconds: 0, first: segment.start };
      entry.seconds += segment.end - segment.start;
      topicTime.set(name, entry);
    }
  }
  const topics = [...topicTime.entries()]
    .sort((x, y) => y[1].seconds - x[1].seconds)
    .slice(0, 30)
    .map(([name, entry]) => ({ name, share: totalTalk > 0 ? round(Math.min(1, entry.seconds / totalTalk)) : 0, first_mentioned_at: entry.first }));

  const bySpeaker = new Map<string, string[]>();
  for (const segment of segments) bySpeaker.set(segment.speaker_id, [...(bySpeaker.get(segment.speaker_id) ?? []), segment.text]);
  const sentiment = {
    overall: sentimentOf(segments.map((segment) => segment.text)),
    per_speaker: [...bySpeaker.entries()].map(([speaker_id, texts]) => ({ speaker_id, speaker: nameOf.get(speaker_id) ?? speaker_id, ...sentimentOf(texts) })),
  };

  // Sentences worth keeping: long enough, about a topic, a number, a commitment or a risk.
  const weight = (sentence: Sentence) =>
    Object.values(TOPICS).filter((pattern) => pattern.test(sentence.text)).length * 2 +
    (/\d/.test(sentence.text) ? 1 : 0) +
    (COMMITMENT.test(sentence.text) ? 2 : 0) +
    (RISK_MEDIUM.test(sentence.text) || RISK_HIGH.test(sentence.text) ? 1 : 0) +
    Math.min(2, words(sentence.text) / 12);
  const substantive = sentences.filter((sentence) => words(sentence.text) >= 6 && !sentence.text.endsWith('?'));
  const ranked = [...substantive].sort((x, y) => weight(y) - weight(x) || x.segment.start - y.segment.start);
  const keySentences = ranked.slice(0, 8).sort((x, y) => x.segment.start - y.segment.start);
  const key_points = keySentences.map((sentence) => `${sentence.segment.speaker}: ${sentence.text}`.slice(0, 500));

  const commitments = substantive.filter((sentence) => COMMITMENT.test(sentence.text));
  const action_items = commitments.slice(0, 50).map((sentence) => ({
    text: sentence.text.slice(0, 500),
    owner: sentence.segment.speaker,
    owner_speaker_id: sentence.segment.speaker_id,
    due: null,
  }));
  const next_steps = substantive
    .filter((sentence) => NEXT_STEP.test(sentence.text) || COMMITMENT.test(sentence.text))
    .slice(-20)
    .map((sentence) => sentence.text.slice(0, 500));
  const risks = substantive
    .filter((sentence) => RISK_HIGH.test(sentence.text) || RISK_MEDIUM.test(sentence.text))
    .slice(0, 20)
    .map((sentence) => ({ text: sentence.text.slice(0, 500), severity: RISK_HIGH.test(sentence.text) ? ('high' as const) : ('medium' as const) }));

  const minutes = Math.max(1, Math.round(transcript.durationSeconds / 60));
  const lead = talk_ratio[0];
  const summary = [
    `${speakers.length} speaker${speakers.length === 1 ? '' : 's'} over ${minutes} minute${minutes === 1 ? '' : 's'}` +
      (lead ? `; ${lead.speaker} spoke ${Math.round(lead.ratio * 100)}% of the time` : '') +
      (topics.length > 0
        ? `; topics: ${topics
            .slice(0, 4)
            .map((topic) => topic.name.toLowerCase())
            .join(', ')}.`
        : '.'),
    ...keySentences.slice(0, 4).map((sentence) => `${sentence.segment.speaker}: "${sentence.text}"`),
  ]
    .join('\n\n')
    .slice(0, 5000);

  return { language: 'en', summary, key_points, action_items, topics, sentiment, talk_ratio, questions, next_steps, risks };
}
