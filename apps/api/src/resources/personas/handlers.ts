import type { SuggestionSourceText } from '@persona-api/engine';
import type { components } from '@persona-api/types';
import { and, eq, ilike, or, sql } from 'drizzle-orm';
import { budgetAlertHeader, chargeCredits, checkCredits } from '../billing/credits.js';
import type { Handler } from '../contract/handler-types.js';
import { files, personas, workspaceMembers } from '../db/schema/index.js';
import type { RequestContext } from '../http/context.js';
import { ApiError } from '../http/errors.js';
import { clientDisconnectSignal } from '../http/sse.js';
import { newId } from '../lib/ids.js';
import { containsPattern, keyset, toPage } from '../lib/pagination.js';
import { applyPatch } from '../lib/patch.js';
import { defaultWorkspace, requireMembership, requireRole, type Membership } from '../workspaces/access.js';
import { apiErrorOf } from '../ai/model-call.js';
import { findPersona, toCustomPersona, toPersona, visibleTo, type PersonaRow } from '../ai/personas.js';
import { fetchSourceText } from '../ai/sources.js';

type UpdateRequest = components['schemas']['PersonaUpdateRequest'];
type PersonaDetails = components['schemas']['PersonaDetails'];

/** The seed's price of a custom persona (DECISIONS.md, Credits: a flat price, known up front). */
export const CUSTOM_PERSONA_CREDITS = 300;

const notCustomizable = (row: PersonaRow, doing: string) =>
  new ApiError(400, 'persona_not_customizable', `${row.id} is a base persona of the catalog and cannot be ${doing}; create a custom persona instead.`, 'id');

export const listPersonas: Handler<'listPersonas'> = async ({ query }, ctx) => {
  if (query.workspace_id) await requireMembership(ctx.db, query.workspace_id, ctx.auth.userId, 'workspace_id');
  const page = { list: `personas:${query.workspace_id ?? '*'}`, limit: query.limit ?? 50, cursor: query.cursor };
  const { after, orderBy, fetch } = keyset(page, { sortKey: personas.createdAt, id: personas.id });
  const rows = await ctx.db
    .select({ row: personas })
    .from(personas)
    .leftJoin(workspaceMembers, and(eq(workspaceMembers.workspaceId, personas.workspaceId), eq(workspaceMembers.userId, ctx.auth.userId)))
    .where(
      and(
        visibleTo(ctx.auth.userId),
        query.is_custom === undefined ? undefined : eq(personas.isCustom, query.is_custom),
        // The workspace filter narrows custom personas only; base personas belong to no workspace.
        query.workspace_id ? or(eq(personas.isCustom, false), eq(personas.workspaceId, query.workspace_id)) : undefined,
        query.type ? eq(personas.type, query.type) : undefined,
        query.category ? sql`lower(${personas.category}) = lower(${query.category})` : undefined,
        query.search ? ilike(personas.name, containsPattern(query.search)) : undefined,
        after,
      ),
    )
    .orderBy(...orderBy)
    .limit(fetch);
  return toPage(page, rows, ({ row }) => ({ sortKey: row.createdAt, id: row.id }), ({ row }) => toPersona(row));
};

export const getPersona: Handler<'getPersona'> = async ({ params }, ctx) => toPersona((await findPersona(ctx.db, ctx.auth.userId, params.id)).row);

/** The workspace a create call names, else the caller's default one (400 when they own none). */
async function targetWorkspace(ctx: RequestContext, workspaceId: string | undefined): Promise<Membership> {
  if (workspaceId) return requireMembership(ctx.db, workspaceId, ctx.auth.userId, 'workspace_id');
  const membership = await defaultWorkspace(ctx.db, ctx.auth.userId);
  if (!membership) throw new ApiError(400, 'missing_parameter', 'workspace_id is required: you own no workspace it could default to.', 'workspace_id');
  return membership;
}

export const createPersona: Handler<'createPersona'> = async ({ body }, ctx) => {
  const membership = await targetWorkspace(ctx, body.workspace_id);
  // Creates content and costs credits: both permissions (DECISIONS.md, Workspace roles ²).
  requireRole(membership.role, 'content.create', 'create custom personas in this workspace');
  requireRole(membership.role, 'ai.call', 'make paid AI calls in this workspace');
  const workspaceId = membership.workspace.id;
  await checkCredits(ctx.db, { accountId: ctx.auth.accountId, workspaceId, estimate: CUSTOM_PERSONA_CREDITS, pricing: 'fixed', now: ctx.now() });
  const generated = await ctx.engine
    .generatePersona(
      {
        description: body.description,
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.type !== undefined ? { type: body.type } : {}),
        ...(body.category !== undefined ? { category: body.category } : {}),
        pipeline_type: body.pipeline_type ?? 'north_star',
        ...(body.hints !== undefined ? { hints: body.hints } : {}),
      },
      clientDisconnectSignal(ctx.reply),
    )
    .catch((error: unknown) => {
      throw apiErrorOf(ctx, error);
    });
  const now = ctx.now();
  const row: PersonaRow = {
    id: newId('cp'),
    isCustom: true,
    accountId: ctx.auth.accountId,
    workspaceId,
    createdByUserId: ctx.auth.userId,
    name: body.name ?? generated.name,
    category: body.category ?? generated.category,
    description: body.description,
    type: body.type ?? generated.type,
    pipelineType: generated.pipeline_type,
    details: generated.details,
    aiGenerated: generated.ai_generated,
    creditsCharged: CUSTOM_PERSONA_CREDITS,
    createdAt: now,
    updatedAt: now,
  };
  const charge = await ctx.db.transaction(async (tx) => {
    await tx.insert(personas).values(row);
    return chargeCredits(tx, {
      accountId: ctx.auth.accountId,
      workspaceId,
      apiKeyId: ctx.auth.apiKeyId,
      amount: CUSTOM_PERSONA_CREDITS,
      pricing: 'fixed',
      description: `Custom persona ${row.id}`,
      operationId: ctx.operationId,
      requestId: ctx.requestId,
      now,
    });
  });
  const alert = budgetAlertHeader(charge);
  if (alert) ctx.reply.header('budget-alert', alert);
  return toCustomPersona(row);
};

