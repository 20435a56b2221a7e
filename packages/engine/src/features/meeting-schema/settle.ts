// The rules a schema result obeys whoever drafted it (the model or the offline extractor), applied in code:
// every value coerced to its field_type (or null), every quote checked verbatim against the transcript (a
// quote not found is dropped, its evidence with it, and the confidence lowered), evidence spans taken from
// the segments the quote is in (real speaker and times), scores clamped to the rubric, and the overall
// score computed as the weighted mean (DECISIONS.md, Meeting schemas).
import type { MeetingSchemaEvidenceSpan, MeetingSchemaField, MeetingSchemaFieldValue, MeetingTranscriptSegment } from '@persona-api/types';
import { round } from '../../text/index.js';

/** What an extractor proposes for one field, before the rules. */
export interface FieldDraft {
  field_name: string;
  value: unknown;
  quote?: string | null | undefined;
  confidence?: number | null | undefined;
  score?: number | null | undefined;
  score_rationale?: string | null | undefined;
  /** More transcript passages the value rests on (a list's items); each becomes evidence when found verbatim. */
  evidence_quotes?: readonly string[] | undefined;
}

export interface SettledExtraction {
  field_values: MeetingSchemaFieldValue[];
  scores: Record<string, number>;
  /** Null when no field is scored. */
  overall_score: number | null;
  evidence: MeetingSchemaEvidenceSpan[];
  /** Quotes proposed but not found verbatim in the transcript (dropped). */
  dropped_quotes: number;
}

/** A quote that is not found keeps this share of its confidence. */
export const UNVERIFIED_QUOTE_PENALTY = 0.5;
const MAX_EVIDENCE = 500;

// Case, whitespace, typographic quotes and dashes folded: the comparison a reader would make.
const fold = (text: string) => text.toLowerCase().replace(/[’‘]/g, "'").replace(/[“”]/g, '"').replace(/[–—]/g, '-').replace(/\s+/g, ' ').trim();

/**
 * The segments a quote comes from, when it occurs verbatim (folded) in the transcript, possibly across
 * consecutive segments; null when it does not occur. Leading and trailing punctuation of the quote is
 * ignored ("budget approved." matches "budget approved,").
 */
