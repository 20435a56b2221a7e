import { countTokens, creditsForTokens, generationAppTemplate, renderTemplate, type ContentVoice } from '@persona-api/engine';
import { clip } from '../../ai/source-text.js';
import type { GenerationCreateRequest } from '@persona-api/types';
import { holdCredits } from '../../billing/credits.js';
import type { HandlerMap } from '../../contract/handler-types.js';
import type { RequestContext } from '../../http/context.js';
import { ApiError, errors } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import { deleteInTransaction } from '../../lib/patch.js';
import { defaultWorkspace, requireMembership, requireRole, type Membership } from '../../workspaces/access.js';
import { findBrandVoice } from '../brand-voices/repository.js';
import { personaForCall } from '../personas/repository.js';
import { findProject } from '../projects/repository.js';
import { generate, generateStreamed, type GenerationPlan } from './generate.js';
import { readInputData } from './input-data.js';
import { toGeneration, toGenerationApp, type GenerationAppRow } from './mapper.js';
import { AvoidTermsFilter } from './output.js';
import { deleteGenerationRow, findGeneration, findGenerationApp, listGenerationAppsOf, listGenerationsOf } from './repository.js';

/** A project of the caller's workspaces; else the 404 names `project_id`. */
async function visibleProject(ctx: RequestContext, id: string) {
  try {
    return await findProject(ctx.db, ctx.auth.userId, id, ctx.now());
  } catch (error) {
    if (error instanceof ApiError && error.code === 'resource_not_found') throw errors.notFound('project', id, 'project_id');
    throw error;
  }
}

/**
 * Where the generation goes (DECISIONS.md): `workspace_id`, else the project's workspace, else the
 * caller's default one; a project of another workspace than `workspace_id` is a `parameter_conflict`.
 */
async function placeOf(ctx: RequestContext, body: GenerationCreateRequest): Promise<{ membership: Membership; projectId: string | null }> {
  const project = body.project_id ? await visibleProject(ctx, body.project_id) : null;
  let membership: Membership | null;
  if (body.workspace_id) membership = await requireMembership(ctx.db, body.workspace_id, ctx.auth.userId, 'workspace_id');
  else if (project) membership = await requireMembership(ctx.db, project.project.workspaceId, ctx.auth.userId, 'project_id');
  else membership = await defaultWorkspace(ctx.db, ctx.auth.userId);
  if (!membership) throw errors.missingParameter('workspace_id', 'workspace_id is required: you own no workspace it could default to.');
  if (project && project.project.workspaceId !== membership.workspace.id) {
    throw errors.parameterConflict('project_id', `Project ${project.project.id} belongs to another workspace than ${membership.workspace.id}.`);
  }
  return { membership, projectId: project?.project.id ?? null };
}

/** The brand voice to write in: visible (404), of the same workspace (400), `completed` (409). */
async function voiceOf(ctx: RequestContext, id: string, workspaceId: string): Promise<ContentVoice & { id: string }> {
  const { row } = await findBrandVoice(ctx.db, ctx.auth.userId, id, 'brand_voice_id');
  if (row.workspaceId !== workspaceId) throw errors.parameterConflict('brand_voice_id', `Brand voice ${id} belongs to another workspace than ${workspaceId}.`);
  if (row.status !== 'completed') {
    throw errors.conflict('invalid_state', `Brand voice ${id} is ${row.status}; only a completed voice can be written in.`, 'brand_voice_id');
  }
  return {
    id: row.id,
    label: row.label,
    voice_summary: row.voiceSummary,
    tone: row.tone,
    writing_style: row.writingStyle,
    vocabulary: row.vocabulary,
    example_phrases: row.examplePhrases,
  };
}

/** A title from the app and the first text the caller gave (DECISIONS.md: generated when none is given). */
function titleOf(app: GenerationAppRow, values: Record<string, unknown>, filter: AvoidTermsFilter): string {
  const first = app.inputFields.map((field) => values[field.name]).find((value): value is string => typeof value === 'string' && value.trim().length > 0);
  const subject = first ? filter.apply(first.split(/\n/)[0] ?? '').trim() : '';
  return clip(subject ? `${app.name}: ${clip(subject, 120)}` : app.name, 200);
}

