// Meeting analysis: offline, every summary quote, key point, action item, next step and risk is a sentence
// of the transcript and every owner a speaker; the rules in code (settleAnalysis) hold for any draft; the
// upstream path sends the timed, speaker-labelled transcript and the measurements, and settles the reply.
import type { MeetingSpeaker } from '@persona-api/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createOfflineEngine,
  createOpenAICompatibleEngine,
  MEETING_TOPICS,
  type MeetingAnalysisInput,
  meetingAnalysis,
  settleAnalysis,
} from '../../src/index.js';
import { type FakeUpstream, startFakeUpstream } from '../../src/testing/index.js';
import { segmentsOf, type TranscriptLine } from '../support/transcript.js';

const lines: TranscriptLine[] = [
  ['spk_1', 'Ana Silva', 0, 8, 'Thanks for joining. How is the rollout going for your support team?'],
  ['spk_2', 'Ben Okafor', 8.5, 24, 'Mostly good, the agents love the new inbox. But the Zendesk integration keeps dropping tickets, which is a real problem.'],
  ['spk_1', 'Ana Silva', 24.5, 33, 'I am sorry about that. I will open an escalation with our integration engineers today.'],
  ['spk_2', 'Ben Okafor', 33.5, 47, 'Thanks. Our contract renews in March and leadership is worried, we might switch to another vendor if it is not fixed.'],
  ['spk_1', 'Ana Silva', 47.5, 58, 'Understood. Let me set up a follow-up call next week with our engineers to walk through the fix.'],
];
const segments = segmentsOf(lines);
const speakers: MeetingSpeaker[] = [
  { id: 'spk_1', name: 'Ana Silva', is_host: true },
  { id: 'spk_2', name: 'Ben Okafor', is_host: false },
];
const input: MeetingAnalysisInput = {
  segments,
  speakers,
  duration_seconds: 58,
  measured: {
    talk_ratio: [
      { speaker_id: 'spk_2', speaker: 'Ben Okafor', ratio: 0.53 },
      { speaker_id: 'spk_1', speaker: 'Ana Silva', ratio: 0.47 },
    ],
    topics: ['Integration', 'Renewal'],
  },
};
const transcriptText = segments.map((segment) => segment.text).join('\n');

