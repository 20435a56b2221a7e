import { creditsForTokens, newsAnalysis, newsDigest, storyRelevance } from '@persona-api/engine';
import type { NewsDigestItem, NewsTopic } from '@persona-api/types';
import { apiErrorOf, OUTPUT_ALLOWANCE_CREDITS } from '../../ai/model-call.js';
import { budgetAlertHeader, chargeCredits, withCreditHold } from '../../billing/credits.js';
import type { HandlerMap } from '../../contract/handler-types.js';
import type { RequestContext } from '../../http/context.js';
import { errors } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import { iso } from '../../lib/wire.js';
import { defaultWorkspace, requireMembership, requireRole } from '../../workspaces/access.js';
import { personaForCall } from '../personas/repository.js';
import { toNewsDigest, toNewsStory, type NewsDigestRow } from './mapper.js';
import { findDigest, findStory, insertDigest, listDigestsOf, listStories, storiesByIds, storiesInWindow } from './repository.js';

/** The workspace whose credits and limits apply: the one named, else the caller's default (none: the account only). */
async function billedWorkspace(ctx: RequestContext, workspaceId: string | undefined, required = false) {
  const membership = workspaceId
    ? await requireMembership(ctx.db, workspaceId, ctx.auth.userId, 'workspace_id')
    : await defaultWorkspace(ctx.db, ctx.auth.userId);
  if (membership) requireRole(membership.role, 'ai.call', 'make paid AI calls in this workspace');
  if (!membership && required) throw errors.missingParameter('workspace_id', 'workspace_id is required: you own no workspace it could default to.');
  return membership?.workspace.id ?? null;
}

const PERIOD_MS = { last_24_hours: 24 * 3_600_000, last_7_days: 7 * 24 * 3_600_000, last_30_days: 30 * 24 * 3_600_000 } as const;
const PERIOD_LABEL = { last_24_hours: 'the last 24 hours', last_7_days: 'the last 7 days', last_30_days: 'the last 30 days' } as const;
/** A period digest ranks at most this many of the window's newest stories. */
const PERIOD_CANDIDATES = 200;

/** Tokens a feature's prompt sends: the floor of what the call costs (the 402 check before any work). */

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
    const inputCredits = creditsForTokens(ctx.engine.inputTokensOf(newsAnalysis, input));
    return withCreditHold(
      ctx.db,
      {
        accountId: ctx.auth.accountId,
        workspaceId,
        floor: inputCredits,
        estimate: inputCredits + OUTPUT_ALLOWANCE_CREDITS,
        now: ctx.now(),
      },
      async (hold) => {
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
            reservationId: hold.id,
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
    );
  },

  listNewsDigests: async ({ query }, ctx) => {
    if (query.workspace_id) await requireMembership(ctx.db, query.workspace_id, ctx.auth.userId, 'workspace_id');
    return listDigestsOf(ctx.db, ctx.auth.userId, query);
  },

  getNewsDigest: async ({ params }, ctx) => toNewsDigest(await findDigest(ctx.db, ctx.auth.userId, params.id)),

  /**
   * Relevance of every candidate is computed in code (storyRelevance) and explained; the top
   * `max_stories` by relevance (ties: newest first) are kept; the engine writes title, summary and
   * takeaways; the digest and its charge are written in one transaction.
   */
  createNewsDigest: async ({ body }, ctx) => {
    if (body.story_ids && (body.period !== undefined || body.topics !== undefined)) {
      throw errors.parameterConflict(body.period !== undefined ? 'period' : 'topics', 'Give either story_ids, or a period with optional topics, not both.');
    }
    const { id: personaId, persona } = await personaForCall(ctx.db, ctx.auth.userId, body.persona_id, 'persona_id');
    const workspaceId = (await billedWorkspace(ctx, body.workspace_id, true))!;
    const now = ctx.now();
    const maxStories = body.max_stories ?? 10;
    const period = body.story_ids ? null : (body.period ?? 'last_7_days');
    const topics = body.topics ?? [];
    const candidates = body.story_ids
      ? await storiesByIds(ctx.db, body.story_ids)
      : await storiesInWindow(ctx.db, { start: new Date(now.getTime() - PERIOD_MS[period!]), end: now, topics, limit: PERIOD_CANDIDATES });
    const ranked = candidates
      .map((row) => ({ row, relevance: storyRelevance({ id: row.id, name: row.name, summary: row.summary, topics: row.topics }, persona) }))
      .sort((a, b) => b.relevance.relevance_score - a.relevance.relevance_score || b.row.publishedAt.getTime() - a.row.publishedAt.getTime())
      .slice(0, maxStories);
    const input = {
      persona,
      period_label: period ? PERIOD_LABEL[period] : 'the chosen stories',
      stories: ranked.map(({ row, relevance }) => ({
        id: row.id,
        name: row.name,
        summary: row.summary,
        topics: row.topics,
        source_name: row.sourceName,
        ...relevance,
      })),
    };
    const inputCredits = creditsForTokens(ctx.engine.inputTokensOf(newsDigest, input));
    return withCreditHold(
      ctx.db,
      {
        accountId: ctx.auth.accountId,
        workspaceId,
        floor: inputCredits,
        estimate: inputCredits + OUTPUT_ALLOWANCE_CREDITS,
        now,
      },
      async (hold) => {
        const { output, usage } = await ctx.engine.run(newsDigest, input).catch((error: unknown) => {
          throw apiErrorOf(ctx, error);
        });
        const items: NewsDigestItem[] = ranked.map(({ row, relevance }) => ({
          story_id: row.id,
          story_name: row.name,
          source_name: row.sourceName,
          url: row.url,
          published_at: iso(row.publishedAt),
          topics: row.topics as NewsTopic[],
          ...relevance,
        }));
        const published = ranked.map(({ row }) => row.publishedAt.getTime());
        const created = ctx.now();
        const row: NewsDigestRow = {
          id: newId('dig'),
          accountId: ctx.auth.accountId,
          workspaceId,
          personaId,
          persona: { id: personaId, name: persona.name.slice(0, 100), category: persona.category.slice(0, 100) },
          title: output.title,
          summary: output.summary,
          keyTakeaways: output.key_takeaways,
          period,
          topics,
          // DECISIONS.md: a period's window, else the span of the stories chosen.
          periodStart: period ? new Date(now.getTime() - PERIOD_MS[period]) : new Date(Math.min(...published)),
          periodEnd: period ? now : new Date(Math.max(...published)),
          items,
          promptTokens: usage.input_tokens,
          completionTokens: usage.output_tokens,
          creditsUsed: 0,
          createdAt: created,
        };
        const charge = await ctx.db.transaction(async (tx) => {
          const result = await chargeCredits(tx, {
            accountId: ctx.auth.accountId,
            workspaceId,
            apiKeyId: ctx.auth.apiKeyId,
            amount: creditsForTokens(usage.input_tokens + usage.output_tokens),
            pricing: 'metered',
            reservationId: hold.id,
            description: `News digest ${row.id} (${usage.input_tokens + usage.output_tokens} tokens)`,
            operationId: ctx.operationId,
            requestId: ctx.requestId,
            now: created,
          });
          row.creditsUsed = result.charged;
          await insertDigest(tx, row);
          return result;
        });
        const alert = budgetAlertHeader(charge);
        if (alert) ctx.setHeader('budget-alert', alert);
        return toNewsDigest(row);
      },
    );
  },
} satisfies Pick<HandlerMap, 'listNewsStories' | 'getNewsStory' | 'analyzeNewsStory' | 'listNewsDigests' | 'createNewsDigest' | 'getNewsDigest'>;
