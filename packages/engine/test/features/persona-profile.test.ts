// The persona-profile feature (`POST /personas`) on the offline engine and through an upstream model.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOfflineEngine, createOpenAICompatibleEngine, personaProfile, type Engine, type GeneratedPersona } from '../../src/index.js';
import { startFakeUpstream, type FakeUpstream } from '../../src/testing/index.js';
import { ageBandOf, descriptionFacts } from '../../src/offline/description-facts.js';
import { offlinePersonaProfile } from '../../src/features/persona-profile/offline.js';
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

// The server wraps a generated persona into a CustomPersona; validating that shape checks every part.
function asCustomPersona(generated: GeneratedPersona) {
  return { id: 'cp_test', object: 'custom_persona', is_custom: true, workspace_id: 'ws_test', created_at: 1767225600, credits_charged: 300, ...generated };
}

describe('offline persona generation', () => {
  it('keeps every generated field within its contract bound, whatever the description (the server stores and serves it)', async () => {
    const descriptions = [
      'x'.repeat(600),
      `${'y'.repeat(700)} who buys ${'z'.repeat(900)} for a ${'w'.repeat(300)} team`,
      `A ${'procurement '.repeat(80)}manager`,
      `${'😀'.repeat(400)} at ${'مرحبا'.repeat(120)}`,
      `${'a'.repeat(79)}😀${'b'.repeat(600)}`,
    ];
    for (const description of descriptions) {
      for (const type of ['B2B', 'B2C'] as const) {
        for (const pipeline_type of ['north_star', 'advanced'] as const) {
          const generated = await engine.generatePersona({ description, type, pipeline_type });
          expect(contractErrors('CustomPersona', asCustomPersona(generated))).toEqual([]);
          expect(JSON.stringify(generated)).not.toMatch(/\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])/i);
        }
      }
    }
  });

  it('generates a valid custom persona for each pipeline', async () => {
    for (const pipeline_type of ['north_star', 'intermediate', 'advanced'] as const) {
      const generated = await engine.generatePersona({
        description: 'A procurement manager at a mid-size logistics firm who buys fleet telematics software.',
        pipeline_type,
      });
      expect(contractErrors('CustomPersona', asCustomPersona(generated))).toEqual([]);
      expect(generated.pipeline_type).toBe(pipeline_type);
      expect(generated.details.pipeline_type).toBe(pipeline_type);
    }
  });

  it('follows the pipeline rules: north_star leaves buying context and configs empty, advanced fills them', async () => {
    const description = 'A first-time homebuyer in Lisbon comparing mortgage offers.';
    const northStar = await engine.generatePersona({ description });
    expect(northStar.pipeline_type).toBe('north_star');
    expect(northStar.details.proof_types).toEqual([]);
    expect(northStar.details.mcda_weights).toEqual({});
    expect(northStar.details.price_sensitivity_delta).toBeNull();
    expect(northStar.details.goals.length).toBeGreaterThan(0);
    const advanced = await engine.generatePersona({ description, pipeline_type: 'advanced' });
    expect(advanced.details.proof_types.length).toBeGreaterThan(0);
    expect(Object.values(advanced.details.mcda_weights).reduce((sum, weight) => sum + weight, 0)).toBeCloseTo(1, 6);
    expect(Object.keys(advanced.details.sales_config).length).toBeGreaterThan(0);
  });

  it('infers B2B or B2C from the description, unless given', async () => {
    expect((await engine.generatePersona({ description: 'Head of IT security at a regional bank evaluating identity providers.' })).type).toBe('B2B');
    const parent = await engine.generatePersona({ description: 'A parent of two toddlers who shops for organic baby food online.' });
    expect(parent.type).toBe('B2C');
    expect(parent.details.role_title).toBeNull();
    expect((await engine.generatePersona({ description: 'A parent of two toddlers who shops for organic baby food online.', type: 'B2B' })).type).toBe('B2B');
  });

  it('copies hints into the details as given, and keeps given name and category', async () => {
    const generated = await engine.generatePersona({
      description: 'An operations lead at a chain of dental clinics looking at scheduling software.',
      name: 'Olga the Ops Lead',
      category: 'Dental',
      hints: {
        role_title: 'Head of Clinic Operations',
        company_size: '51–200 employees',
        locale_scope: 'country',
        locale_value: 'pl-PL',
        goals: ['Fill last-minute cancellations'],
        channels: ['LinkedIn'],
      },
    });
    expect(generated.name).toBe('Olga the Ops Lead');
    expect(generated.category).toBe('Dental');
    expect(generated.details.role_title).toBe('Head of Clinic Operations');
    expect(generated.details.company_size).toBe('51–200 employees');
    expect(generated.details.goals).toEqual(['Fill last-minute cancellations']);
    expect(generated.details.channels).toEqual(['LinkedIn']);
    // Localisation hints apply even on north_star, and mark the persona localised.
    expect(generated.details.locale_value).toBe('pl-PL');
    expect(generated.details.is_localized).toBe(true);
    expect(generated.ai_generated.rationale).toMatch(/hint/);
    expect(contractErrors('CustomPersona', asCustomPersona(generated))).toEqual([]);
  });

  it('is deterministic and says it is not a language model', async () => {
    const input = { description: 'A freelance wedding photographer who wants more bookings.' };
    expect(await engine.generatePersona(input)).toEqual(await engine.generatePersona(input));
    expect((await engine.generatePersona(input)).ai_generated.rationale).toMatch(/not a language model/);
  });
});

