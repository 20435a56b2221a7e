// Which `details` fields each pipeline produces and which apply to B2B or B2C personas (PersonaDetails.yaml,
// PersonaPipelineType.yaml, DECISIONS.md "Personas"): a field outside them is null, `[]`, `{}` or false.
import type { PersonaDetails, PersonaType, PipelineType } from '../types.js';

export type DetailsField = keyof PersonaDetails;

/** Fields only a B2B persona has (the spec marks them "(B2B)"). */
export const B2B_FIELDS = [
  'role_title',
  'seniority',
  'industry',
  'company_size',
  'budget_authority',
  'tech_stack',
  'procurement_constraints',
  'committee_mapping',
] as const satisfies readonly DetailsField[];

/** Fields only a B2C persona has (the spec marks them "(B2C)"). */
export const B2C_FIELDS = ['life_stage', 'age_band', 'income_band', 'household_context', 'lifestyle_affinities'] as const satisfies readonly DetailsField[];

/** `intermediate` adds the buying context: committee, proof, alternatives, win factors, localisation. */
export const INTERMEDIATE_FIELDS = [
  'proof_types',
  'alternatives',
  'win_factors',
  'proof_preferences',
  'procurement_constraints',
  'committee_mapping',
  'key_differentiators',
  'regulatory_context',
  'locale_scope',
  'locale_value',
  'local_channels',
  'local_objections',
  'local_keywords',
  'is_localized',
  'price_sensitivity_delta',
] as const satisfies readonly DetailsField[];

/** `advanced` also fills the decision weights, the purpose packs and the five configurations. */
export const ADVANCED_FIELDS = [
  'mcda_weights',
  'purpose_packs_enabled',
  'acquisition_config',
  'pmm_config',
  'content_config',
  'sales_config',
  'research_config',
] as const satisfies readonly DetailsField[];

const STRING_FIELDS = [
  'primary_use_case',
  'buying_stage',
  'decision_role',
  'brand_voice_fit',
  'reading_level',
  'role_title',
  'seniority',
  'industry',
  'company_size',
  'budget_authority',
  'life_stage',
  'age_band',
  'income_band',
  'purchase_cadence',
  'locale_scope',
  'locale_value',
] as const satisfies readonly DetailsField[];

const ARRAY_FIELDS = [
  'role_segment',
  'primary_objectives',
  'goals',
  'pains',
  'triggers',
  'channels',
  'proof_types',
  'alternatives',
  'win_factors',
  'objections',
  'values',
  'proof_preferences',
  'tone_guardrails',
  'tech_stack',
  'procurement_constraints',
  'committee_mapping',
  'household_context',
  'lifestyle_affinities',
  'key_differentiators',
  'regulatory_context',
  'local_channels',
  'local_objections',
  'local_keywords',
] as const satisfies readonly DetailsField[];

const OBJECT_FIELDS = [
  'mcda_weights',
  'purpose_packs_enabled',
  'acquisition_config',
  'pmm_config',
  'content_config',
  'sales_config',
  'research_config',
] as const satisfies readonly DetailsField[];

/** Every field of PersonaDetails, in the spec's order (the kinds above, interleaved as the spec has them). */
export const DETAILS_FIELDS: readonly DetailsField[] = [
  'pipeline_type',
  'persona_type',
  ...STRING_FIELDS,
  ...ARRAY_FIELDS,
  'is_localized',
  'price_sensitivity_delta',
  ...OBJECT_FIELDS,
];

/** Whether `field` applies to a persona of this type made by this pipeline. */
export function fieldApplies(field: DetailsField, type: PersonaType | null, pipeline: PipelineType): boolean {
  if (type !== 'B2B' && (B2B_FIELDS as readonly DetailsField[]).includes(field)) return false;
  if (type !== 'B2C' && (B2C_FIELDS as readonly DetailsField[]).includes(field)) return false;
  if (
    pipeline === 'north_star' &&
    ((INTERMEDIATE_FIELDS as readonly DetailsField[]).includes(field) || (ADVANCED_FIELDS as readonly DetailsField[]).includes(field))
  )
    return false;
  if (pipeline === 'intermediate' && (ADVANCED_FIELDS as readonly DetailsField[]).includes(field)) return false;
  return true;
}

/** The "does not apply" value of a field: null, `[]`, `{}` or false. */
export function emptyValue(field: DetailsField): unknown {
  if (field === 'is_localized') return false;
  if ((ARRAY_FIELDS as readonly DetailsField[]).includes(field)) return [];
  if ((OBJECT_FIELDS as readonly DetailsField[]).includes(field)) return {};
  if ((STRING_FIELDS as readonly DetailsField[]).includes(field) || field === 'price_sensitivity_delta' || field === 'persona_type') return null;
  return null;
}

/**
 * Complete details: every field present, the given value where the field applies, its empty value
 * elsewhere; `pipeline_type` and `persona_type` mirror the persona. `keep` lists fields kept even where
 * they would not apply (hints the caller pinned).
 */
export function completeDetails(
  given: Partial<PersonaDetails>,
  type: PersonaType | null,
  pipeline: PipelineType,
  keep: readonly DetailsField[] = [],
): PersonaDetails {
  const out: Record<string, unknown> = {};
  for (const field of DETAILS_FIELDS) {
    const value = given[field];
    const applies = fieldApplies(field, type, pipeline) || keep.includes(field);
    out[field] = applies && value !== undefined ? value : emptyValue(field);
  }
  out.pipeline_type = pipeline;
  out.persona_type = type;
  if (typeof out.locale_value === 'string' && keep.includes('locale_value')) out.is_localized = true;
  return out as unknown as PersonaDetails;
}
