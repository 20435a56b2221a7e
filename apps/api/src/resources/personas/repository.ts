import { enginePersonaFromBase, getBasePersona, type EnginePersona } from '@persona-api/engine';
import { and, eq, ilike, not, or, sql, getTableColumns } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { CALLER, memberOf, pageAcrossWorkspaces, pageSource } from '../../db/scoped.js';
import { errors } from '../../http/errors.js';
import { containsPattern, listPage, type ListQuery } from '../../lib/pagination.js';
import type { WorkspaceRole } from '../../workspaces/roles.js';
import { workspaceMembers } from '../workspaces/table.js';
import { enginePersonaOf, toPersona, type PersonaRow } from './mapper.js';
import { announcePersonasChanged, personaCacheOf } from './cache.js';
import { personas } from './table.js';

/** Base personas, and custom personas of workspaces the user belongs to: what a caller may see (with `memberOf` left-joined). */
const visibleTo = (userId: string) => or(eq(personas.isCustom, false), and(eq(personas.isCustom, true), eq(workspaceMembers.userId, userId)));

/**
 * A persona the caller may use, with their role in its workspace (null for a base persona). Another
 * tenant's custom persona is the same 404 as one that does not exist.
 */
export async function findPersona(db: Executor, userId: string, id: string, param = 'id'): Promise<{ row: PersonaRow; role: WorkspaceRole | null }> {
  const [found] = await db
    .select({ row: personas, role: workspaceMembers.role })
    .from(personas)
    .leftJoin(workspaceMembers, memberOf(personas.workspaceId, userId))
    .where(and(eq(personas.id, id), visibleTo(userId)))
    .limit(1);
  if (!found) throw errors.notFound('persona', id, param);
  return { row: found.row, role: (found.role as WorkspaceRole | null) ?? null };
}

/**
 * The persona a model call answers as. Base personas come straight from the engine's catalog (the
 * table holds the same rows, seeded from it), which saves the hot path a query; custom ones are read
 * with the caller's visibility (another tenant's is a 404 naming `param`).
 */
export async function personaForCall(db: Executor, userId: string, id: string, param: string): Promise<{ id: string; persona: EnginePersona }> {
  const base = getBasePersona(id);
  if (base) return { id, persona: enginePersonaFromBase(base) };
  const read = async () => {
    const { row } = await findPersona(db, userId, id, param);
    return { id: row.id, persona: enginePersonaOf(row) };
  };
  // A 404 is not cached (the read throws): a guess costs a lookup.
  return personaCacheOf(db)?.get(userId, id, read) ?? read();
}

export interface PersonaFilters extends ListQuery {
  workspace_id?: string | undefined;
  is_custom?: boolean | undefined;
  type?: 'B2B' | 'B2C' | undefined;
  category?: string | undefined;
  search?: string | undefined;
}

export function listPersonasOf(db: Executor, userId: string, query: PersonaFilters) {
  const base = not(personas.isCustom);
  return listPage(query, {
    list: `personas:${query.workspace_id ?? '*'}`,
    keyset: { sortKey: personas.createdAt, id: personas.id },
    // `is_custom` changes the statement (base only; custom only; both), not a value: a name each.
    prepared: {
      db,
      name: query.is_custom === false ? 'personas_base' : query.is_custom === true ? 'personas_custom' : 'personas',
      values: {
        user_id: query.is_custom === false ? undefined : userId,
        workspace_id: query.is_custom === false ? undefined : query.workspace_id,
        type: query.type,
        category: query.category,
        search: query.search ? containsPattern(query.search) : undefined,
      },
    },
    filters: [
      query.is_custom === false ? base : undefined,
      query.type ? eq(personas.type, sql.placeholder('type')) : undefined,
      query.category ? sql`lower(${personas.category}) = lower(${sql.placeholder('category')})` : undefined,
      query.search ? ilike(personas.name, sql.placeholder('search')) : undefined,
    ],
    // What the caller sees: the base personas (their own partial index, personas_base_page_idx) and a page of
    // custom personas per workspace of theirs (the workspace filter narrows these only), never a walk past
    // other tenants' custom personas. Base personas alone need no workspace.
    acrossWorkspaces:
      query.is_custom === false
        ? undefined
        : pageAcrossWorkspaces(personas, { workspaceId: personas.workspaceId }, CALLER, {
            workspaceId: query.workspace_id ? sql.placeholder('workspace_id') : undefined,
            outside: query.is_custom === true ? undefined : base,
          }),
    rows: (page) =>
      db
        .select(getTableColumns(personas))
        .from(pageSource(personas, page))
        .where(page.where)
        .orderBy(...page.orderBy)
        .limit(page.fetch),
    keyOf: (row) => ({ sortKey: row.createdAt, id: row.id }),
    toItem: toPersona,
  });
}

export async function insertPersona(db: Executor, row: PersonaRow): Promise<void> {
  await db.insert(personas).values(row);
}

/** Writes what a PATCH may change: the name, the description and the details; cached copies are dropped at commit. */
export async function updatePersonaRow(tx: Executor, next: PersonaRow): Promise<void> {
  await tx
    .update(personas)
    .set({ name: next.name, description: next.description, details: next.details, updatedAt: next.updatedAt })
    .where(eq(personas.id, next.id));
  await announcePersonasChanged(tx);
}

export async function deletePersonaRow(tx: Executor, id: string): Promise<void> {
  await tx.delete(personas).where(eq(personas.id, id));
  await announcePersonasChanged(tx);
}
