import { describe, expect, it } from 'vitest';
import { createOfflineEngine, type GeneratedPersona } from '../src/index.js';
import { contractErrors } from './support/contract.js';

const engine = createOfflineEngine();

// The server wraps a generated persona into a CustomPersona; validating that shape checks every part.
function asCustomPersona(generated: GeneratedPersona) {
  return { id: 'cp_test', object: 'custom_persona', is_custom: true, workspace_id: 'ws_test', created_at: 1767225600, credits_charged: 300, ...generated };
}

describe('offline persona generation', () => {
  it('generates a valid custom persona for each pipeline', async () => {
    for (const pipeline_type of ['north_star', 'intermediate', 'advanced'] as const) {
      const generated = await engine.generatePersona({ description: 'A procurement manager at a mid-size logistics firm who buys fleet telematics software.', pipeline_type });
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
      hints: { role_title: 'Head of Clinic Operations', company_size: '51–200 employees', locale_scope: 'country', locale_value: 'pl-PL', goals: ['Fill last-minute cancellations'], channels: ['LinkedIn'] },
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
    const many = { ...request, target_customers: ['a1', 'b2', 'c3', 'd4', 'e5', 'f6', 'g7', 'h8'], sources: [{ text: 'Studios with 2 to 10 instructors.' }, { name: 'pricing', text: 'Plans from $49.' }] };
    const result = await engine.suggestPersonas(many);
    expect(result.data).toHaveLength(6);
    expect(result.input_summary.sources_count).toBe(2);
    expect(contractErrors('PersonaSuggestionList', { object: 'list', ...result })).toEqual([]);
  });
});
