import { creditsForTokens, focusGroupAnswer, focusGroupSummary, sentimentBreakdown, type EnginePersona } from '@persona-api/engine';
import type { FocusGroupAnswer, PersonaReference } from '@persona-api/types';
import { apiErrorOf, OUTPUT_ALLOWANCE_CREDITS } from '../../ai/model-call.js';
import { budgetAlertHeader, chargeCredits, withCreditHold } from '../../billing/credits.js';
import type { HandlerMap } from '../../contract/handler-types.js';
import type { RequestContext } from '../../http/context.js';
import { errors } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import { defaultWorkspace, requireMembership, requireRole, type Membership } from '../../workspaces/access.js';
import { personaForCall } from '../personas/repository.js';
import { toFocusGroup, type FocusGroupRow } from './mapper.js';
import { findFocusGroup, insertFocusGroup, listFocusGroupsOf, updateFocusGroupRun } from './repository.js';

/** The workspace named by the body, else the caller's default one (400 when they own none). */
async function targetWorkspace(ctx: RequestContext, workspaceId: string | undefined): Promise<Membership> {
  if (workspaceId) return requireMembership(ctx.db, workspaceId, ctx.auth.userId, 'workspace_id');
  const membership = await defaultWorkspace(ctx.db, ctx.auth.userId);
  if (!membership) throw errors.missingParameter('workspace_id', 'workspace_id is required: you own no workspace it could default to.');
  return membership;
}

/** Tokens a feature's prompt sends: the floor of what the call costs (the 402 check before any work). */

/**
 * Runs the group: the row is stored `in_progress` first; every persona answers in parallel, and each
 * answer is written as it arrives (writes chained, so a slower write never overwrites a newer state);
 * after the last one the moderator summarises, and the charge and the completed row are written in one
 * transaction. A persona whose answer fails stops the others: the group is `failed` and costs nothing.
 * A client that leaves does not stop the run (DECISIONS.md): the group is stored, charged and readable.
 */
async function runFocusGroup(ctx: RequestContext, row: FocusGroupRow, personas: readonly EnginePersona[], holdId: string): Promise<FocusGroupRow> {
  const { db, engine } = ctx;
  const answers: (FocusGroupAnswer | null)[] = personas.map(() => null);
  let inputTokens = 0;
  let outputTokens = 0;
  let progress = Promise.resolve();
  const saveProgress = () => {
    const snapshot = [...answers];
    const usage = { inputTokens, outputTokens };
    progress = progress.then(() => updateFocusGroupRun(db, row.id, { answers: snapshot, ...usage, updatedAt: ctx.now() }));
    return progress;
  };
  const stop = new AbortController();
  try {
    await Promise.all(
      personas.map(async (persona, index) => {
        const { output, usage } = await engine
          .run(focusGroupAnswer, { question: row.question, instructions: row.instructions, persona }, { signal: stop.signal })
          .catch((error: unknown) => {
            stop.abort();
            throw error;
          });
        inputTokens += usage.input_tokens;
        outputTokens += usage.output_tokens;
        answers[index] = { persona: row.personas[index]!, ...output };
        await saveProgress();
      }),
    );
    const answered = answers.filter((answer) => answer !== null);
    const { output: moderated, usage } = await engine.run(focusGroupSummary, {
      question: row.question,
      instructions: row.instructions,
      answers: answered.map((answer) => ({
        persona_name: answer.persona.name,
        answer: answer.answer,
        sentiment: answer.sentiment,
        key_points: answer.key_points,
      })),
    });
    inputTokens += usage.input_tokens;
    outputTokens += usage.output_tokens;
    await progress;
    const summary = { ...moderated, sentiment_breakdown: sentimentBreakdown(answered) };
    const now = ctx.now();
    const { charged, alert } = await db.transaction(async (tx) => {
      const charge = await chargeCredits(tx, {
        accountId: row.accountId,
        workspaceId: row.workspaceId,
        apiKeyId: ctx.auth.apiKeyId,
        amount: creditsForTokens(inputTokens + outputTokens),
        pricing: 'metered',
        reservationId: holdId,
        description: `Focus group ${row.id} (${inputTokens + outputTokens} tokens)`,
        operationId: ctx.operationId,
        requestId: ctx.requestId,
        now,
      });
      await updateFocusGroupRun(tx, row.id, { status: 'completed', answers, summary, inputTokens, outputTokens, creditsUsed: charge.charged, updatedAt: now });
      return { charged: charge.charged, alert: budgetAlertHeader(charge) };
    });
    if (alert) ctx.setHeader('budget-alert', alert);
    return { ...row, status: 'completed', answers, summary, inputTokens, outputTokens, creditsUsed: charged, updatedAt: now };
  } catch (error) {
    await progress.catch(() => undefined);
    await updateFocusGroupRun(db, row.id, { status: 'failed', answers, inputTokens, outputTokens, creditsUsed: 0, updatedAt: ctx.now() });
    throw apiErrorOf(ctx, error);
  }
}

export const focusGroupHandlers = {
  listFocusGroups: async ({ query }, ctx) => {
    if (query.workspace_id) await requireMembership(ctx.db, query.workspace_id, ctx.auth.userId, 'workspace_id');
    return listFocusGroupsOf(ctx.db, ctx.auth.userId, query);
  },

  getFocusGroup: async ({ params }, ctx) => toFocusGroup(await findFocusGroup(ctx.db, ctx.auth.userId, params.id)),

  createFocusGroup: async ({ body }, ctx) => {
    const membership = await targetWorkspace(ctx, body.workspace_id);
    requireRole(membership.role, 'ai.call', 'make paid AI calls in this workspace');
    const personas: EnginePersona[] = [];
    for (const [index, id] of body.persona_ids.entries()) personas.push((await personaForCall(ctx.db, ctx.auth.userId, id, `persona_ids.${index}`)).persona);
    const instructions = body.instructions ?? null;
    // The prompts' input tokens are the floor of the cost: 402 before anything is stored.
    const estimate = personas.reduce((sum, persona) => sum + ctx.engine.inputTokensOf(focusGroupAnswer, { question: body.question, instructions, persona }), 0);
    return withCreditHold(
      ctx.db,
      {
        accountId: ctx.auth.accountId,
        workspaceId: membership.workspace.id,
        floor: creditsForTokens(estimate),
        estimate: creditsForTokens(estimate) + OUTPUT_ALLOWANCE_CREDITS * (personas.length + 1),
        now: ctx.now(),
      },
      async (hold) => {
        const now = ctx.now();
        const row: FocusGroupRow = {
          id: newId('fg'),
          accountId: ctx.auth.accountId,
          workspaceId: membership.workspace.id,
          createdByUserId: ctx.auth.userId,
          question: body.question,
          instructions,
          personas: personas.map(
            (persona): PersonaReference => ({ id: persona.id, name: persona.name.slice(0, 100), category: persona.category.slice(0, 100) }),
          ),
          status: 'in_progress',
          answers: personas.map(() => null),
          summary: null,
          inputTokens: 0,
          outputTokens: 0,
          creditsUsed: 0,
          createdAt: now,
          updatedAt: now,
        };
        await insertFocusGroup(ctx.db, row);
        return toFocusGroup(await runFocusGroup(ctx, row, personas, hold.id));
      },
    );
  },
} satisfies Pick<HandlerMap, 'listFocusGroups' | 'createFocusGroup' | 'getFocusGroup'>;
