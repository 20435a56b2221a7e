// The focus-group features on the offline engine and through an upstream model.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basePersonas,
  createOfflineEngine,
  createOpenAICompatibleEngine,
  enginePersonaFromBase,
  focusGroupAnswer,
  focusGroupSummary,
  sentimentBreakdown,
  type Engine,
  type EnginePersona,
} from '../../src/index.js';
import { startFakeUpstream, type FakeUpstream } from '../../src/testing/index.js';

const engine = createOfflineEngine();
const API_KEY = 'sk-test-abcdefghijklmnop1234';
let fake: FakeUpstream;
let upstream: Engine;
const persona = (id: string): EnginePersona => enginePersonaFromBase(basePersonas.find((entry) => entry.id === id)!);
const PRICE_QUESTION = 'We plan to raise the Pro plan from 49 to 59 euros a month. How do you react, and would you stay?';

beforeAll(async () => {
  fake = await startFakeUpstream({ apiKey: API_KEY });
  upstream = createOpenAICompatibleEngine({
    baseUrl: fake.baseUrl,
    apiKey: API_KEY,
    model: 'fake-model-1',
    timeoutMs: 2000,
    reasoning: false,
    contextWindow: 128000,
    maxOutputTokens: 32768,
  });
});
afterAll(() => fake.close());

