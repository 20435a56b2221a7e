// Meeting schema extraction: the offline extractor reads values from the transcript's own sentences, and
// the rules in code (quotes verified verbatim, evidence from the real segments, scores clamped, overall
// score as the weighted mean) apply to both engines; the upstream path through the fake upstream.
import type { MeetingSchemaField } from '@persona-api/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createOfflineEngine,
  createOpenAICompatibleEngine,
  dateIn,
  meetingSchemaExtraction,
  numbersIn,
  type Engine,
  type MeetingSchemaExtractionInput,
} from '../../src/index.js';
import { startFakeUpstream, type FakeUpstream } from '../../src/testing/index.js';
import { segmentsOf, type TranscriptLine } from '../support/transcript.js';

const lines: TranscriptLine[] = [
  ['spk_1', 'Elena Park', 0.8, 8.4, 'Thanks for making the time, Marcus. What prompted you to look at call recording now?'],
  ['spk_2', 'Marcus Chen', 9, 21.6, 'Our patient-outreach campaigns convert at about two percent, and leadership wants that doubled before June.'],
  ['spk_1', 'Elena Park', 31.8, 36.5, 'Is there budget set aside for a tool like this?'],
  ['spk_2', 'Marcus Chen', 37, 48.3, 'We have eighty thousand dollars approved for sales tooling this year. I sign off on anything under a hundred thousand.'],
  ['spk_2', 'Marcus Chen', 54.5, 62.8, 'About 45 reps across two teams, plus four managers who review calls every week.'],
  ['spk_2', 'Marcus Chen', 71.3, 83.7, 'Ideally by January 15th, so we can measure it against the spring campaign.'],
  ['spk_2', 'Marcus Chen', 91.5, 104.2, 'We are also evaluating Gong. Honestly my main concern is price, because Gong quoted us more than we expected.'],
  ['spk_1', 'Elena Park', 116.1, 127.4, 'I will send over the security documentation and a pricing proposal by Friday.'],
];
const segments = segmentsOf(lines);

let order = 0;
const field = (partial: Partial<MeetingSchemaField> & Pick<MeetingSchemaField, 'name' | 'label' | 'field_type'>): MeetingSchemaField => ({
  id: `msf_test${order}`,
  is_required: false,
  requires_evidence: true,
  enum_options: [],
  scoring_enabled: false,
  scoring_rubric: {},
  crm_field_mapping: {},
  order: order++,
  ...partial,
});

const fields: MeetingSchemaField[] = [
  field({
    name: 'budget',
    label: 'Budget',
    field_type: 'currency',
    is_required: true,
    scoring_enabled: true,
    scoring_rubric: {
      max_score: 10,
      weight: 2,
      criteria: [
        { score: 0, description: 'No budget was mentioned.' },
        { score: 5, description: 'Budget exists but is not approved.' },
        { score: 10, description: 'Budget is approved for this purchase this year.' },
      ],
    },
  }),
  field({ name: 'decision_maker', label: 'Decision maker', field_type: 'person' }),
  field({ name: 'target_date', label: 'Target go-live date', field_type: 'date' }),
  field({ name: 'seats', label: 'Number of users', field_type: 'number' }),
  field({ name: 'competitors', label: 'Competitors mentioned', field_type: 'multi_enum', enum_options: ['Gong', 'Chorus', 'Clari'] }),
  field({ name: 'objections', label: 'Objections and concerns', field_type: 'list' }),
  field({ name: 'pain', label: 'Business pain', field_type: 'long_text' }),
  field({
    name: 'next_steps_agreed',
    label: 'Next step agreed',
    field_type: 'boolean',
    scoring_enabled: true,
    scoring_rubric: {
      max_score: 4,
      criteria: [
        { score: 0, description: 'No next step.' },
        { score: 4, description: 'The seller will send a proposal by a date.' },
      ],
    },
  }),
  field({ name: 'renewal_term', label: 'Renewal term', field_type: 'text' }),
];

const input: MeetingSchemaExtractionInput = {
  schema: { name: 'Test discovery', description: null, category: 'qualification', fields },
  segments,
  speakers: [
    { id: 'spk_1', name: 'Elena Park', is_host: true },
    { id: 'spk_2', name: 'Marcus Chen', is_host: false },
  ],
  meeting_date: '2026-11-18',
};

const transcriptText = segments.map((segment) => segment.text).join(' ');
const valueIn = (output: { field_values: { field_name: string; value: unknown }[] }, name: string) =>
  output.field_values.find((entry) => entry.field_name === name)?.value;

