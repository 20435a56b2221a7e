// The news features (classification, analysis, digest) and the research agent's engine parts, on the
// offline engine and through an upstream model (the fake upstream).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basePersonas,
  composeResearchAnswer,
  createOfflineEngine,
  createOpenAICompatibleEngine,
  EngineError,
  enginePersonaFromBase,
  NEWS_TOPICS,
  newsAnalysis,
  newsClassification,
  newsDigest,
  offlineThreadTitle,
  researchKeywords,
  storyRelevance,
  threadTitle,
  type Engine,
  type EnginePersona,
} from '../../src/index.js';
import { startFakeUpstream, type FakeUpstream } from '../../src/testing/index.js';

const engine = createOfflineEngine();
const API_KEY = 'sk-test-abcdefghijklmnop1234';
let fake: FakeUpstream;
let upstream: Engine;
const persona = (id: string): EnginePersona => enginePersonaFromBase(basePersonas.find((entry) => entry.id === id)!);
const CFO = persona('persona_saas_cfo');
const RESTAURANT = persona('persona_restaurant_owner');

const PRICES = {
  id: 'story_prices',
  name: 'Mid-size software companies raise subscription prices by up to 20 percent',
  summary: 'A survey of 400 software vendors finds that most plan price increases next year, citing AI features and higher cloud costs.',
  topics: ['technology', 'business'],
};
const ENERGY = {
  id: 'story_energy',
  name: 'Restaurant owners struggle with energy bills and staff shortages ahead of winter',
  summary: 'Small restaurants in Germany report energy costs twice as high as two years ago and cannot find kitchen staff.',
  topics: ['business', 'energy'],
};

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

describe('news classification', () => {
  it('offline: topics from the closed list by keyword cues, headline first, and the region named', async () => {
    const { output } = await engine.run(newsClassification, {
      title: 'European Central Bank holds interest rates as inflation cools',
      summary: 'The bank in Frankfurt left rates unchanged.',
    });
    expect(output.topics.length).toBeGreaterThan(0);
    expect(output.topics.every((topic) => (NEWS_TOPICS as readonly string[]).includes(topic))).toBe(true);
    expect(output.topics).toContain('economy');
    const german = await engine.run(newsClassification, { title: ENERGY.name, summary: ENERGY.summary });
    expect(german.output.region).toBe('DE');
    expect(german.output.topics).toContain('energy');
  });

  it('offline: one passing word is no topic, and a contract renewal is no renewable energy', async () => {
    const sneakers = await engine.run(newsClassification, {
      title: 'Sneaker resale prices fall as limited drops become less limited',
      summary:
        'Resale prices for limited sneaker releases dropped by a third this year as brands produced larger runs. Collectors on social media say hype has moved to smaller brands and vintage pairs.',
      categories: ['fashion', 'retail'],
    });
    expect(sneakers.output.topics).toContain('retail');
    expect(sneakers.output.topics).not.toContain('media');
    const prices = await engine.run(newsClassification, {
      title: PRICES.name,
      summary: `${PRICES.summary} Finance leaders say they will push back on mid-contract changes and ask for price locks until renewal.`,
      categories: ['Business'],
    });
    expect(prices.output.topics).toEqual(expect.arrayContaining(['business', 'economy', 'technology']));
    expect(prices.output.topics).not.toContain('energy');
  });

  it('offline: a story with no cue is world news with no region', async () => {
    const { output } = await engine.run(newsClassification, { title: 'Quokka zeppelin xylophone', summary: 'Nothing here.' });
    expect(output).toEqual({ topics: ['world'], region: null });
  });

  it('upstream: the reply is validated against the closed list; duplicates are dropped', async () => {
    fake.enqueue({ content: JSON.stringify({ topics: ['energy', 'energy', 'business'], region: 'DE' }) });
    const { output } = await upstream.run(newsClassification, { title: ENERGY.name, summary: ENERGY.summary });
    expect(output).toEqual({ topics: ['energy', 'business'], region: 'DE' });
    const sent = fake.requests.at(-1)!.body;
    expect(sent.response_format.json_schema.name).toBe('news_classification');
    expect(sent.messages[1].content).toContain(ENERGY.name);
  });

  it('upstream: a topic outside the list is refused after one retry', async () => {
    const bad = { content: JSON.stringify({ topics: ['gossip'], region: null }) };
    fake.enqueue(bad, bad);
    await expect(upstream.run(newsClassification, { title: 'x', summary: 'y' })).rejects.toMatchObject({ code: 'structured_output_invalid' });
  });
});