describe('offline focus group', () => {
  it('answers from each persona’s own profile: different personas, different answers', async () => {
    const ids = ['persona_saas_cfo', 'persona_genz_sneaker_enthusiast', 'persona_restaurant_owner'];
    const answers = await Promise.all(ids.map((id) => engine.run(focusGroupAnswer, { question: PRICE_QUESTION, instructions: null, persona: persona(id) })));
    expect(new Set(answers.map((a) => a.output.answer)).size).toBe(3);
    for (const [index, { output, usage }] of answers.entries()) {
      const details = persona(ids[index]!).details;
      // Every key point quotes an item of this persona's profile or its price stance.
      const profileText = [...details.goals, ...details.pains, ...details.objections, ...details.proof_preferences].join(' ').toLowerCase();
      const quoted = output.key_points.filter((point) =>
        profileText.includes(
          point
            .replace(/^[^:]+: /, '')
            .replace(/^(It speaks to my goal to|It does not clearly help me|I would want to see) /, '')
            .slice(0, 20)
            .toLowerCase(),
        ),
      );
      expect(quoted.length).toBeGreaterThan(0);
      expect(output.key_points.some((point) => /price/i.test(point))).toBe(true);
      expect(output.confidence).toBeGreaterThan(0);
      expect(usage.input_tokens).toBeGreaterThan(0);
      expect(usage.output_tokens).toBeGreaterThan(0);
    }
  });

  it('is deterministic and follows the question’s tone', async () => {
    const cfo = persona('persona_saas_cfo');
    const first = await engine.run(focusGroupAnswer, { question: PRICE_QUESTION, instructions: null, persona: cfo });
    const again = await engine.run(focusGroupAnswer, { question: PRICE_QUESTION, instructions: null, persona: cfo });
    expect(again.output).toEqual(first.output);
    const loved = await engine.run(focusGroupAnswer, {
      question: 'We made reporting wonderful, faster and free of errors. Do you love it?',
      instructions: null,
      persona: cfo,
    });
    const hated = await engine.run(focusGroupAnswer, {
      question: 'The export is broken, slow and full of terrible errors. How bad is that?',
      instructions: null,
      persona: cfo,
    });
    expect(loved.output.sentiment).toBe('positive');
    expect(hated.output.sentiment).toBe('negative');
  });

  it('summarises from the answers: themes that recur, disagreements naming who, the breakdown counted', async () => {
    const answers = [
      {
        persona_name: 'Katrin',
        answer: 'Too expensive.',
        sentiment: 'negative' as const,
        key_points: ['Price weighs heavily for me', 'My concern: budget overruns'],
      },
      {
        persona_name: 'Marcus',
        answer: 'Fine by me.',
        sentiment: 'positive' as const,
        key_points: ['Price matters less to me than value', 'I would want to see a trial'],
      },
      {
        persona_name: 'Priya',
        answer: 'I would pause.',
        sentiment: 'negative' as const,
        key_points: ['Price weighs heavily for me', 'What would make me say no: hidden fees'],
      },
    ];
    const { output } = await engine.run(focusGroupSummary, { question: PRICE_QUESTION, instructions: null, answers });
    expect(output.key_themes[0]?.toLowerCase()).toContain('price');
    expect(output.consensus).toContain('2 of 3 participants are negative about the question (Katrin, Priya)');
    expect(output.disagreements).toHaveLength(2);
    expect(output.disagreements[0]).toMatch(/^Katrin is negative.*Marcus is positive/);
    expect(output.recommendations).toContain('Address Katrin’s point: budget overruns.');
    expect(output.recommendations).toContain('Address Priya’s point: hidden fees.');
    expect(output.recommendations).toContain('Prepare for Marcus: a trial.');
    expect(sentimentBreakdown(answers)).toEqual({ positive: 1, neutral: 0, negative: 2, mixed: 0 });
  });

  it('finds themes in what the personas said, not in the words that frame each answer', async () => {
    const answers = [
      {
        persona_name: 'Aisha',
        answer: '…',
        sentiment: 'neutral' as const,
        key_points: ['It does not clearly help me plan meals to waste less', 'My concern: carrying heavy shopping up four floors'],
      },
      {
        persona_name: 'Helen',
        answer: '…',
        sentiment: 'neutral' as const,
        key_points: ['It does not clearly help me avoid long transfers', 'I would want to see clear terms and conditions'],
      },
      {
        persona_name: 'Dana',
        answer: '…',
        sentiment: 'mixed' as const,
        key_points: ['It speaks to my goal to automate manual spreadsheet work', 'My concern: spreadsheet forecasts rebuilt by hand'],
      },
    ];
    const { output } = await engine.run(focusGroupSummary, { question: 'Would you switch?', instructions: null, answers });
    const themes = output.key_themes.map((theme) => theme.toLowerCase());
    for (const framing of ['clearly', 'help', 'concern', 'goal', 'speaks', 'want']) expect(themes).not.toContain(framing);
    expect(themes).toEqual(expect.arrayContaining(['shopping', 'transfers', 'spreadsheet']));
    // No theme is shared, so each participant's most salient word comes before anyone's second.
    const pointsOf = answers.map((entry) => entry.key_points.join(' ').toLowerCase());
    expect(themes.slice(0, 3).map((theme) => pointsOf.findIndex((points) => points.includes(theme)))).toEqual([0, 1, 2]);
    expect(output.consensus).toContain('No theme was raised by more than one participant.');
  });
});

