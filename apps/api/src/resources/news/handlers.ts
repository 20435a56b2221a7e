import { countTokens, creditsForTokens, newsAnalysis } from '@persona-api/engine';
import { apiErrorOf } from '../../ai/model-call.js';
import { budgetAlertHeader, chargeCredits, checkCredits } from '../../billing/credits.js';
import type { HandlerMap } from '../../contract/handler-types.js';
import type { RequestContext } from '../../http/context.js';
import { iso } from '../../lib/wire.js';
import { defaultWorkspace, requireMembership, requireRole } from '../../workspaces/access.js';
import { personaForCall } from '../personas/repository.js';
import { toNewsStory } from './mapper.js';
import { findStory, listStories } from './repository.js';

/** The workspace whose credits and limits apply: the one named, else the caller's default (none: the account only). */
async function billedWorkspace(ctx: RequestContext, workspaceId: string | undefined) {
  const membership = workspaceId ? await requireMembership(ctx.db, workspaceId, ctx.auth.userId, 'workspace_id') : await defaultWorkspace(ctx.db, ctx.auth.userId);
  if (membership) requireRole(membership.role, 'ai.call', 'make paid AI calls in this workspace');
  return membership?.workspace.id ?? null;
}

/** Tokens a feature's prompt sends: the floor of what the call costs (the 402 check before any work). */
export const promptTokens = (messages: readonly { content: string }[]) => messages.reduce((sum, message) => sum + 4 + countTokens(message.content), 3);

export const newsHandlers = {
  // Stories are shared by all accounts (DECISIONS.md): any authenticated caller lists and reads them.
  listNewsStories: async ({ query }, ctx) => listStories(ctx.db, query),

  getNewsStory: async ({ params }, ctx) => toNewsStory(await findStory(ctx.db, params.id)),

  /** Not stored; billed by tokens in one transaction with nothing else to write (DECISIONS.md, News). */
  analyzeNewsStory: async ({ params, body }, ctx) => {
    const story = await findStory(ctx.db, params.id);
    const { id: personaId, persona } = await personaForCall(ctx.db, ctx.auth.userId, body.persona_id, 'persona_id');
    const workspaceId = await billedWorkspace(ctx, body.workspace_id);
    const input = { story: { name: story.name, summary: story.summary, source_name: story.sourceName }, persona };
    await checkCredits(ctx.db, { accountId: ctx.auth.accountId, workspaceId, estimate: creditsForTokens(promptTokens(newsAnalysis.prompt(input))), pricing: 'metered', now: ctx.now() });
    const { output, usage } = await ctx.engine.run(newsAnalysis, input).catch((error: unknown) => {
      throw apiErrorOf(ctx, error);
    });
    const now = ctx.now();
    const charge = await ctx.db.transaction((tx) =>
      chargeCredits(tx, {
        accountId: ctx.auth.accountId,
        workspaceId,
        apiKeyId: ctx.auth.apiKeyId,
        amount: creditsForTokens(usage.input_tokens + usage.output_tokens),
        pricing: 'metered',
        description: `News analysis of ${story.id} for ${personaId} (${usage.input_tokens + usage.output_tokens} tokens)`,
        operationId: ctx.operationId,
        requestId: ctx.requestId,
        now,
      }),
    );
    const alert = budgetAlertHeader(charge);
    if (alert) ctx.setHeader('budget-alert', alert);
    return {
      object: 'news_story_analysis' as const,
      story_id: story.id,
      story_name: story.name,
      persona: { id: personaId, name: persona.name.slice(0, 100), category: persona.category.slice(0, 100) },
      analysis: output,
      usage: { prompt_tokens: usage.input_tokens, completion_tokens: usage.output_tokens, credits_used: charge.charged },
      analyzed_at: iso(now),
    };
  },
} satisfies Pick<HandlerMap, 'listNewsStories' | 'getNewsStory' | 'analyzeNewsStory'>;
