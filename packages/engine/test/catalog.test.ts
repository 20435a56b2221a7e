import { describe, expect, it } from 'vitest';
import {
  basePersonas,
  basePersonaSystemPrompt,
  CATALOG_CREATED_AT,
  DETAILS_FIELDS,
  enginePersonaFromBase,
  fieldApplies,
  getBasePersona,
} from '../src/index.js';
import { contractErrors } from './support/contract.js';

describe('base persona catalog', () => {
  it('has at least 12 personas, both B2B and B2C, with unique well-formed ids', () => {
    expect(basePersonas.length).toBeGreaterThanOrEqual(12);
    expect(basePersonas.some((persona) => persona.type === 'B2B')).toBe(true);
    expect(basePersonas.some((persona) => persona.type === 'B2C')).toBe(true);
    const ids = basePersonas.map((persona) => persona.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(id).toMatch(/^persona_[A-Za-z0-9_-]+$/);
      expect(id.length).toBeLessThanOrEqual(64);
    }
  });

  it.each(basePersonas.map((persona) => [persona.id, persona] as const))('%s is valid against BasePersona of the bundle', (_id, persona) => {
    expect(contractErrors('BasePersona', persona)).toEqual([]);
    expect(persona.created_at).toBe(CATALOG_CREATED_AT);
    expect(persona.details.pipeline_type).toBe(persona.pipeline_type);
    expect(persona.details.persona_type).toBe(persona.type);
  });

  it.each(basePersonas.map((persona) => [persona.id, persona] as const))('%s fills every field that applies to its type and pipeline', (_id, persona) => {
    const details = persona.details as unknown as Record<string, unknown>;
    const empty: string[] = [];
    for (const field of DETAILS_FIELDS) {
      if (!fieldApplies(field, persona.type ?? null, persona.pipeline_type)) continue;
      const value = details[field];
      // locale_value is legitimately null for a global persona.
      if (field === 'locale_value' && details.locale_scope === 'global') continue;
      if (field === 'is_localized' || field === 'price_sensitivity_delta') {
        expect(value).not.toBeNull();
        continue;
      }
      const isEmpty =
        value === null || (Array.isArray(value) && value.length === 0) || (typeof value === 'object' && value !== null && Object.keys(value).length === 0);
      if (isEmpty) empty.push(field);
    }
    expect(empty).toEqual([]);
  });

  it.each(basePersonas.filter((persona) => persona.pipeline_type === 'advanced').map((persona) => [persona.id, persona] as const))(
    '%s has decision weights summing to 1',
    (_id, persona) => {
      const total = Object.values(persona.details.mcda_weights).reduce((sum, weight) => sum + weight, 0);
      expect(total).toBeCloseTo(1, 6);
    },
  );

  it('keeps a multi-paragraph system prompt apart from the public shape', () => {
    for (const persona of basePersonas) {
      const prompt = basePersonaSystemPrompt(persona.id);
      expect(prompt).toBeDefined();
      expect(prompt!.split('\n\n').length).toBeGreaterThanOrEqual(4);
      expect(prompt).toContain(persona.name.split(',')[0]);
      expect(prompt).toMatch(/Never say you are an AI/);
      expect(JSON.stringify(persona)).not.toContain(prompt!.slice(0, 60));
      expect(enginePersonaFromBase(persona).system_prompt).toBe(prompt);
    }
  });

  it('the contract check catches a broken entry', () => {
    const persona = basePersonas[0]!;
    const { goals: _goals, ...withoutGoals } = persona.details;
    expect(contractErrors('BasePersona', { ...persona, details: withoutGoals }).join()).toMatch(/goals/);
    expect(contractErrors('BasePersona', { ...persona, id: 'persona saas' })).not.toEqual([]);
  });

  it('looks personas up by id', () => {
    expect(getBasePersona('persona_saas_cfo')?.name).toMatch(/CFO/);
    expect(getBasePersona('persona_missing')).toBeUndefined();
  });
});
