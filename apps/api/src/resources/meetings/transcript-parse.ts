import type { MeetingSpeaker, MeetingTranscriptSegment } from '@persona-api/types';

/** A transcript as imported or simulated, before it is stored (DECISIONS.md, Meetings: the bounds). */
export interface ParsedTranscript {
  speakers: MeetingSpeaker[];
  segments: MeetingTranscriptSegment[];
  durationSeconds: number;
  wordCount: number;
}

/** Why a transcript file could not be read, said to the user as the meeting's `fatal` reason. */
export class TranscriptFormatError extends Error {
  override name = 'TranscriptFormatError';
}

export const MAX_SEGMENTS = 20_000;
export const MAX_SEGMENT_CHARS = 5_000;
export const MAX_SECONDS = 14_400;
const MAX_SPEAKERS = 1_000;

export interface RawCue {
  speaker: string | null;
  start: number;
  end: number;
  text: string;
  confidence?: number;
}

/** `hh:mm:ss.mmm`, `mm:ss.mmm` (VTT) or `hh:mm:ss,mmm` (SRT) in seconds. */
function timestamp(value: string): number {
  const match = /^(?:(\d+):)?(\d{1,2}):(\d{1,2})[.,](\d{1,3})$/.exec(value.trim());
  if (!match) throw new TranscriptFormatError(`"${value.trim().slice(0, 40)}" is not a cue timestamp.`);
  const [, hours, minutes, seconds, fraction] = match;
  return Number(hours ?? 0) * 3600 + Number(minutes) * 60 + Number(seconds) + Number(fraction!.padEnd(3, '0')) / 1000;
}