export function locateQuote(quote: string, segments: readonly MeetingTranscriptSegment[]): MeetingTranscriptSegment[] | null {
  const needle = fold(quote).replace(/^[\s"'.,;:!?-]+|[\s"'.,;:!?-]+$/g, '');
  if (needle.length < 3) return null;
  let joined = '';
  const starts: number[] = [];
  for (const segment of segments) {
    starts.push(joined.length);
    joined += `${fold(segment.text)} `;
  }
  const at = joined.indexOf(needle);
  if (at < 0) return null;
  const end = at + needle.length;
  const found: MeetingTranscriptSegment[] = [];
  segments.forEach((segment, index) => {
    const start = starts[index]!;
    const stop = index + 1 < starts.length ? starts[index + 1]! : joined.length;
    if (start < end && stop > at) found.push(segment);
  });
  return found;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The value as its field_type requires (MeetingSchemaFieldType), or null when it cannot be. */
export function coerceValue(field: MeetingSchemaField, value: unknown): MeetingSchemaFieldValue['value'] {
  if (value === null || value === undefined) return null;
  switch (field.field_type) {
    case 'text':
    case 'long_text': {
      if (typeof value !== 'string' || value.trim() === '') return null;
      return value.trim().slice(0, field.field_type === 'text' ? 1000 : 10000);
    }
    case 'number': {
      const number = typeof value === 'string' ? Number(value.replace(/[, ]/g, '')) : value;
      return typeof number === 'number' && Number.isFinite(number) ? number : null;
    }
    case 'currency': {
      if (!isObject(value)) return null;
      const amount = Number(value.amount);
      const currency = String(value.currency ?? '').toUpperCase();
      return Number.isFinite(amount) && amount >= 0 && /^[A-Z]{3}$/.test(currency) ? { amount, currency } : null;
    }
    case 'date': {
      if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return null;
      const parsed = new Date(`${value}T00:00:00Z`);
      return !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(value) ? value : null;
    }
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'enum': {
      if (typeof value !== 'string') return null;
      return field.enum_options.find((option) => option.toLowerCase() === value.trim().toLowerCase()) ?? null;
    }
    case 'multi_enum': {
      if (!Array.isArray(value)) return null;
      const chosen = field.enum_options.filter((option) =>
        value.some((item) => typeof item === 'string' && item.trim().toLowerCase() === option.toLowerCase()),
      );
      return chosen.length > 0 ? chosen : null;
    }
    case 'list': {
      if (!Array.isArray(value)) return null;
      const items = [
        ...new Set(value.filter((item): item is string => typeof item === 'string' && item.trim() !== '').map((item) => item.trim().slice(0, 1000))),
      ];
      return items.length > 0 ? items.slice(0, 100) : null;
    }
    case 'person': {
      if (!isObject(value) || typeof value.name !== 'string' || value.name.trim() === '') return null;
      const email = typeof value.email === 'string' && EMAIL.test(value.email) && value.email.length <= 254 ? value.email : null;
      const speakerId = typeof value.speaker_id === 'string' && /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(value.speaker_id) ? value.speaker_id : null;
      return {
        name: value.name.trim().slice(0, 100),
        title: typeof value.title === 'string' && value.title.trim() !== '' ? value.title.trim().slice(0, 100) : null,
        email,
        speaker_id: speakerId,
      };
    }
  }
}

/** The rubric's range of a scored field: 0 to max_score, with the weight (default 1). */
const rubricOf = (field: MeetingSchemaField) => ({ max: field.scoring_rubric.max_score ?? 0, weight: field.scoring_rubric.weight ?? 1 });

/**
 * The overall score: Σ(weight × score / max_score × 100) / Σ weight over the scored fields, rounded to 0.1;
 * null without scored fields (or when every weight is 0).
 */
export function overallScore(fields: readonly MeetingSchemaField[], scores: Readonly<Record<string, number>>): number | null {
  let weighted = 0;
  let weights = 0;
  for (const field of fields) {
    const score = scores[field.name];
    const { max, weight } = rubricOf(field);
    if (score === undefined || max <= 0) continue;
    weighted += weight * (score / max) * 100;
    weights += weight;
  }
  return weights > 0 ? round(weighted / weights, 1) : null;
}

/** Applies the rules to drafts (one per field at most; missing fields are not found), in the schema's field order. */
export function settleExtraction(
  fields: readonly MeetingSchemaField[],
  drafts: readonly FieldDraft[],
  segments: readonly MeetingTranscriptSegment[],
): SettledExtraction {
  const byName = new Map(drafts.map((draft) => [draft.field_name, draft]));
  const field_values: MeetingSchemaFieldValue[] = [];
  const scores: Record<string, number> = {};
  const evidence: MeetingSchemaEvidenceSpan[] = [];
  let dropped = 0;
  for (const field of [...fields].sort((a, b) => a.order - b.order)) {
    const draft = byName.get(field.name);
    let value = coerceValue(field, draft?.value);
    let confidence = Math.min(1, Math.max(0, draft?.confidence ?? (value === null ? 0 : 0.5)));
    let quote: string | undefined;
    let spans: MeetingTranscriptSegment[] | null = null;
    if (draft?.quote && draft.quote.trim() !== '') {
      spans = locateQuote(draft.quote, segments);
      if (spans) quote = draft.quote.trim().slice(0, 2000);
      else {
        dropped += 1;
        confidence *= UNVERIFIED_QUOTE_PENALTY;
      }
    }
    // A value that must cite evidence and has no verified quote is not reported.
    if (field.requires_evidence && !quote) value = null;
    if (value === null) confidence = Math.min(confidence, 0.2);
    const entry: MeetingSchemaFieldValue = {
      field_name: field.name,
      field_label: field.label,
      field_type: field.field_type,
      is_required: field.is_required,
      value,
      confidence: round(confidence, 2),
    };
    if (quote && value !== null) entry.quote = quote;
    if (field.scoring_enabled) {
      const { max } = rubricOf(field);
      const lowest = Math.min(...(field.scoring_rubric.criteria ?? []).map((criterion) => criterion.score), max);
      const raw = typeof draft?.score === 'number' && Number.isFinite(draft.score) ? draft.score : lowest;
      const score = round(Math.min(max, Math.max(0, value === null ? Math.min(raw, lowest) : raw)), 2);
      entry.score = score;
      entry.score_rationale = (
        value === null && !(draft?.score_rationale && typeof draft.score === 'number' && draft.score <= lowest)
          ? `Not found in the transcript: scored at the rubric's lowest level (${lowest} of ${max}).`
          : (draft?.score_rationale ?? `Scored ${score} of ${max}.`)
      ).slice(0, 2000);
      scores[field.name] = score;
    }
    field_values.push(entry);
    if (quote && value !== null && spans) {
      const more = (draft?.evidence_quotes ?? []).flatMap((extra) => locateQuote(extra, segments) ?? []);
      const seen = new Set<string>();
      for (const segment of [...spans, ...more]) {
        if (seen.has(segment.id)) continue;
        seen.add(segment.id);
        if (evidence.length >= MAX_EVIDENCE) break;
        evidence.push({
          field_name: field.name,
          text: segment.text.slice(0, 2000),
          speaker: segment.speaker,
          speaker_id: segment.speaker_id,
          timestamp_start: segment.start,
          timestamp_end: segment.end,
        });
      }
    }
  }
  return { field_values, scores, overall_score: overallScore(fields, scores), evidence, dropped_quotes: dropped };
}
