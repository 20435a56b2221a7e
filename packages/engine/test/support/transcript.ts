import type { MeetingTranscriptSegment } from '@persona-api/types';

/** A transcript line of a fixture: speaker id, speaker name, start and end in seconds, text. */
export type TranscriptLine = [speakerId: string, speaker: string, start: number, end: number, text: string];

/** Transcript segments as the server stores them (`seg_0001`, …), from a fixture's lines. */
export function segmentsOf(lines: readonly TranscriptLine[]): MeetingTranscriptSegment[] {
  return lines.map(([speaker_id, speaker, start, end, text], index) => ({
    id: `seg_${String(index + 1).padStart(4, '0')}`,
    speaker_id,
    speaker,
    start,
    end,
    text,
    confidence: 1,
  }));
}
