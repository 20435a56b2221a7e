// The brand-voice feature: measured offline (two corpora → two voices, one corpus → one voice, quotes
// verbatim), and the upstream path through the structured-output primitive with the fake upstream.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brandVoice, createOfflineEngine, createOpenAICompatibleEngine, type BrandVoiceInput, type Engine } from '../../src/index.js';
import { startFakeUpstream, type FakeUpstream } from '../../src/testing/index.js';

const playful: BrandVoiceInput = {
  label: 'Sunny Snacks',
  usage_context: 'Social posts for a snack brand aimed at teenagers.',
  sources: [
    {
      name: 'Home page',
      text: "Hungry? We've got you! Our crunchy chickpea puffs are loaded with flavour. You'll love the zesty lime! Grab a bag, share it, snap it. Who says snacks can't be good for you? Try the spicy mango crunch today! You deserve a treat that tastes amazing. We're obsessed with crunch!",
    },
  ],
};
const formal: BrandVoiceInput = {
  label: 'Meridian Capital',
  usage_context: 'Investor communications and regulatory disclosures.',
  sources: [
    {
      name: 'Annual report',
      text: 'The consolidated financial statements have been prepared in accordance with International Financial Reporting Standards as adopted by the European Union. Management evaluates the recoverability of goodwill annually through impairment testing of cash-generating units. Amortisation of intangible assets is recognised on a straight-line basis over their estimated useful lives. The company maintains a conservative liquidity position, with covenant headroom reviewed quarterly by the audit committee. Derivative instruments are measured at fair value through profit or loss, except where hedge accounting is applied.',
    },
  ],
};

describe('brand voice, offline', () => {
  const engine = createOfflineEngine();

  it('measures two corpora into visibly different voices', async () => {
    const a = (await engine.run(brandVoice, playful)).output;
    const b = (await engine.run(brandVoice, formal)).output;
    expect(a.tone.adjectives).toContain('enthusiastic');
    expect(a.tone.adjectives).toContain('direct');
    expect(b.tone.adjectives).not.toContain('enthusiastic');
    expect(b.tone.adjectives).toContain('formal');
    expect(a.vocabulary.preferred_terms).toContain('crunch');
    expect(b.vocabulary.preferred_terms.some((term) => ['amortisation', 'goodwill', 'impairment', 'covenant', 'consolidated'].includes(term))).toBe(true);
    expect(a.writing_style.sentence_structure).not.toBe(b.writing_style.sentence_structure);
    // The formal corpus is harder to read and richer in rare words.
    const grade = (s: string) => Number.parseFloat(/Flesch–Kincaid grade ([\d.]+)/.exec(s)?.[1] ?? 'NaN');
    expect(grade(b.writing_style.sentence_structure)).toBeGreaterThan(grade(a.writing_style.sentence_structure) + 5);
  });

  it('quotes example phrases verbatim and gives the same voice for the same corpus', async () => {
    const first = (await engine.run(brandVoice, playful)).output;
    const again = (await engine.run(brandVoice, playful)).output;
    expect(again).toEqual(first);
    expect(first.example_phrases.length).toBeGreaterThan(2);
    for (const phrase of first.example_phrases) expect(playful.sources[0]!.text).toContain(phrase.example);
    expect(first.example_phrases.find((p) => p.use_case === 'Question to the reader')?.example).toBe("Who says snacks can't be good for you?");
  });

  it('reads words inside single quotes and possessives as the words themselves', async () => {
    const quoted: BrandVoiceInput = {
      label: 'Quoted',
      usage_context: 'Emails to busy founders and their teams.',
      sources: [
        {
          name: 'Guide',
          text: "We say 'you' more than 'we' in every email. The founders' time is short, so we don't waste it. We weigh trade-offs in the open and we write to 'you', the reader, with care. Our 'partners' hear from us weekly.",
        },
      ],
    };
    const { output } = await engine.run(brandVoice, quoted);
    const ownWords = output.tone.dos.find((line) => line.includes('own words:'))?.split('own words:')[1] ?? '';
    const terms = [...output.vocabulary.preferred_terms, ...ownWords.split(/[\s,.]+/)];
    expect(ownWords).toContain('trade-offs');
    expect(terms.filter((term) => /^'|'$/.test(term))).toEqual([]);
    expect(output.vocabulary.preferred_terms).toContain('trade-offs');
    expect(output.vocabulary.preferred_terms).toContain('partners');
  });

  it('lists the words a source bans among the terms to avoid, never among those to prefer', async () => {
    const guide: BrandVoiceInput = {
      label: 'Plain',
      usage_context: 'Emails to busy founders and their teams.',
      sources: [
        {
          name: 'Style guide',
          text: "We write plainly and warmly for founders. Avoid jargon such as synergy, leverage and paradigm. Never say 'cheap' or 'revolutionary'. Synergy decks and paradigm shifts bore our founders; leverage is for engineers. Avoid long sentences.",
        },
      ],
    };
    const { output } = await engine.run(brandVoice, guide);
    expect(output.vocabulary.avoid_terms.slice(0, 5)).toEqual(['synergy', 'leverage', 'paradigm', 'cheap', 'revolutionary']);
    for (const banned of ['synergy', 'leverage', 'paradigm', 'cheap', 'jargon', 'avoid']) {
      expect(output.vocabulary.preferred_terms).not.toContain(banned);
      expect(output.voice_summary).not.toMatch(new RegExp(`distinctive words:[^.]*\\b${banned}\\b`));
    }
    expect(output.vocabulary.preferred_terms).toContain('founders');
    // A ban names no word when it lists none ("avoid long sentences"), and no rule is quoted as an example.
    expect(output.vocabulary.avoid_terms).not.toContain('long sentences');
    for (const phrase of output.example_phrases ?? []) expect(phrase.example).not.toMatch(/^(Avoid|Never)/);
  });

  it('reads "never use words like …" and "we say X, not Y" as bans, and keeps a name its capital', async () => {
    const text = `Closewise helps finance teams close the books in days. Closewise reconciles bank accounts every night and flags the accruals you missed.
We write the way we work: plainly. We say "close", not "financial close orchestration". We never use words like revolutionary, synergy or game-changing.
Customers close in 5 days instead of 9, and Closewise keeps one checklist for the whole team.`;
    const { output } = await engine.run(brandVoice, { label: 'House', usage_context: 'Website', sources: [{ name: 'About', text }] });
    expect(output.vocabulary.avoid_terms.slice(0, 4)).toEqual(['financial close orchestration', 'revolutionary', 'synergy', 'game-changing']);
    // "close" is the word the voice prefers; the banned side's other words are never preferred.
    expect(output.vocabulary.preferred_terms).toContain('close');
    for (const banned of ['orchestration', 'financial', 'revolutionary', 'synergy', 'game-changing'])
      expect(output.vocabulary.preferred_terms).not.toContain(banned);
    // Was "closewise".
    expect(output.vocabulary.preferred_terms).toContain('Closewise');
    expect(output.vocabulary.preferred_terms).not.toContain('closewise');
  });

  it('avoids clichés the sources never use, keeps those they use', async () => {
    const withCliche: BrandVoiceInput = { ...formal, sources: [{ name: 'x', text: `${formal.sources[0]!.text} Our robust approach is seamless.` }] };
    const voice = (await engine.run(brandVoice, withCliche)).output;
    expect(voice.vocabulary.avoid_terms).not.toContain('robust');
    expect(voice.vocabulary.avoid_terms).toContain('game-changer');
  });
});