describe('meeting schema extraction, offline', () => {
  const engine = createOfflineEngine();

  it('reads every field type from the transcript, quotes verbatim with real speakers and times', async () => {
    const { output } = await engine.run(meetingSchemaExtraction, input);
    expect(output.field_values.map((entry) => entry.field_name)).toEqual(fields.map((f) => f.name));
    expect(valueIn(output, 'budget')).toEqual({ amount: 80_000, currency: 'USD' });
    expect(valueIn(output, 'decision_maker')).toMatchObject({ name: 'Marcus Chen', speaker_id: 'spk_2' });
    // "by January 15th" said on 2026-11-18: the next January 15th.
    expect(valueIn(output, 'target_date')).toBe('2027-01-15');
    expect(valueIn(output, 'seats')).toBe(45);
    expect(valueIn(output, 'competitors')).toEqual(['Gong']);
    expect(valueIn(output, 'objections')).toEqual(expect.arrayContaining(['Honestly my main concern is price, because Gong quoted us more than we expected.']));
    expect(valueIn(output, 'next_steps_agreed')).toBe(true);
    // Nothing in the call is about a renewal term: null, not invented.
    expect(valueIn(output, 'renewal_term')).toBeNull();
    for (const entry of output.field_values) {
      if (entry.quote) expect(transcriptText).toContain(entry.quote);
      if (entry.value !== null) expect(entry.quote).toBeTruthy();
    }
    const budgetEvidence = output.evidence.filter((span) => span.field_name === 'budget');
    expect(budgetEvidence).toEqual([
      { field_name: 'budget', text: lines[3]![4], speaker: 'Marcus Chen', speaker_id: 'spk_2', timestamp_start: 37, timestamp_end: 48.3 },
    ]);
  });

  it('scores against the rubric and computes the overall score as the weighted mean', async () => {
    const { output } = await engine.run(meetingSchemaExtraction, input);
    const budget = output.field_values.find((entry) => entry.field_name === 'budget')!;
    expect(budget.score).toBe(10);
    expect(budget.score_rationale).toContain('approved');
    expect(output.scores).toEqual({ budget: 10, next_steps_agreed: output.scores.next_steps_agreed });
    const expected = (2 * (output.scores.budget! / 10) * 100 + 1 * (output.scores.next_steps_agreed! / 4) * 100) / 3;
    expect(output.overall_score).toBeCloseTo(expected, 1);
  });

  it('is deterministic and reads numbers and dates as said', async () => {
    expect((await engine.run(meetingSchemaExtraction, input)).output).toEqual((await engine.run(meetingSchemaExtraction, input)).output);
    expect(numbersIn('We have eighty thousand dollars and $1,200 for 2.5k seats').map((n) => n.value)).toEqual([80_000, 1_200, 2_500]);
    expect(dateIn('the fifteenth of January', '2026-11-18')).toBe('2027-01-15');
    expect(dateIn('by Friday', '2026-11-18')).toBe('2026-11-20');
    expect(dateIn('March 3rd, 2027', '2026-11-18')).toBe('2027-03-03');
    expect(dateIn('sometime next year', '2026-11-18')).toBeNull();
  });
});

describe('meeting schema extraction, upstream', () => {
  let fake: FakeUpstream;
  let engine: Engine;
  beforeAll(async () => {
    fake = await startFakeUpstream({ apiKey: 'sk-test' });
    engine = createOpenAICompatibleEngine({
      baseUrl: fake.baseUrl,
      apiKey: 'sk-test',
      model: 'fake-gpt',
      timeoutMs: 2000,
      reasoning: false,
      contextWindow: 128_000,
      maxOutputTokens: 8_000,
    });
  });
  afterAll(() => fake.close());

  it('keeps verified quotes, drops invented ones (lowering confidence), clamps nothing the rubric allows', async () => {
    const reply = {
      fields: [
        {
          field_name: 'budget',
          value: { amount: 80000, currency: 'USD' },
          quote: 'We have eighty thousand dollars approved for sales tooling this year.',
          confidence: 0.9,
          score: 8,
          score_rationale: 'Approved budget, but may not cover a full rollout.',
        },
        // A quote that is nowhere in the transcript: dropped, and the value (which requires evidence) with it.
        {
          field_name: 'decision_maker',
          value: { name: 'Dana Whitfield', title: 'CFO', email: null, speaker_id: null },
          quote: 'Dana signs every contract.',
          confidence: 0.8,
          score: null,
          score_rationale: null,
        },
        { field_name: 'target_date', value: '2027-01-15', quote: 'ideally by   January 15th', confidence: 0.7, score: null, score_rationale: null },
        { field_name: 'seats', value: 45, quote: null, confidence: 0.6, score: null, score_rationale: null },
      ],
    };
    fake.enqueue({ content: JSON.stringify(reply) });
    const { output } = await engine.run(meetingSchemaExtraction, input);
    const request = fake.requests.at(-1)!.body;
    expect(request.response_format.type).toBe('json_schema');
    expect(request.messages[1].content).toContain('[seg_0004 37.0–48.3s] Marcus Chen: We have eighty thousand dollars');

    const byName = Object.fromEntries(output.field_values.map((entry) => [entry.field_name, entry]));
    expect(byName.budget).toMatchObject({ value: { amount: 80000, currency: 'USD' }, confidence: 0.9, score: 8 });
    expect(byName.decision_maker).toMatchObject({ value: null });
    expect(byName.decision_maker!.quote).toBeUndefined();
    expect(byName.decision_maker!.confidence).toBeLessThanOrEqual(0.2);
    // Case and whitespace are folded when checking; the evidence is the real segment.
    expect(byName.target_date).toMatchObject({ value: '2027-01-15', quote: 'ideally by   January 15th' });
    expect(output.evidence.find((span) => span.field_name === 'target_date')).toMatchObject({ speaker: 'Marcus Chen', timestamp_start: 71.3 });
    // requires_evidence without a quote: not reported.
    expect(byName.seats!.value).toBeNull();
    expect(output.dropped_quotes).toBe(1);
    // Fields the model left out are not found; a scored one gets the rubric's lowest level.
    expect(byName.next_steps_agreed).toMatchObject({ value: null, score: 0 });
    expect(output.overall_score).toBeCloseTo((2 * 80 + 1 * 0) / 3, 1);
  });
});