describe('news analysis', () => {
  it("offline: the persona's perception, with figures measured from the story and the profile", async () => {
    const { output, usage } = await engine.run(newsAnalysis, { story: { ...PRICES, source_name: 'Business Wire' }, persona: CFO });
    for (const field of [
      'quick_view',
      'emotional_response',
      'cognitive_engagement',
      'behavioral_intent',
      'news_contextualization',
      'risk_and_opportunity',
    ] as const) {
      expect(output[field].length).toBeGreaterThan(0);
    }
    expect(output.news_contextualization).toContain('Business Wire');
    expect(output.confidence).toBeGreaterThanOrEqual(0);
    expect(output.confidence).toBeLessThanOrEqual(1);
    expect(usage.input_tokens).toBeGreaterThan(0);
    // Another persona reads the same story differently.
    const other = await engine.run(newsAnalysis, { story: { ...PRICES, source_name: 'Business Wire' }, persona: RESTAURANT });
    expect(other.output).not.toEqual(output);
    // Deterministic.
    expect((await engine.run(newsAnalysis, { story: { ...PRICES, source_name: 'Business Wire' }, persona: CFO })).output).toEqual(output);
  });

  it('offline: relates the story only to the goals and pains it shares words with', async () => {
    const unrelated = { name: 'Football league sells streaming rights', summary: 'A top league sold its rights for five seasons.', source_name: 'Living' };
    const { output } = await engine.run(newsAnalysis, { story: unrelated, persona: CFO });
    expect(output.news_contextualization).toContain("does not touch Dana's stated goals");
    expect(output.risk_and_opportunity).toContain('No direct risk to Dana appears.');
    expect(output.quick_view).toMatch(
      /^Dana reads this as \w+ \([+-]\d\.\d\d\), with \w+ as the strongest emotion\. It touches none of Dana's stated goals or pains\.$/,
    );
    // The quick view names what the context and the risk name, and no pitch's "likely pushback".
    const priced = await engine.run(newsAnalysis, { story: { ...PRICES, source_name: 'Business Wire' }, persona: CFO });
    expect(priced.output.quick_view).toMatch(/It touches Dana's pain: Vendors who cannot explain their pricing in one sentence\.$/);
    expect(priced.output.quick_view).not.toContain('pushback');
    expect(priced.output.news_contextualization).toBe("Business Wire reports it. It does not touch Dana's stated goals.");
    // The pain it does share words with (pricing) is named.
    expect(priced.output.risk_and_opportunity).toContain('Vendors who cannot explain their pricing in one sentence');
  });

  it('offline: a price rise is bad news and a price cut good news for those who pay', async () => {
    const rise = (await engine.run(newsAnalysis, { story: { ...PRICES, source_name: 'Business Wire' }, persona: CFO })).output;
    expect(rise.emotional_response).toMatch(/^Dana reacts with anger first .* reads negative/);
    expect(rise.risk_and_opportunity).toBe(
      "Risk: it may sharpen Dana's pain (Vendors who cannot explain their pricing in one sentence). Opportunity: brands that address the concern credibly can earn Dana's trust.",
    );
    const cut = {
      name: 'Cloud providers cut storage prices by a third',
      summary: 'Three large providers lowered storage fees for most customers.',
      source_name: 'Reuters',
    };
    const eased = (await engine.run(newsAnalysis, { story: cut, persona: CFO })).output;
    expect(eased.emotional_response).toMatch(/reads positive/);
    // The pain it touches is touched in Dana's favour; the opportunity is named from the story, not a keyword ("the mid-size angle").
    expect(eased.risk_and_opportunity).toBe(
      `It touches Dana's pain (Vendors who cannot explain their pricing in one sentence), in Dana's favour. Opportunity: while Dana is receptive, brands can build on "${cut.name}".`,
    );
  });

  it("upstream: sends the persona's system prompt and the story", async () => {
    const reply = {
      quick_view: 'a',
      emotional_response: 'b',
      cognitive_engagement: 'c',
      behavioral_intent: 'd',
      news_contextualization: 'e',
      risk_and_opportunity: 'f',
      confidence: 0.7,
    };
    fake.enqueue({ content: JSON.stringify(reply) });
    const { output } = await upstream.run(newsAnalysis, { story: { ...PRICES, source_name: 'Business Wire' }, persona: CFO });
    expect(output).toEqual(reply);
    const sent = fake.requests.at(-1)!.body.messages;
    expect(sent[0].content.startsWith(CFO.system_prompt)).toBe(true);
    expect(sent[1].content).toContain(PRICES.summary);
  });
});

describe('news digest', () => {
  it('does not count words of time or quantity as shared topics', () => {
    const walks = {
      id: 'story_walks',
      name: 'Researchers find that short daily walks lower stress in office workers',
      summary:
        'A study of 1,200 office workers found that a 15-minute walk each day reduced reported stress by a quarter after eight weeks. The researchers say employers could encourage walking meetings.',
      topics: ['health'],
    };
    // It shared "quarter", "day" and "weeks" with the CFO's goals and ranked high (0.78).
    const relevance = storyRelevance(walks, CFO);
    expect(relevance.relevance).toBe('low');
    expect(relevance.why_it_matters).toBe("Shares no terms with Dana's goals, pains or objections.");
    expect(storyRelevance(PRICES, CFO).relevance).toBe('high');
  });

  it('computes relevance in code and explains it with the shared words', () => {
    const prices = storyRelevance(PRICES, CFO);
    const energy = storyRelevance(ENERGY, CFO);
    expect(prices.relevance_score).toBeGreaterThan(energy.relevance_score);
    expect(prices.why_it_matters).toMatch(/^Shares /);
    expect(storyRelevance(ENERGY, RESTAURANT).relevance_score).toBeGreaterThan(storyRelevance(ENERGY, CFO).relevance_score);
    const none = storyRelevance({ id: 'x', name: 'Quokka zeppelin', summary: 'Xylophone.', topics: [] }, CFO);
    expect(none).toMatchObject({ relevance: 'low', relevance_score: 0.1 });
    expect(none.why_it_matters).toContain('Shares no terms');
  });

  it('offline: the title, summary and takeaways follow the ranked stories', async () => {
    const stories = [PRICES, ENERGY].map((story) => ({ ...story, ...storyRelevance(story, CFO), source_name: 'Wire' }));
    const { output } = await engine.run(newsDigest, { persona: CFO, stories, period_label: 'the last 7 days' });
    expect(output.summary).toContain(`"${PRICES.name}"`);
    expect(output.key_takeaways).toHaveLength(2);
    expect(output.key_takeaways[0]).toContain(PRICES.name);
    const empty = await engine.run(newsDigest, { persona: CFO, stories: [], period_label: 'the last 24 hours' });
    expect(empty.output.summary).toBe('No stories in the last 24 hours match the request.');
    expect(empty.output.key_takeaways).toEqual([]);
  });

  it('upstream: the model writes the prose over the stories it is given, in rank order', async () => {
    fake.enqueue({ content: JSON.stringify({ title: 'Prices up', summary: 'Vendors raise prices.', key_takeaways: ['Budget for 20 percent more.'] }) });
    const stories = [PRICES, ENERGY].map((story) => ({ ...story, ...storyRelevance(story, CFO), source_name: 'Wire' }));
    const { output } = await upstream.run(newsDigest, { persona: CFO, stories, period_label: 'the last 7 days' });
    expect(output.title).toBe('Prices up');
    const user = fake.requests.at(-1)!.body.messages[1].content as string;
    expect(user.indexOf(PRICES.name)).toBeLessThan(user.indexOf(ENERGY.name));
  });
});

describe('research agent parts', () => {
  it('titles a thread from its first sentence, offline and upstream', async () => {
    expect(offlineThreadTitle('Which CRM do dentists use? And why?')).toBe('Which CRM do dentists use?');
    expect(offlineThreadTitle(`${'word '.repeat(40)}end.`).length).toBeLessThanOrEqual(80);
    expect((await engine.run(threadTitle, { message: 'Pricing of spend tools in Germany. More later.' })).output.title).toBe(
      'Pricing of spend tools in Germany',
    );
    fake.enqueue({ content: JSON.stringify({ title: 'Spend tools in Germany' }) });
    expect((await upstream.run(threadTitle, { message: 'Pricing of spend tools in Germany.' })).output.title).toBe('Spend tools in Germany');
  });

  it('answers extractively from the sources, citing only their refs', () => {
    const question = 'How much are software companies raising subscription prices?';
    expect(researchKeywords(question)).toEqual(expect.arrayContaining(['software', 'subscription', 'prices']));
    const answer = composeResearchAnswer({
      question,
      sources: [
        { ref: 1, title: 'Energy', snippet: ENERGY.summary },
        { ref: 2, title: 'Prices', snippet: `${PRICES.summary} Software subscription prices rise by up to 20 percent.` },
      ],
    });
    const lines = answer.split('\n').filter((line) => line.startsWith('- '));
    // The source sharing most words with the question comes first, quoting its best sentence.
    expect(lines[0]).toBe('- **Prices**: "Software subscription prices rise by up to 20 percent." [2]');
    expect([...answer.matchAll(/\[(\d+)\]/g)].every((match) => ['1', '2'].includes(match[1]!))).toBe(true);
    expect(composeResearchAnswer({ question, sources: [] })).toContain('Nothing in the workspace');
  });

  it('searches for what the question is about, not for how it asks to be answered', () => {
    const question = 'What do CFOs worry about when buying a bookkeeping tool? Cite sources and explain briefly.';
    const keywords = researchKeywords(question);
    expect(keywords).toEqual(expect.arrayContaining(['cfos', 'bookkeeping', 'tool']));
    for (const instruction of ['cite', 'sources', 'explain', 'briefly']) expect(keywords).not.toContain(instruction);
    const answer = composeResearchAnswer({
      question,
      sources: [{ ref: 1, title: 'CFO survey', snippet: 'CFOs worry that a new bookkeeping tool will slip past close.' }],
    });
    expect(answer.split('\n')[0]).toBe(`What the sources say about "${keywords.join(', ')}":`);
  });

  it('quotes only sources that answer what the question is about, and one item of a profile list', () => {
    const question = 'What is happening with interest rates and inflation? Cite sources.';
    expect(researchKeywords(question)).toEqual(['interest', 'rates', 'inflation']);
    const answer = composeResearchAnswer({
      question,
      sources: [
        {
          ref: 1,
          title: 'Hospital Operations Manager',
          snippet: 'Runs patient flow. objections: Does this work inside Epic?; What happens at 3 a.m. when it goes down?',
        },
        {
          ref: 2,
          title: 'ECB holds interest rates',
          snippet: 'The European Central Bank left its deposit rate unchanged. Inflation slowed to 2.1 percent, and interest rates stay at 2 percent.',
        },
        { ref: 3, title: 'Procurement Lead', snippet: 'goals: Run fair RFPs; Cap renewal price increases at inflation; Consolidate suppliers.' },
        {
          ref: 4,
          title: 'First-Time Homebuyer',
          snippet: 'Buying a first home. pains: Mortgage jargon that nobody explains; Interest rates changing week to week; Surprise closing costs.',
        },
      ],
    });
    const lines = answer.split('\n').filter((line) => line.startsWith('- '));
    expect(lines).toEqual([
      '- **ECB holds interest rates**: "Inflation slowed to 2.1 percent, and interest rates stay at 2 percent." [2]',
      '- **First-Time Homebuyer** (pains): "Interest rates changing week to week" [4]',
    ]);
  });

  it('answers a question about the personas from the personas, and reads "care about" as framing, not topic', () => {
    expect(researchKeywords('Which personas care about sustainability?')).toEqual(['sustainability']);
    expect(researchKeywords('What do our personas say about pricing?')).toEqual(['pricing']);
    const answer = composeResearchAnswer({
      question: 'What do our personas say about pricing?',
      sources: [
        { ref: 1, title: 'SaaS vendors raise prices', snippet: 'Most vendors plan pricing changes next year.' },
        {
          ref: 2,
          title: 'Dana Whitfield, SaaS CFO (Finance)',
          snippet: 'A CFO.\npains: Vendors who cannot explain their pricing in one sentence; Tool sprawl',
          persona: true,
        },
        // A list item holding a sentence end ("6 a.m. starts") stays one item with its label.
        { ref: 3, title: 'Helen Fischer (Travel)', snippet: 'A retiree.\npains: Early 6 a.m. starts with confusing pricing; Small print', persona: true },
      ],
    });
    expect(answer.split('\n').filter((line) => line.startsWith('- '))).toEqual([
      '- **Dana Whitfield, SaaS CFO (Finance)** (pains): "Vendors who cannot explain their pricing in one sentence" [2]',
      '- **Helen Fischer (Travel)** (pains): "Early 6 a.m. starts with confusing pricing" [3]',
    ]);
  });

  it('says nothing matched rather than quote sources sharing one word of a longer question', () => {
    const question = 'Any news on electric vehicle sales?';
    expect(researchKeywords(question)).toEqual(['electric', 'vehicle', 'sales']);
    const answer = composeResearchAnswer({
      question,
      sources: [
        { ref: 1, title: 'Black Friday', snippet: 'Retailers expect record e-commerce sales this Black Friday.' },
        { ref: 2, title: 'Solar and wind', snippet: 'Renewable energy produced more electricity than gas.' },
      ],
    });
    expect(answer).toContain('Nothing in the workspace');
    expect(answer).not.toMatch(/\[\d+\]/);
  });

  it('is an EngineError the server can map when the upstream fails', async () => {
    fake.enqueue({ status: 503 });
    await expect(upstream.run(threadTitle, { message: 'x' })).rejects.toBeInstanceOf(EngineError);
  });
});