export const generationHandlers = {
  listGenerationApps: async ({ query }, ctx) => listGenerationAppsOf(ctx.db, query),

  getGenerationApp: async ({ params }, ctx) => toGenerationApp(await findGenerationApp(ctx.db, params.id)),

  listGenerations: async ({ query }, ctx) => {
    if (query.workspace_id) await requireMembership(ctx.db, query.workspace_id, ctx.auth.userId, 'workspace_id');
    if (query.project_id) await visibleProject(ctx, query.project_id);
    return listGenerationsOf(ctx.db, ctx.auth.userId, query);
  },

  createGeneration: async ({ body }, ctx) => {
    const app = await findGenerationApp(ctx.db, body.app_id, 'app_id');
    const { membership, projectId } = await placeOf(ctx, body);
    // Creates content and costs credits: both permissions (DECISIONS.md, Workspace roles ²).
    requireRole(membership.role, 'content.create', 'create generations in this workspace');
    requireRole(membership.role, 'ai.call', 'make paid AI calls in this workspace');
    const values = readInputData(app.inputFields, body.input_data, app.name);
    const persona = body.persona_id ? await personaForCall(ctx.db, ctx.auth.userId, body.persona_id, 'persona_id') : null;
    const voice = body.brand_voice_id ? await voiceOf(ctx, body.brand_voice_id, membership.workspace.id) : null;
    const template = generationAppTemplate(app.id);
    if (!template) throw errors.notFound('generation_app', app.id, 'app_id');
    // 402 before any work unless the credits no other call holds cover the app's estimate (DECISIONS.md);
    // the hold covers the longest answer the app allows.
    const prompt = renderTemplate(template, values);
    const hold = await holdCredits(ctx.db, {
      accountId: ctx.auth.accountId,
      workspaceId: membership.workspace.id,
      projectId,
      floor: app.estimatedCredits,
      estimate: creditsForTokens(countTokens(prompt) + app.maxOutputTokens),
      now: ctx.now(),
    });
    const avoidTerms = voice?.vocabulary.avoid_terms ?? [];
    const now = ctx.now();
    const plan: GenerationPlan = {
      row: {
        id: newId('gen'),
        workspaceId: membership.workspace.id,
        projectId,
        createdByUserId: ctx.auth.userId,
        title: body.title ?? titleOf(app, values, new AvoidTermsFilter(avoidTerms)),
        output: '',
        contentType: app.outputContentType,
        appId: app.id,
        app: { id: app.id, name: app.name, category: app.category },
        brandVoice: voice ? { id: voice.id, label: voice.label } : null,
        persona: persona ? { id: persona.id, name: clip(persona.persona.name, 100) } : null,
        inputData: body.input_data,
        promptTokens: 0,
        completionTokens: 0,
        creditsUsed: 0,
        createdAt: now,
        updatedAt: now,
      },
      input: {
        app: { id: app.id, name: app.name, category: app.category, description: app.description, max_output_tokens: app.maxOutputTokens },
        prompt,
        values,
        persona: persona?.persona ?? null,
        voice,
      },
      avoidTerms,
      stream: body.stream ?? false,
      holdId: hold.id,
    };
    try {
      return plan.stream ? await generateStreamed(ctx, plan) : await generate(ctx, plan);
    } finally {
      await hold.release();
    }
  },

  getGeneration: async ({ params }, ctx) => {
    const { row } = await findGeneration(ctx.db, ctx.auth.userId, params.id);
    return toGeneration(row);
  },

  deleteGeneration: async ({ params }, ctx) =>
    deleteInTransaction(ctx.db, { object: 'generation', id: params.id }, async (tx) => {
      const { row, role } = await findGeneration(tx, ctx.auth.userId, params.id);
      requireRole(role, 'content.delete', 'delete generations in this workspace');
      // Credits it used are not refunded (DECISIONS.md).
      await deleteGenerationRow(tx, row);
    }),
} satisfies Pick<HandlerMap, 'listGenerationApps' | 'getGenerationApp' | 'listGenerations' | 'createGeneration' | 'getGeneration' | 'deleteGeneration'>;
