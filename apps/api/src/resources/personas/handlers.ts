import type { SuggestionSourceText } from '@persona-api/engine';
import type { PersonaDetails, PersonaUpdateRequest } from '@persona-api/types';
import { apiErrorOf } from '../../ai/model-call.js';
import { chargedCreate } from '../../billing/charged-create.js';
import type { HandlerMap } from '../../contract/handler-types.js';
import { fileVisibleTo } from '../../db/unbuilt.js';
import type { RequestContext } from '../../http/context.js';
import { apiError, errors } from '../../http/errors.js';
import { clientDisconnectSignal } from '../../http/sse.js';
import { newId } from '../../lib/ids.js';
import { applyPatch, deleteInTransaction, patchInTransaction } from '../../lib/patch.js';
import { defaultWorkspace, requireMembership, requireRole, type Membership } from '../../workspaces/access.js';
import { toCustomPersona, toPersona, type PersonaRow } from './mapper.js';
import { personasChangedHere } from './cache.js';
import { deletePersonaRow, findPersona, insertPersona, listPersonasOf, updatePersonaRow } from './repository.js';
import { fetchSourceText, readFileSourceText } from './sources.js';

/** The seed's price of a custom persona (DECISIONS.md, Credits: a flat price, known up front). */
export const CUSTOM_PERSONA_CREDITS = 300;

const notCustomizable = (row: PersonaRow, doing: string) =>
  apiError('persona_not_customizable', `${row.id} is a base persona of the catalog and cannot be ${doing}; create a custom persona instead.`, 'id');

/** The workspace a create call names, else the caller's default one (400 when they own none). */
async function targetWorkspace(ctx: RequestContext, workspaceId: string | undefined): Promise<Membership> {
  if (workspaceId) return requireMembership(ctx.db, workspaceId, ctx.auth.userId, 'workspace_id');
  const membership = await defaultWorkspace(ctx.db, ctx.auth.userId);
  if (!membership) throw errors.missingParameter('workspace_id', 'workspace_id is required: you own no workspace it could default to.');
  return membership;
}

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
] as const satisfies readonly (keyof PersonaUpdateRequest & keyof PersonaDetails)[];
const DETAIL_COLUMNS = Object.fromEntries(DETAIL_FIELDS.map((field) => [field, field])) as { [Field in (typeof DETAIL_FIELDS)[number]]: Field };

export const personaHandlers = {
  listPersonas: async ({ query }, ctx) => {
    if (query.workspace_id) await requireMembership(ctx.db, query.workspace_id, ctx.auth.userId, 'workspace_id');
    return listPersonasOf(ctx.db, ctx.auth.userId, query);
  },

  getPersona: async ({ params }, ctx) => toPersona((await findPersona(ctx.db, ctx.auth.userId, params.id)).row),

  createPersona: async ({ body }, ctx) => {
    const membership = await targetWorkspace(ctx, body.workspace_id);
    // Creates content and costs credits: both permissions (DECISIONS.md, Workspace roles ²).
    requireRole(membership.role, 'content.create', 'create custom personas in this workspace');
    requireRole(membership.role, 'ai.call', 'make paid AI calls in this workspace');
    const workspaceId = membership.workspace.id;
    const { row } = await chargedCreate(ctx, {
      workspaceId,
      price: CUSTOM_PERSONA_CREDITS,
      description: (persona) => `Custom persona ${persona.id}`,
      produce: async (): Promise<PersonaRow> => {
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
        return {
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
      },
      store: insertPersona,
    });
    return toCustomPersona(row);
  },

  updatePersona: async ({ params, body }, ctx) => {
    const { next } = await patchInTransaction(ctx.db, {
      find: (tx) => findPersona(tx, ctx.auth.userId, params.id),
      authorize: ({ row, role }) => {
        if (!row.isCustom || !role) throw notCustomizable(row, 'changed');
        requireRole(role, 'content.update', 'update custom personas in this workspace');
      },
      // Only the given fields change; an array replaces the whole list; nothing is regenerated.
      merge: ({ row }): PersonaRow => ({
        ...applyPatch(row, body, { name: 'name', description: 'description' }),
        details: applyPatch(row.details, body, DETAIL_COLUMNS),
        updatedAt: ctx.now(),
      }),
      save: updatePersonaRow,
    });
    personasChangedHere();
    return toCustomPersona(next);
  },

  deletePersona: async ({ params }, ctx) => {
    const deletedPersona = await deleteInTransaction(ctx.db, { object: 'custom_persona', id: params.id }, async (tx) => {
      const { row, role } = await findPersona(tx, ctx.auth.userId, params.id);
      if (!row.isCustom || !role) throw notCustomizable(row, 'deleted');
      requireRole(role, 'content.delete', 'delete custom personas in this workspace');
      await deletePersonaRow(tx, row.id);
    });
    personasChangedHere();
    return deletedPersona;
  },

  /**
   * Suggestions are free (DECISIONS.md) but model work, so `ai.call` applies in the default workspace.
   * URL sources are fetched with the guarded fetcher; unreachable ones are skipped and not counted. A
   * file source must name a file the caller can see (404 otherwise); its document text is read from
   * storage, and a file that cannot be read is skipped and not counted as well.
   */
  suggestPersonas: async ({ body }, ctx) => {
    const membership = await defaultWorkspace(ctx.db, ctx.auth.userId);
    if (membership) requireRole(membership.role, 'ai.call', 'make AI calls in this workspace');
    const sources = body.sources ?? [];
    for (const [index, source] of sources.entries()) {
      if (source.type === 'file' && !(await fileVisibleTo(ctx.db, ctx.auth.userId, source.file_id))) {
        throw errors.notFound('file', source.file_id, `sources.${index}.file_id`);
      }
    }
    const read = await Promise.all(
      sources.map(async (source): Promise<SuggestionSourceText | null> => {
        const text =
          source.type === 'url'
            ? await fetchSourceText(source.url, ctx.services.fetcher)
            : await readFileSourceText(ctx.db, ctx.services.storage, source.file_id);
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
  },
} satisfies Pick<HandlerMap, 'listPersonas' | 'createPersona' | 'suggestPersonas' | 'getPersona' | 'updatePersona' | 'deletePersona'>;
