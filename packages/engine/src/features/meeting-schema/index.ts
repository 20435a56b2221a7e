// Meeting schema extraction (schema results): the fields of a meeting schema read from a transcript.
// Upstream: the model gets the fields (type, options, rubric, whether evidence is required) and the
// numbered transcript, and replies with a value, a verbatim quote, a confidence and a score per field.
// Offline: the values are read from the transcript's own sentences (offline.ts). Either way the result
// goes through the same rules in code (settle.ts): values typed, quotes verified verbatim (a quote not
// found is dropped and lowers the confidence), evidence spans from the real segments, scores clamped to
// the rubric, the overall score computed as the weighted mean.
import type { MeetingSchemaCategory, MeetingSchemaField, MeetingSpeaker, MeetingTranscriptSegment } from '@persona-api/types';
import type { JsonSchema } from '../../types.js';
import { defineFeature } from '../define.js';
import { extractField, sentencesOf } from './offline.js';
import { settleExtraction, type FieldDraft, type SettledExtraction } from './settle.js';

export { coerceValue, locateQuote, overallScore, settleExtraction, UNVERIFIED_QUOTE_PENALTY, type FieldDraft, type SettledExtraction } from './settle.js';
export { dateIn, numbersIn } from './offline.js';

export interface MeetingSchemaExtractionInput {
  schema: { name: string; description: string | null; category: MeetingSchemaCategory; fields: MeetingSchemaField[] };
  segments: MeetingTranscriptSegment[];
  speakers: MeetingSpeaker[];
  /** The day of the meeting (YYYY-MM-DD): the year of dates said without one, the week of "by Friday". */
  meeting_date: string;
}

// The transcript as the prompt carries it: bounded for the context window (≈ 2 hours of talk).
const PROMPT_TRANSCRIPT_CHARS = 120_000;

const valueSchema = (field: MeetingSchemaField): JsonSchema => {
  const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [{ type: 'null' }, schema] });
  switch (field.field_type) {
    case 'text':
    case 'long_text':
      return nullable({ type: 'string' });
    case 'number':
      return nullable({ type: 'number' });
    case 'date':
      return nullable({ type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' });
    case 'boolean':
      return nullable({ type: 'boolean' });
    case 'enum':
      return nullable({ type: 'string', enum: field.enum_options });
    case 'multi_enum':
      return nullable({ type: 'array', items: { type: 'string', enum: field.enum_options } });
    case 'list':
      return nullable({ type: 'array', items: { type: 'string' } });
    case 'currency':
      return nullable({
        type: 'object',
        additionalProperties: false,
        required: ['amount', 'currency'],
        properties: { amount: { type: 'number', minimum: 0 }, currency: { type: 'string', pattern: '^[A-Z]{3}$' } },
      });
    case 'person':
      return nullable({
        type: 'object',
        additionalProperties: false,
        required: ['name', 'title', 'email', 'speaker_id'],
        properties: {
          name: { type: 'string' },
          title: { type: ['string', 'null'] },
          email: { type: ['string', 'null'] },
          speaker_id: { type: ['string', 'null'] },
        },
      });
  }
};

/** One entry per field, in order, each with the value typed by its field_type. */
const replySchema = (input: MeetingSchemaExtractionInput): JsonSchema => ({
  type: 'object',
  additionalProperties: false,
  required: ['fields'],
  properties: {
    fields: {
      type: 'array',
      maxItems: input.schema.fields.length,
      items: {
        anyOf: input.schema.fields.map((field) => ({
          type: 'object',
          additionalProperties: false,
          required: ['field_name', 'value', 'quote', 'confidence', 'score', 'score_rationale'],
          properties: {
            field_name: { const: field.name },
            value: valueSchema(field),
            quote: { type: ['string', 'null'], maxLength: 2000 },
            confidence: { type: 'number', minimum: 0, maximum: 1 },
            score: field.scoring_enabled ? { type: ['number', 'null'], minimum: 0, maximum: field.scoring_rubric.max_score ?? 100 } : { type: 'null' },
            score_rationale: { type: ['string', 'null'], maxLength: 2000 },
          },
        })),
      },
    },
  },
});

function describeField(field: MeetingSchemaField): string {
  const lines = [
    `- ${field.name} (${field.label}): ${field.field_type}${field.is_required ? ', required' : ''}${field.requires_evidence ? ', needs a verbatim quote' : ''}`,
  ];
  if (field.enum_options.length > 0) lines.push(`  options: ${field.enum_options.join(', ')}`);
  if (field.scoring_enabled) {
    lines.push(`  score 0–${field.scoring_rubric.max_score} by this rubric:`);
    for (const criterion of field.scoring_rubric.criteria ?? []) lines.push(`    ${criterion.score}: ${criterion.description}`);
  }
  return lines.join('\n');
}

export const meetingSchemaExtraction = defineFeature<MeetingSchemaExtractionInput, SettledExtraction>({
  name: 'meeting_schema_result',
  schema: replySchema,
  prompt: (input) => {
    let transcript = '';
    for (const segment of input.segments) {
      const line = `[${segment.id} ${segment.start.toFixed(1)}–${segment.end.toFixed(1)}s] ${segment.speaker}: ${segment.text}\n`;
      if (transcript.length + line.length > PROMPT_TRANSCRIPT_CHARS) break;
      transcript += line;
    }
    return [
      {
        role: 'system',
        content: [
          `You fill in the meeting schema "${input.schema.name}" (${input.schema.category})${input.schema.description ? `: ${input.schema.description}` : '.'}`,
          'Read the transcript and give, for every field below, the value the call provides, typed as the field requires (dates as YYYY-MM-DD; people with the speaker id when they spoke).',
          'Use null when the call does not provide a value; never guess. `quote` must be words copied exactly from one transcript line (without the bracketed prefix), or null.',
          'Score scored fields against their rubric from the evidence only, and explain the score in `score_rationale`. `confidence` is how sure you are of the value (0–1).',
          `The meeting took place on ${input.meeting_date}.`,
          '',
          'Fields:',
          ...input.schema.fields.map(describeField),
        ].join('\n'),
      },
      { role: 'user', content: `Transcript:\n${transcript}` },
    ];
  },
  fromReply: (reply, input) => settleExtraction(input.schema.fields, (reply as { fields: FieldDraft[] }).fields, input.segments),
  offline: (input) => {
    const sentences = sentencesOf(input.segments);
    const drafts = input.schema.fields.map((field) => extractField(field, sentences, input.speakers, input.meeting_date));
    return settleExtraction(input.schema.fields, drafts, input.segments);
  },
});