describe('meeting analysis, offline', () => {
  it('is extractive: every text is a sentence of the transcript, every owner the speaker who said it', async () => {
    const { output, usage } = await createOfflineEngine().run(meetingAnalysis, input);
    expect(usage.input_tokens).toBeGreaterThan(0);
    for (const text of [...output.action_items.map((item) => item.text), ...output.next_steps, ...output.risks.map((risk) => risk.text)]) {
      expect(transcriptText).toContain(text);
    }
    for (const point of output.key_points) expect(transcriptText).toContain(point.replace(/^[^:]+: /, ''));
    expect(output.action_items.map((item) => [item.owner, item.text])).toEqual([
      ['Ana Silva', 'I will open an escalation with our integration engineers today.'],
      ['Ana Silva', 'Let me set up a follow-up call next week with our engineers to walk through the fix.'],
    ]);
    expect(output.risks).toContainEqual({
      text: 'Our contract renews in March and leadership is worried, we might switch to another vendor if it is not fixed.',
      severity: 'high',
    });
    // The measured figures are stated as given, not recomputed.
    expect(output.summary).toMatch(/^2 speakers over 58 seconds; Ben Okafor spoke 53% of the time; topics: integration, renewal\./);
    expect(output.sentiment.per_speaker.map((entry) => entry.speaker)).toEqual(['Ana Silva', 'Ben Okafor']);
    expect(output.sentiment.per_speaker.find((entry) => entry.speaker_id === 'spk_2')!.score).toBeLessThan(
      output.sentiment.per_speaker.find((entry) => entry.speaker_id === 'spk_1')!.score,
    );
  });

  it('dates a commitment from the day of the call, keeps decimals inside sentences, and says a short call in seconds', async () => {
    const call = segmentsOf([
      ['spk_1', 'Ana Silva', 0, 6, 'Churn fell to 2.1 percent last quarter. I will send the SOC 2 report by Friday.'],
      ['spk_2', 'Ben Okafor', 6.5, 12, 'Good. We will decide on the renewal on December 3.'],
      ['spk_1', 'Ana Silva', 12.5, 19, 'I will open an escalation with our engineers today.'],
    ]);
    const held = { ...input, segments: call, duration_seconds: 19, held_on: '2026-11-26' }; // a Thursday
    const { output } = await createOfflineEngine().run(meetingAnalysis, held);
    expect(output.action_items.map((item) => [item.owner, item.text, item.due])).toEqual([
      ['Ana Silva', 'I will send the SOC 2 report by Friday.', '2026-11-27'],
      ['Ben Okafor', 'We will decide on the renewal on December 3.', '2026-12-03'],
      ['Ana Silva', 'I will open an escalation with our engineers today.', '2026-11-26'],
    ]);
    expect(output.key_points).toContain('Ana Silva: Churn fell to 2.1 percent last quarter.');
    expect(output.summary).toMatch(/^2 speakers over 19 seconds;/);
    // Without the day of the call, no relative date is guessed.
    const undated = await createOfflineEngine().run(meetingAnalysis, { ...held, held_on: null });
    expect(undated.output.action_items.map((item) => item.due)).toEqual([null, null, null]);
  });

  it('keeps courtesies out of the key points and reads a price rise, a precondition and a condition as risks', async () => {
    const call = segmentsOf([
      ['spk_1', 'Ana Silva', 0, 9, 'Hi Ben, thanks so much for making the time today.'],
      ['spk_2', 'Ben Okafor', 9.5, 22, 'The team likes the dashboards, but finance flagged that your prices went up 18 percent last year.'],
      ['spk_2', 'Ben Okafor', 22.5, 35, 'I still need a SOC 2 report before legal signs anything.'],
      ['spk_1', 'Ana Silva', 35.5, 44, 'I will send the SOC 2 report by Friday.'],
      ['spk_2', 'Ben Okafor', 44.5, 58, 'If the migration slips past June we will have a problem, because the old contract ends then.'],
    ]);
    const { output } = await createOfflineEngine().run(meetingAnalysis, { ...input, segments: call, held_on: '2026-11-26' });
    expect(output.key_points.some((point) => point.includes('thanks so much'))).toBe(false);
    expect(output.summary).not.toContain('thanks so much');
    expect(output.risks).toEqual([
      { text: 'The team likes the dashboards, but finance flagged that your prices went up 18 percent last year.', severity: 'medium' },
      { text: 'I still need a SOC 2 report before legal signs anything.', severity: 'medium' },
      { text: 'If the migration slips past June we will have a problem, because the old contract ends then.', severity: 'medium' },
    ]);
    // The condition is neither a commitment nor a next step.
    expect(output.action_items.map((item) => item.text)).toEqual(['I will send the SOC 2 report by Friday.']);
    expect(output.next_steps).toEqual(['I will send the SOC 2 report by Friday.']);
  });

  it('names a topic by what is said: a SOC 2 report is security, not product feedback', () => {
    const topicsOf = (text: string) =>
      Object.entries(MEETING_TOPICS)
        .filter(([, pattern]) => pattern.test(text))
        .map(([name]) => name);
    expect(topicsOf('I will send the SOC 2 report by Friday.')).toEqual(['Security and compliance']);
    expect(topicsOf('The weekly report export has a bug since the last release.')).toEqual(['Product feedback']);
  });

  it('settles any draft: invented owners and impossible dates dropped, speakers once each, scores and lengths bounded', () => {
    const settled = settleAnalysis(
      {
        summary: `  ${'x'.repeat(6000)}`,
        key_points: ['', ...Array.from({ length: 30 }, (_, index) => `point ${index}`)],
        action_items: [
          { text: 'Send the fix', owner_speaker_id: 'spk_7', due: '2026-02-30' },
          { text: 'Review the fix', owner_speaker_id: 'spk_2', due: '2026-03-02' },
          { text: '   ', owner_speaker_id: 'spk_1', due: null },
        ],
        next_steps: [],
        risks: [{ text: 'Churn', severity: 'critical' }],
        sentiment: {
          overall: { label: 'ecstatic', score: 4 },
          per_speaker: [
            { speaker_id: 'spk_9', label: 'positive', score: 1 },
            { speaker_id: 'spk_1', label: 'positive', score: 0.5 },
            { speaker_id: 'spk_1', label: 'negative', score: -0.5 },
          ],
        },
      },
      input,
    );
    expect(settled.summary).toHaveLength(5000);
    expect(settled.key_points).toHaveLength(20);
    expect(settled.action_items).toEqual([
      { text: 'Send the fix', owner: null, owner_speaker_id: null, due: null },
      { text: 'Review the fix', owner: 'Ben Okafor', owner_speaker_id: 'spk_2', due: '2026-03-02' },
    ]);
    expect(settled.risks).toEqual([{ text: 'Churn', severity: 'medium' }]);
    expect(settled.sentiment).toEqual({
      overall: { label: 'neutral', score: 1 },
      per_speaker: [{ speaker_id: 'spk_1', speaker: 'Ana Silva', label: 'positive', score: 0.5 }],
    });
  });
});

describe('meeting analysis, upstream', () => {
  let fake: FakeUpstream;
  beforeAll(async () => {
    fake = await startFakeUpstream({ apiKey: 'sk-test' });
  });
  afterAll(async () => {
    await fake.close();
  });

  it('sends the timed transcript, the speakers and the measurements, and settles the reply', async () => {
    const engine = createOpenAICompatibleEngine({
      baseUrl: fake.baseUrl,
      apiKey: 'sk-test',
      model: 'fake-gpt',
      timeoutMs: 2000,
      reasoning: false,
      contextWindow: 128_000,
      maxOutputTokens: 8_000,
    });
    fake.enqueue({
      content: JSON.stringify({
        summary: 'Integration problems threaten the March renewal.',
        key_points: ['Zendesk integration drops tickets.'],
        action_items: [{ text: 'Open an escalation', owner_speaker_id: 'spk_1', due: null }],
        next_steps: ['Follow-up call next week.'],
        risks: [{ text: 'Vendor switch at renewal', severity: 'high' }],
        sentiment: { overall: { label: 'mixed', score: -0.2 }, per_speaker: [{ speaker_id: 'spk_2', label: 'negative', score: -0.5 }] },
      }),
    });
    const { output } = await engine.run(meetingAnalysis, input);
    const body = fake.requests.at(-1)!.body;
    expect(body.response_format.json_schema.name).toBe('meeting_analysis');
    const [system, user] = body.messages;
    expect(system.content).toContain('- spk_2: Ben Okafor');
    expect(system.content).toContain('58 seconds; talk ratio Ben Okafor 53%, Ana Silva 47%; topics Integration, Renewal');
    expect(system.content).toContain('The day of the call is unknown');
    expect(user.content).toContain('[33.5–47.0s] spk_2 (Ben Okafor): Thanks. Our contract renews in March');
    expect(output.action_items).toEqual([{ text: 'Open an escalation', owner: 'Ana Silva', owner_speaker_id: 'spk_1', due: null }]);
    expect(output.sentiment.per_speaker).toEqual([{ speaker_id: 'spk_2', speaker: 'Ben Okafor', label: 'negative', score: -0.5 }]);
  });
});