describe('brand voice, upstream', () => {
  let fake: FakeUpstream;
  let upstream: Engine;
  beforeAll(async () => {
    fake = await startFakeUpstream({ apiKey: 'k' });
    upstream = createOpenAICompatibleEngine({
      baseUrl: fake.baseUrl,
      apiKey: 'k',
      model: 'fake-model-1',
      timeoutMs: 2000,
      reasoning: false,
      contextWindow: 128000,
      maxOutputTokens: 32768,
    });
  });
  afterAll(() => fake.close());

  it('sends the texts with the json schema and keeps only verbatim example phrases', async () => {
    const reply = {
      voice_summary: 'Playful and direct.',
      tone: { adjectives: ['playful'], dos: ['Be fun.'], donts: ['Be dull.'] },
      writing_style: { sentence_structure: 'Short.', jargon_usage: 'None.' },
      vocabulary: { preferred_terms: ['crunch'], avoid_terms: ['premium'] },
      example_phrases: [
        { use_case: 'Invented', example: 'Snacks that change the world.' },
        { use_case: 'CTA', example: 'Grab a bag, share it, snap it.' },
      ],
    };
    fake.enqueue({ content: JSON.stringify(reply) });
    const { output, usage } = await upstream.run(brandVoice, playful);
    const sent = fake.requests.at(-1)!;
    expect(JSON.stringify(sent.body)).toContain('zesty lime');
    expect((sent.body as { response_format: { json_schema: { name: string } } }).response_format.json_schema.name).toBe('brand_voice');
    expect(output.tone.adjectives).toEqual(['playful']);
    expect(output.example_phrases).toEqual([{ use_case: 'CTA', example: 'Grab a bag, share it, snap it.' }]);
    expect(usage.input_tokens).toBeGreaterThan(0);
  });

  it('moves the words a source bans from the model’s preferred terms to the front of its terms to avoid', async () => {
    const reply = {
      voice_summary: 'Plain.',
      tone: { adjectives: ['plain'], dos: ['Be brief.'], donts: ['Ramble.'] },
      writing_style: { sentence_structure: 'Short.', jargon_usage: 'None.' },
      vocabulary: { preferred_terms: ['founders', 'Synergy'], avoid_terms: ['premium'] },
      example_phrases: [{ use_case: 'Opening', example: 'We write plainly for founders.' }],
    };
    fake.enqueue({ content: JSON.stringify(reply) });
    const guide: BrandVoiceInput = {
      label: 'Plain',
      usage_context: 'Emails to founders.',
      sources: [{ name: 'Guide', text: 'We write plainly for founders. Avoid jargon such as synergy and leverage.' }],
    };
    const { output } = await upstream.run(brandVoice, guide);
    expect(output.vocabulary).toEqual({ preferred_terms: ['founders'], avoid_terms: ['synergy', 'leverage', 'premium'] });
  });
});
