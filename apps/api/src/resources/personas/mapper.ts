import { enginePersonaFromBase, enginePersonaFromCustom, getBasePersona, type EnginePersona } from '@persona-api/engine';
import type { BasePersona, CustomPersona, Persona } from '@persona-api/types';
import { unix } from '../../lib/wire.js';
import type { personas } from './table.js';

export type PersonaRow = typeof personas.$inferSelect;

export function toCustomPersona(row: PersonaRow): CustomPersona {
  return {
    id: row.id,
    object: 'custom_persona',
    name: row.name,
    category: row.category,
    description: row.description,
    pipeline_type: row.pipelineType,
    type: row.type,
    is_custom: true,
    workspace_id: row.workspaceId ?? '',
    created_at: unix(row.createdAt),
    credits_charged: row.creditsCharged,
    details: row.details,
    ai_generated: row.aiGenerated ?? { confidence: 0, rationale: '' },
  };
}

export function toPersona(row: PersonaRow): Persona {
  if (row.isCustom) return toCustomPersona(row);
  return {
    id: row.id,
    object: 'persona',
    name: row.name,
    category: row.category,
    description: row.description,
    pipeline_type: row.pipelineType,
    type: row.type,
    is_custom: false,
    created_at: unix(row.createdAt),
    details: row.details,
  };
}

/** What the engine needs: a base persona's curated system prompt, or one composed from a custom profile. */
export function enginePersonaOf(row: PersonaRow): EnginePersona {
  if (row.isCustom) return enginePersonaFromCustom(toCustomPersona(row));
  return enginePersonaFromBase(getBasePersona(row.id) ?? (toPersona(row) as BasePersona));
}