describe('offline focus group: how an answer reads', () => {
  it('asks a question objection as a question, needs no article before what it wants to see, and keeps function words out of the themes', async () => {
    const security = persona('persona_it_security_director');
    const questions = security.details.objections.filter((item) => item.trim().endsWith('?'));
    expect(questions.length).toBeGreaterThan(0);
    const answers = [];
    let asked = 0;
    for (const id of ['persona_saas_cfo', 'persona_procurement_lead', 'persona_it_security_director']) {
      const { output } = await engine.run(focusGroupAnswer, { question: PRICE_QUESTION, instructions: null, persona: persona(id) });
      for (const point of output.key_points) {
        // "What would make me say no: how do you isolate …" was a question framed as a stand.
        if (point.startsWith('What would make me say no: '))
          expect(point).not.toMatch(/^What would make me say no: (how|what|which|who|why|does|do|is|can)\b/i);
        if (point.startsWith('The question I would need answered: ')) {
          asked += 1;
          expect(point).toMatch(/\?$/);
          expect(output.answer).toContain(`${point.slice(0, -1)}?`);
        }
        expect(point).not.toMatch(/^I would want to see /);
      }
      answers.push({ persona_name: persona(id).name, answer: output.answer, sentiment: output.sentiment, key_points: output.key_points });
    }
    expect(asked).toBeGreaterThan(0);
    const { output } = await engine.run(focusGroupSummary, { question: PRICE_QUESTION, instructions: null, answers });
    for (const functionWord of ['within', 'already', 'without']) expect(output.key_themes).not.toContain(functionWord);
    expect(output.recommendations.every((item) => !/^Show /.test(item))).toBe(true);
  });

  it('keeps units of time out of the themes of a price question', async () => {
    const question = 'We are raising the price of our plan from 79 to 99 euros per month in January. Would you stay?';
    const answers = [];
    for (const id of ['persona_restaurant_owner', 'persona_saas_cfo', 'persona_budget_parent_of_three']) {
      const { output } = await engine.run(focusGroupAnswer, { question, instructions: null, persona: persona(id) });
      answers.push({ persona_name: persona(id).name, answer: output.answer, sentiment: output.sentiment, key_points: output.key_points });
    }
    const { output } = await engine.run(focusGroupSummary, { question, instructions: null, answers });
    // Were "time" and "monthly" among them.
    expect(output.key_themes[0]).toBe('price');
    // A rise is answered as one, and a goal it shares no word with is not weighed (was "It does not clearly help
    // me consolidate overlapping SaaS tools into fewer contracts" from the CFO).
    const cfo = answers.find((entry) => entry.persona_name.startsWith('Dana'))!;
    expect(cfo.answer).toContain('A higher price is hard to justify for me.');
    expect(cfo.answer).not.toContain('It does not clearly help me');
    const parent = answers.find((entry) => entry.persona_name.startsWith('Maria'))!;
    expect(parent.answer).toContain('It goes against my goal to never pay full price when a deal is coming.');
    for (const generic of ['time', 'monthly', 'month', 'every']) expect(output.key_themes).not.toContain(generic);
  });
});

describe('upstream focus group', () => {
  it('sends the persona’s system prompt and the question, and parses the reply', async () => {
    const reply = { answer: 'I would leave.', sentiment: 'negative', key_points: ['Too expensive'], confidence: 0.7 };
    fake.enqueue({ content: JSON.stringify(reply) });
    const cfo = persona('persona_saas_cfo');
    const { output, usage } = await upstream.run(focusGroupAnswer, { question: PRICE_QUESTION, instructions: 'Be brief.', persona: cfo });
    expect(output).toEqual(reply);
    expect(usage.input_tokens).toBeGreaterThan(0);
    const request = fake.requests.at(-1)!.body;
    expect(request.response_format.json_schema.name).toBe('focus_group_answer');
    expect(request.messages[0].content).toContain(cfo.system_prompt);
    expect(request.messages[0].content).toContain('Be brief.');
    expect(request.messages[1].content).toBe(PRICE_QUESTION);
  });

  it('gives the moderator every answer with its persona', async () => {
    const reply = { consensus: 'All agree.', disagreements: [], key_themes: ['price'], recommendations: ['Keep the price.'] };
    fake.enqueue({ content: JSON.stringify(reply) });
    const { output } = await upstream.run(focusGroupSummary, {
      question: PRICE_QUESTION,
      instructions: null,
      answers: [
        { persona_name: 'Katrin', answer: 'No.', sentiment: 'negative', key_points: [] },
        { persona_name: 'Marcus', answer: 'Yes.', sentiment: 'positive', key_points: [] },
      ],
    });
    expect(output).toEqual(reply);
    const user = fake.requests.at(-1)!.body.messages[1].content;
    expect(user).toContain('[1] Katrin (negative): No.');
    expect(user).toContain('[2] Marcus (positive): Yes.');
  });
});
