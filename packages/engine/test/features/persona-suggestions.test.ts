// The persona-suggestions feature (`POST /personas/suggestions`) on the offline engine and through an upstream model.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOfflineEngine, createOpenAICompatibleEngine, personaSuggestions, type Engine } from '../../src/index.js';
import { startFakeUpstream, type FakeUpstream } from '../../src/testing/index.js';
import { contractErrors } from '../support/contract.js';

const engine = createOfflineEngine();
const API_KEY = 'sk-test-abcdefghijklmnop1234';
let fake: FakeUpstream;
let upstream: Engine;

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

describe('offline persona suggestions: how they read', () => {
  it("names the words a candidate shares with the business, keeps goals lower-case mid-sentence and a complement's words as written", async () => {
    const { output } = await createOfflineEngine().run(personaSuggestions, {
      business_description:
        'Greenbox delivers weekly boxes of organic, seasonal vegetables from farms around Berlin, with recipes and no plastic packaging. Customers can pause or skip any week.',
      target_customers: ['Young families in Berlin who cook at home', 'Busy couples'],
      goals: ['Grow subscriptions', 'Reduce churn after the first month'],
    });
    const [families, couples] = output.data;
    // Was "sharing 1 key term with the business description (greenbox, weekly, boxes)" and "… and Reduce churn".
    expect(families!.rationale).toContain('Fits the goal to grow subscriptions and reduce churn after the first month: ');
    expect(families!.rationale).toContain('sharing 1 key term with the business description (Berlin).');
    // Sharing nothing says nothing of it (was "sharing 0 key terms").
    expect(couples!.rationale).not.toMatch(/sharing 0/);
    expect(output.data.map((suggestion) => suggestion.description).join(' ')).not.toContain('Budget-minded Young');
  });

  it('quote the business, take their subjects from its nouns, and give each complementary role its own decision role', async () => {
    const { output } = await createOfflineEngine().run(personaSuggestions, {
      business_description:
        'Fleetwise sells route-optimisation software to regional trucking and delivery companies. It cuts fuel use and helps dispatchers plan routes in minutes.',
      target_customers: ['operations directors'],
      goals: ['find early adopters'],
    });
    expect(output.data.length).toBeGreaterThanOrEqual(3);
    for (const suggestion of output.data) {
      // Was "… who could buy from a business that Fleetwise sells route-optimisation software …".
      expect(suggestion.description).toContain('“Fleetwise sells route-optimisation software to regional trucking and delivery companies.”');
      expect(suggestion.description).not.toContain('a business that Fleetwise');
      // Was "Make helps more predictable", "Spend less time on plan", "They care most about software and regional".
      for (const line of [...suggestion.goals, ...suggestion.pains, suggestion.description])
        expect(line).not.toMatch(/\b(?:about|on|around|Make|for) (?:sells|helps|cuts|plan|regional)\b/);
    }
    const holder = output.data.find((suggestion) => suggestion.name === 'Budget Holder for Operations Directors');
    expect(holder?.decision_role).toBe('Economic buyer');
    const user = output.data.find((suggestion) => suggestion.name.startsWith('Day-to-'));
    expect(user?.decision_role).toBe('End user');
    expect(output.data.find((suggestion) => suggestion.name === 'Operations Directors')?.description).toMatch(/They care most about \w+ and \w+\./);
  });
});

describe('offline persona suggestions', () => {
  const request = {
    business_description: 'We sell a scheduling and payments app for independent fitness studios.',
    target_customers: ['studio owners', 'yoga instructors'],
    goals: ['increase trial sign-ups', 'reduce churn'],
  };

  it('suggests 3 to 6 personas, best fit first, valid against PersonaSuggestionList', async () => {
    const result = await engine.suggestPersonas(request);
    expect(result.data.length).toBeGreaterThanOrEqual(3);
    expect(result.data.length).toBeLessThanOrEqual(6);
    expect(contractErrors('PersonaSuggestionList', { object: 'list', ...result })).toEqual([]);
    const confidences = result.data.map((suggestion) => suggestion.confidence);
    expect([...confidences].sort((a, b) => b - a)).toEqual(confidences);
    expect(result.data.every((suggestion) => suggestion.id.startsWith('psug_'))).toBe(true);
    expect(result.data.map((suggestion) => suggestion.name)).toEqual(expect.arrayContaining(['Studio Owners', 'Yoga Instructors']));
    expect(result.input_summary).toEqual({ ...request, sources_count: 0 });
  });

  it('caps at 6 and counts the sources it read', async () => {
    const many = {
      ...request,
      target_customers: ['a1', 'b2', 'c3', 'd4', 'e5', 'f6', 'g7', 'h8'],
      sources: [{ text: 'Studios with 2 to 10 instructors.' }, { name: 'pricing', text: 'Plans from $49.' }],
    };
    const result = await engine.suggestPersonas(many);
    expect(result.data).toHaveLength(6);
    expect(result.input_summary.sources_count).toBe(2);
    expect(contractErrors('PersonaSuggestionList', { object: 'list', ...result })).toEqual([]);
  });
});

describe('persona suggestions through an upstream model', () => {
  it('suggests personas through a json_schema call', async () => {
    const offline = await createOfflineEngine().suggestPersonas({
      business_description: 'A payroll app for small shops.',
      target_customers: ['shop owners'],
      goals: ['more trials'],
    });
    fake.enqueue({ content: JSON.stringify({ suggestions: offline.data.map(({ id: _id, object: _object, ...rest }) => rest) }) });
    const result = await upstream.suggestPersonas({
      business_description: 'A payroll app for small shops.',
      target_customers: ['shop owners'],
      goals: ['more trials'],
      sources: [{ text: 'About us' }],
    });
    expect(contractErrors('PersonaSuggestionList', { object: 'list', ...result })).toEqual([]);
    expect(result.input_summary.sources_count).toBe(1);
  });
});

describe('persona suggestions as a feature', () => {
  it('is what engine.suggestPersonas returns', async () => {
    const input = { business_description: 'Bike repairs at your door.', target_customers: ['commuters'], goals: ['more bookings'] };
    expect((await engine.run(personaSuggestions, input)).output).toEqual(await engine.suggestPersonas(input));
  });
});