describe('offline persona profile: what the description says outright', () => {
  const LOGISTICS =
    'A 45-year-old operations director at a regional logistics company with 300 trucks. She is under pressure to cut fuel costs and driver turnover, distrusts vendors who overpromise on AI, and needs anything new to work with their existing TMS.';

  it('quotes its pressures, distrust and requirements first, and reads the industry and role without the age', () => {
    const profile = offlinePersonaProfile({ description: LOGISTICS }, { seed: 1 });
    expect(profile.name).not.toMatch(/year-old/i);
    expect(profile.name).toMatch(/Operations Director$/);
    expect(profile.category).toBe('Operations & Logistics');
    expect(profile.details.industry).toBe('Logistics');
    expect(profile.details.pains[0]).toBe('Pressure to cut fuel costs and driver turnover');
    expect(profile.details.objections.slice(0, 2)).toEqual(['I do not trust vendors who overpromise on AI', 'Anything new has to work with our existing TMS']);
    expect(profile.details.tech_stack[0]).toBe('TMS');
    // Was "Make regional more predictable", "Too many disconnected tools for 45-year-old".
    const lists = [...profile.details.goals, ...profile.details.pains, ...profile.details.primary_objectives, ...profile.details.triggers].join(' | ');
    expect(lists).not.toMatch(/year-old|\bregional\b/i);
    expect(contractErrors('CustomPersona', asCustomPersona(profile))).toEqual([]);
  });

  it('makes no subject of a place, a verb or a word of time, and drops its guesses once the description speaks', () => {
    const NURSE =
      'A 29-year-old nurse in Manchester who works night shifts, cooks in batches on Sundays, wants to save for a deposit on a flat, and hates subscription apps that are hard to cancel.';
    const profile = offlinePersonaProfile({ description: NURSE }, { seed: 1 });
    expect(profile.details.goals[0]).toBe('Save for a deposit on a flat');
    expect(profile.details.pains[0]).toBe('Subscription apps that are hard to cancel');
    // Were "Find manchester options that fit daily life", "Save time on night", "Confusing choices around manchester".
    const lists = [...profile.details.goals, ...profile.details.pains, ...profile.details.primary_objectives, ...profile.details.triggers].join(' | ');
    expect(lists).not.toMatch(/manchester|\bnight\b|\bhates\b|\bcooks\b|\bshifts\b|\bbatches\b/i);
    expect(contractErrors('CustomPersona', asCustomPersona(profile))).toEqual([]);
  });

  it('reads a consumer description the same way', () => {
    const facts = descriptionFacts(
      'A busy nurse who struggles to find time to cook, wants to eat healthier and is tired of meal kits that take an hour. She is sceptical of subscription boxes.',
    );
    expect(facts.pains).toEqual(['Struggling to find time to cook', 'Meal kits that take an hour']);
    expect(facts.goals).toEqual(['Eat healthier']);
    expect(facts.objections).toEqual(['I am wary of subscription boxes']);
    expect(descriptionFacts('A 31-year-old first-time buyer.').age).toBe(31);
    expect([17, 22, 31, 45, 67, 80].map(ageBandOf)).toEqual(['Under 18', '18–24', '25–34', '45–54', '65–74', '75+']);
  });
});

describe('persona profile through an upstream model', () => {
  it('generates a persona through a json_schema call and enforces hints and pipeline rules', async () => {
    const offline = await createOfflineEngine().generatePersona({ description: 'A clinic manager who buys scheduling software.', pipeline_type: 'advanced' });
    fake.enqueue({
      content: JSON.stringify({
        name: offline.name,
        category: offline.category,
        type: offline.type,
        details: offline.details,
        ai_generated: offline.ai_generated,
      }),
    });
    const generated = await upstream.generatePersona({ description: 'A clinic manager who buys scheduling software.', hints: { industry: 'Dental care' } });
    expect(generated.pipeline_type).toBe('north_star');
    expect(generated.details.industry).toBe('Dental care');
    // Fields outside north_star are emptied whatever the model wrote.
    expect(generated.details.mcda_weights).toEqual({});
    expect(contractErrors('PersonaDetails', generated.details)).toEqual([]);
    expect(fake.requests[0]!.body.response_format.json_schema.name).toBe('persona_profile');
  });
});

describe('persona profile as a feature', () => {
  it('is what engine.generatePersona returns, on either engine', async () => {
    const input = { description: 'A night-shift nurse who orders meal kits.', pipeline_type: 'intermediate' as const };
    const { output } = await engine.run(personaProfile, input);
    expect(output).toEqual(await engine.generatePersona(input));
    expect(personaProfile.name).toBe('persona_profile');
    fake.enqueue({
      content: JSON.stringify({ name: output.name, category: output.category, type: output.type, details: output.details, ai_generated: output.ai_generated }),
    });
    const viaRun = await upstream.run(personaProfile, input);
    expect(viaRun.output.details.pipeline_type).toBe('intermediate');
    expect(viaRun.usage.source).toBe('upstream');
  });
});
