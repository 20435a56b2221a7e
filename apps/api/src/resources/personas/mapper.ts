import { enginePersonaFromBase, enginePersonaFromCustom, getBasePersona, type EnginePersona } from '@persona-api/engine';
import type { components } from '@persona-api/types';
import { and, eq, or } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { personas, workspaceMembers } from '../db/schema/index.js';
import { errors } from '../http/errors.js';
import type { WorkspaceRole } from '../workspaces/roles.js';

export type BasePersona = components['schemas']['BasePersona'];
export type CustomPersona = components['schemas']['CustomPersona'];
export type Persona = components['schemas']['Persona'];
export type PersonaRow = typeof personas.$inferSelect;

const unixSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

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
    created_at: unixSeconds(row.createdAt),
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
    created_at: unixSeconds(row.createdAt),
    details: row.details,
  };
}

/** Base personas, and custom personas of workspaces the user belongs to: what a caller may see. */
export const visibleTo = (userId: string) =>
  or(eq(personas.isCustom, false), and(eq(personas.isCustom, true), eq(workspaceMembers.userId, userId)));

/**
 * A persona the caller may use, with their role in its workspace (null for a base persona). Another
 * tenant's custom persona is the same 404 as one that does not exist.
 */
export async function findPersona(db: Executor, userId: string, id: string, param = 'id'): Promise<{ row: PersonaRow; role: WorkspaceRole | null }> {
  const [found] = await db
    .select({ row: personas, role: workspaceMembers.role })
    .from(personas)
    .leftJoin(workspaceMembers, and(eq(workspaceMembers.workspaceId, personas.workspaceId), eq(workspaceMembers.userId, userId)))
    .where(and(eq(personas.id, id), visibleTo(userId)))
    .limit(1);
  if (!found) throw errors.notFound('persona', id, param);
  return { row: found.row, role: (found.role as WorkspaceRole | null) ?? null };
}

/** What the engine needs: a base persona's curated system prompt, or one composed from a custom profile. */
export function enginePersonaOf(row: PersonaRow): EnginePersona {
  if (row.isCustom) return enginePersonaFromCustom(toCustomPersona(row));
  return enginePersonaFromBase(getBasePersona(row.id) ?? (toPersona(row) as BasePersona));
}

/**
 * The persona a model call answers as. Base personas come straight from the engine's catalog (the
 * table holds the same rows, seeded from it), which saves the hot path a query; custom ones are read
 * with the caller's visibility (another tenant's is a 404 naming `param`).
 */
export async function personaForCall(db: Executor, userId: string, id: string, param: string): Promise<{ id: string; persona: EnginePersona }> {
  const base = getBasePersona(id);
  if (base) return { id, persona: enginePersonaFromBase(base) };
  const { row } = await findPersona(db, userId, id, param);
  return { id: row.id, persona: enginePersonaOf(row) };
}
