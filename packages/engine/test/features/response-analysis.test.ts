import { describe, expect, it } from 'vitest';
import { basePersonas, createOfflineEngine, enginePersonaFromBase, type EnginePersona } from '../../src/index.js';
import { contractErrors } from '../support/contract.js';

const persona = (id: string): EnginePersona => enginePersonaFromBase(basePersonas.find((entry) => entry.id === id)!);
const analyze = async (p: EnginePersona | null, content: string) =>
  (await createOfflineEngine().generate({ persona: p, messages: [{ role: 'user', content }], analysis: true })).analysis!;

const inputs = [
  'I love this! It is a great, reliable product and the reviews are amazing.',
  'This is a terrible scam with hidden fees. I hate it and I am angry.',
  'Limited offer: only 5 spots left, trusted by 2,000 restaurants, free for the first month. Don’t miss out!',
  'Interest rates were announced today and the market reacted.',
  'ok',
];

describe('offline analysis', () => {
  it.each(inputs)('is valid against ResponseAnalysis for %j', async (content) => {
    for (const id of ['persona_saas_cfo', 'persona_genz_sneaker_enthusiast']) {
      expect(contractErrors('ResponseAnalysis', await analyze(persona(id), content))).toEqual([]);
    }
    expect(contractErrors('ResponseAnalysis', await analyze(null, content))).toEqual([]);
  });

  it('scores sentiment from the words of the input', async () => {
    const cfo = persona('persona_saas_cfo');
    const positive = await analyze(cfo, inputs[0]!);
    const negative = await analyze(cfo, inputs[1]!);
    expect(positive.sentiment.label).toBe('positive');
    expect(positive.sentiment.score).toBeGreaterThan(0.15);
    expect(negative.sentiment.label).toBe('negative');
    expect(negative.sentiment.score).toBeLessThan(-0.15);
    expect(positive.behavioral_intent.score).toBeGreaterThan(negative.behavioral_intent.score);
    expect(negative.emotional_metrics.anger).toBeGreaterThan(positive.emotional_metrics.anger);
    expect(positive.emotional_metrics.joy).toBeGreaterThan(negative.emotional_metrics.joy);
  });

  it('reads a move in what the reader pays as the one who pays reads it', async () => {
    const cfo = persona('persona_saas_cfo');
    // AFINN alone rates "raise"/"increase" up and "cut" down: these read neutral-to-good and bad before.
    const rise = await analyze(cfo, 'We will raise subscription prices by 20 percent next quarter.');
    const cut = await analyze(cfo, 'We cut our subscription prices by 20 percent.');
    const notRisen = await analyze(cfo, 'Our prices did not rise this year.');
    expect(rise.sentiment.label).toBe('negative');
    expect(cut.sentiment.label).toBe('positive');
    expect(rise.emotional_metrics.anger).toBeGreaterThan(cut.emotional_metrics.anger);
    expect(cut.emotional_metrics.joy).toBeGreaterThan(rise.emotional_metrics.joy);
    expect(notRisen.sentiment.score).toBeGreaterThan(0.15);
    // A rise in something that is not paid keeps AFINN's reading.
    expect((await analyze(cfo, 'Customer satisfaction will rise.')).sentiment.score).toBeGreaterThan(0);
  });

  it('takes its themes from what the input is about, not its numbers, dates or verbs of amount', async () => {
    const result = await analyze(persona('persona_saas_cfo'), 'Consumer prices rose 3 percent in October as three cloud providers cut storage prices.');
    // Were "three", "rose", "percent" and "october" beside the real themes.
    for (const word of ['three', 'rose', 'percent', 'october', 'cut']) expect(result.key_themes).not.toContain(word);
    expect(result.key_themes).toEqual(expect.arrayContaining(['prices', 'cloud', 'storage']));
  });

  it('names the biases the input triggers, with the phrase as evidence', async () => {
    const result = await analyze(persona('persona_restaurant_owner'), inputs[2]!);
    const names = result.biases.map((bias) => bias.name);
    expect(names).toEqual(expect.arrayContaining(['Scarcity effect', 'Social proof', 'Zero-risk bias']));
    expect(result.biases.find((bias) => bias.name === 'Scarcity effect')?.evidence).toMatch(/Limited offer/);
    const strengths = result.biases.map((bias) => bias.strength);
    expect([...strengths].sort((a, b) => b - a)).toEqual(strengths);
  });

  it('turns scarcity into reactance for a persona that objects to fake scarcity', async () => {
    const result = await analyze(persona('persona_genz_sneaker_enthusiast'), 'Only 100 pairs, a truly limited drop.');
    expect(result.biases.find((bias) => bias.name === 'Scarcity effect')?.direction).toBe('decreases_receptivity');
  });

  it('is deterministic and refers to the persona', async () => {
    const cfo = persona('persona_saas_cfo');
    expect(await analyze(cfo, inputs[3]!)).toEqual(await analyze(cfo, inputs[3]!));
    expect((await analyze(cfo, inputs[3]!)).summary).toMatch(/^Dana/);
    expect((await analyze(cfo, inputs[3]!)).news_relevance.score).toBeGreaterThan((await analyze(cfo, inputs[0]!)).news_relevance.score);
  });
});
