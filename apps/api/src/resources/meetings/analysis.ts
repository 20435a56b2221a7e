import { type Engine, MEETING_TOPICS, meetingAnalysis, sentences } from '@persona-api/engine';
import type { MeetingAnalysis } from '@persona-api/types';
import type { ParsedTranscript } from './transcript-parse.js';

export type ComputedAnalysis = Omit<MeetingAnalysis, 'object' | 'meeting_id' | 'created_at' | 'updated_at'>;

const QUESTION_ANSWER_WINDOW_SECONDS = 90;

const round = (value: number, digits = 3) => Math.round(value * 10 ** digits) / 10 ** digits;
const words = (text: string) => text.match(/\S+/g)?.length ?? 0;

/**
 * The analysis of a transcript. Measured in code from the segments: talk ratio, questions (answered when
 * another speaker talks within 90 s) and topic timing. Through the engine's `meeting_analysis` feature:
 * summary, key points, action items with owners, next steps, risks and sentiment (the model upstream;
 * offline, sentences of the transcript chosen by rule), settled by the feature's rules (owners are real
 * speakers). An EngineError reaches the caller.
 */
export async function analyseTranscript(
  engine: Engine,
  transcript: ParsedTranscript,
  /** When the call took place (its join time; an import's is when it was created): due dates said as "Friday" are read from it. */
  heldAt: Date | null,
  signal?: AbortSignal,
): Promise<ComputedAnalysis> {
  const { segments, speakers } = transcript;
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

  const questions = segments
    .flatMap((segment) => sentences(segment.text).map((text) => ({ text: text.trim(), segment })))
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
    for (const [name, pattern] of Object.entries(MEETING_TOPICS)) {
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

  const { output } = await engine.run(
    meetingAnalysis,
    {
      segments,
      speakers,
      duration_seconds: transcript.durationSeconds,
      held_on: heldAt ? heldAt.toISOString().slice(0, 10) : null,
      measured: { talk_ratio, topics: topics.map((topic) => topic.name) },
    },
    { signal },
  );
  return { language: 'en', ...output, topics, talk_ratio, questions };
}