/** `<v Name>text</v>` (VTT voice tags) or `Name: text` at the start of a cue. */
function speakerOf(text: string): { speaker: string | null; text: string } {
  const voice = /^<v(?:\.[^\s>]+)*\s+([^>]+)>([\s\S]*?)(?:<\/v>)?$/.exec(text);
  if (voice) return { speaker: voice[1]!.trim(), text: voice[2]!.replace(/<[^>]+>/g, '').trim() };
  const plain = text.replace(/<[^>]+>/g, '').trim();
  const named = /^([A-Z][\p{L}.' -]{0,60}?):\s+(\S[\s\S]*)$/u.exec(plain);
  if (named) return { speaker: named[1]!.trim(), text: named[2]!.trim() };
  return { speaker: null, text: plain };
}

/** Cues of a WebVTT or SRT file: blocks separated by blank lines with a `start --> end` line. */
function parseCueBlocks(source: string, format: 'WebVTT' | 'SRT'): RawCue[] {
  const cues: RawCue[] = [];
  const blocks = source.replace(/\r\n?/g, '\n').split(/\n{2,}/);
  for (const block of blocks) {
    const lines = block.split('\n').filter((line) => line.trim() !== '');
    const timing = lines.findIndex((line) => line.includes('-->'));
    if (timing < 0) continue;
    const [from, rest] = lines[timing]!.split('-->');
    const to = rest!.trim().split(/\s+/)[0]!;
    const { speaker, text } = speakerOf(lines.slice(timing + 1).join(' '));
    if (text === '') continue;
    cues.push({ speaker, start: timestamp(from!), end: timestamp(to), text });
  }
  if (cues.length === 0) throw new TranscriptFormatError(`The ${format} file has no cues with text.`);
  return cues;
}

function parseJson(source: string): RawCue[] {
  let document: unknown;
  try {
    document = JSON.parse(source);
  } catch {
    throw new TranscriptFormatError('The JSON transcript is not valid JSON.');
  }
  const list = Array.isArray(document) ? document : (document as { segments?: unknown })?.segments;
  if (!Array.isArray(list) || list.length === 0) {
    throw new TranscriptFormatError('A JSON transcript is an array of {speaker, start, end, text} segments, or {"segments": [...]}.');
  }
  return list.map((item, index) => {
    const segment = item as Record<string, unknown>;
    const speaker = segment.speaker ?? segment.speaker_name ?? (segment.participant as { name?: unknown } | undefined)?.name ?? null;
    if (typeof segment.text !== 'string' || typeof segment.start !== 'number' || typeof segment.end !== 'number') {
      throw new TranscriptFormatError(`Segment ${index} of the JSON transcript needs a text and numeric start and end (seconds).`);
    }
    return {
      speaker: typeof speaker === 'string' && speaker.trim() !== '' ? speaker.trim() : null,
      start: segment.start,
      end: segment.end,
      text: segment.text.trim(),
      ...(typeof segment.confidence === 'number' ? { confidence: segment.confidence } : {}),
    };
  });
}

/** Which format a transcript file is in, from its name, type and first bytes. */
export function transcriptFormatOf(name: string, type: string, head: string): 'vtt' | 'srt' | 'json' | null {
  const lowerName = name.toLowerCase();
  const start = head.replace(/^\uFEFF/, '').trimStart();
  if (start.startsWith('WEBVTT') || lowerName.endsWith('.vtt') || type === 'text/vtt') return 'vtt';
  if (lowerName.endsWith('.srt') || type === 'application/x-subrip' || /^\d+\s*\n\s*\d{1,2}:\d{2}:\d{2},\d{3}\s*-->/.test(start)) return 'srt';
  if (lowerName.endsWith('.json') || type === 'application/json' || start.startsWith('[') || start.startsWith('{')) return 'json';
  return null;
}

/** Normalises cues into the stored transcript: time order, speakers `spk_n`, segments `seg_0001`, bounds. */
export function buildTranscript(cues: readonly RawCue[], hostName: string | null = null): ParsedTranscript {
  const ordered = cues
    .filter((cue) => cue.text.trim() !== '')
    .map((cue) => ({ ...cue, start: Math.max(0, cue.start), end: Math.max(cue.start, cue.end) }))
    .sort((x, y) => x.start - y.start);
  if (ordered.length === 0) throw new TranscriptFormatError('The transcript has no spoken text.');
  if (ordered.length > MAX_SEGMENTS) throw new TranscriptFormatError(`The transcript has ${ordered.length} segments; at most ${MAX_SEGMENTS} are kept.`);
  const last = Math.max(...ordered.map((cue) => cue.end));
  if (last > MAX_SECONDS)
    throw new TranscriptFormatError(`The transcript runs ${Math.round(last)} seconds; recordings are at most 4 hours (${MAX_SECONDS} s).`);
  const speakerIds = new Map<string, string>();
  const speakers: MeetingSpeaker[] = [];
  const idOf = (name: string | null) => {
    const key = name ?? `Speaker ${speakers.length + 1}`;
    let id = speakerIds.get(key);
    if (!id) {
      if (speakers.length >= MAX_SPEAKERS) throw new TranscriptFormatError(`The transcript has more than ${MAX_SPEAKERS} speakers.`);
      id = `spk_${speakers.length + 1}`;
      speakerIds.set(key, id);
      speakers.push({ id, name: key.slice(0, 100), is_host: hostName !== null ? key === hostName : speakers.length === 0 });
    }
    return { id, name: key.slice(0, 100) };
  };
  const segments = ordered.map((cue, index): MeetingTranscriptSegment => {
    const speaker = idOf(cue.speaker);
    return {
      id: `seg_${String(index + 1).padStart(4, '0')}`,
      speaker_id: speaker.id,
      speaker: speaker.name,
      text: cue.text.replace(/\s+/g, ' ').slice(0, MAX_SEGMENT_CHARS),
      start: round(cue.start),
      end: round(cue.end),
      // Imported text was already recognised; its confidence is unknown, reported as certain.
      confidence: Math.min(1, Math.max(0, cue.confidence ?? 1)),
    };
  });
  const wordCount = segments.reduce((sum, segment) => sum + (segment.text.match(/\S+/g)?.length ?? 0), 0);
  return { speakers, segments, durationSeconds: round(last), wordCount };
}

const round = (seconds: number) => Math.round(seconds * 1000) / 1000;

/** Parses a transcript file's text (WebVTT, SRT or JSON segments). Throws TranscriptFormatError with the reason. */
export function parseTranscriptFile(text: string, format: 'vtt' | 'srt' | 'json'): ParsedTranscript {
  const source = text.replace(/^\uFEFF/, '');
  if (format === 'vtt') {
    if (!source.trimStart().startsWith('WEBVTT')) throw new TranscriptFormatError('A WebVTT file starts with "WEBVTT".');
    return buildTranscript(parseCueBlocks(source, 'WebVTT'));
  }
  if (format === 'srt') return buildTranscript(parseCueBlocks(source, 'SRT'));
  return buildTranscript(parseJson(source));
}