// PATCH fields that live in `details` (everything but name and description), under the same name.
const DETAIL_FIELDS = [
  'role_title',
  'seniority',
  'industry',
  'company_size',
  'budget_authority',
  'life_stage',
  'age_band',
  'income_band',
  'purchase_cadence',
  'goals',
  'pains',
  'triggers',
  'channels',
  'objections',
  'values',
  'proof_preferences',
  'tone_guardrails',
  'alternatives',
  'win_factors',
  'tech_stack',
  'procurement_constraints',
  'household_context',
  'lifestyle_affinities',
  'key_differentiators',
  'regulatory_context',
] as const satisfies readonly (keyof UpdateRequest & keyof PersonaDetails)[];
const DETAIL_COLUMNS = Object.fromEntries(DETAIL_FIELDS.map((field) => [field, field])) as { [Field in (typeof DETAIL_FIELDS)[number]]: Field };

export const updatePersona: Handler<'updatePersona'> = async ({ params, body }, ctx) => {
  return ctx.db.transaction(async (tx) => {
    const { row, role } = await findPersona(tx, ctx.auth.userId, params.id);
    if (!row.isCustom || !role) throw notCustomizable(row, 'changed');
    requireRole(role, 'content.update', 'update custom personas in this workspace');
    // Only the given fields change; an array replaces the whole list; nothing is regenerated.
    const details = applyPatch(row.details, body, DETAIL_COLUMNS);
    const next: PersonaRow = { ...applyPatch(row, body, { name: 'name', description: 'description' }), details, updatedAt: ctx.now() };
    await tx.update(personas).set({ name: next.name, description: next.description, details: next.details, updatedAt: next.updatedAt }).where(eq(personas.id, row.id));
    return toCustomPersona(next);
  });
};

export const deletePersona: Handler<'deletePersona'> = async ({ params }, ctx) => {
  await ctx.db.transaction(async (tx) => {
    const { row, role } = await findPersona(tx, ctx.auth.userId, params.id);
    if (!row.isCustom || !role) throw notCustomizable(row, 'deleted');
    requireRole(role, 'content.delete', 'delete custom personas in this workspace');
    await tx.delete(personas).where(eq(personas.id, row.id));
  });
  return { id: params.id, object: 'custom_persona', deleted: true };
};

/**
 * Suggestions are free (DECISIONS.md) but model work, so `ai.call` applies in the default workspace.
 * URL sources are fetched with a short timeout; unreachable ones are skipped and not counted. A file
 * source must name a file the caller can see (404 otherwise); files have no readable content stored
 * yet, so they are skipped as well.
 */
export const suggestPersonas: Handler<'suggestPersonas'> = async ({ body }, ctx) => {
  const membership = await defaultWorkspace(ctx.db, ctx.auth.userId);
  if (membership) requireRole(membership.role, 'ai.call', 'make AI calls in this workspace');
  const sources = body.sources ?? [];
  for (const [index, source] of sources.entries()) {
    if (source.type !== 'file') continue;
    const [file] = await ctx.db
      .select({ id: files.id })
      .from(files)
      .innerJoin(workspaceMembers, and(eq(workspaceMembers.workspaceId, files.workspaceId), eq(workspaceMembers.userId, ctx.auth.userId)))
      .where(eq(files.id, source.file_id))
      .limit(1);
    if (!file) throw new ApiError(404, 'resource_not_found', `No such file: ${source.file_id}.`, `sources.${index}.file_id`);
  }
  const read = await Promise.all(
    sources.map(async (source): Promise<SuggestionSourceText | null> => {
      if (source.type !== 'url') return null;
      const text = await fetchSourceText(source.url, ctx.sourceFetch);
      return text === null ? null : { ...(source.name ? { name: source.name } : {}), text };
    }),
  );
  const result = await ctx.engine
    .suggestPersonas(
      {
        business_description: body.business_description,
        target_customers: body.target_customers,
        goals: body.goals,
        sources: read.filter((source): source is SuggestionSourceText => source !== null),
      },
      clientDisconnectSignal(ctx.reply),
    )
    .catch((error: unknown) => {
      throw apiErrorOf(ctx, error);
    });
  return { object: 'list', data: result.data, input_summary: result.input_summary };
};
