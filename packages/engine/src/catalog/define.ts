import type { BasePersona, PersonaDetails, PersonaType, PipelineType } from '../types.js';
import { completeDetails, fieldApplies, type DetailsField } from './pipeline.js';

/** When the catalog was published (2026-01-01T00:00:00Z): every base persona's `created_at`. */
export const CATALOG_CREATED_AT = 1767225600;

/** A catalog persona: its public shape and its curated system prompt (kept apart so it is never served). */
export interface CatalogEntry {
  persona: BasePersona;
  system_prompt: string;
}

export interface PersonaSpec {
  id: `persona_${string}`;
  name: string;
  category: string;
  description: string;
  type: PersonaType;
  pipeline_type: PipelineType;
  system_prompt: string;
  /** The fields that apply to the persona's type and pipeline; the rest are filled with empty values. */
  details: Partial<PersonaDetails>;
}

export function definePersona(spec: PersonaSpec): CatalogEntry {
  // An authoring slip (a B2C field on a B2B persona, a config on a north_star one) would be dropped silently.
  for (const field of Object.keys(spec.details) as DetailsField[]) {
    if (!fieldApplies(field, spec.type, spec.pipeline_type))
      throw new Error(`${spec.id}: details.${field} does not apply to a ${spec.type} ${spec.pipeline_type} persona`);
  }
  return {
    persona: {
      id: spec.id,
      object: 'persona',
      name: spec.name,
      category: spec.category,
      description: spec.description,
      pipeline_type: spec.pipeline_type,
      type: spec.type,
      is_custom: false,
      created_at: CATALOG_CREATED_AT,
      details: completeDetails(spec.details, spec.type, spec.pipeline_type),
    },
    system_prompt: spec.system_prompt,
  };
}
