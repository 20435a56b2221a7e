import type { Usage } from '@persona-api/types';
import { and, desc, eq, gte, lt, sql } from 'drizzle-orm';
import { billingPeriod, creditsUsed } from '../../billing/credits.js';
import type { Handler } from '../../contract/handler-types.js';
import { apiUsageDaily } from '../../db/schema/billing.js';
import { accounts, apiKeys, tiers } from '../../db/schema/tenancy.js';
import { storedBytes } from '../files/repository.js';
import { iso } from '../../lib/wire.js';
import { transcriptionMinutesUsed } from '../meetings/repository.js';

type Tier = Usage['rate_limit']['tier'];

const BYTES_PER_GB = 1e9;
const round = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places;
/** Share of `included` used, 0–100 with two decimals, capped at 100 (UsagePercentage). */
const percentage = (used: number, included: number) => (included > 0 ? Math.min(100, round((used / included) * 100, 2)) : used > 0 ? 100 : 0);

export const getUsage: Handler<'getUsage'> = async (_input, ctx) => {
  const { accountId } = ctx.auth;
  const now = ctx.now();
  const period = billingPeriod(now);
  // Include this process's request counters that are not written yet.
  await ctx.request.server.usageRecorder.flush();

  const [account] = await ctx.db
    .select({ account: accounts, tier: tiers })
    .from(accounts)
    .innerJoin(tiers, eq(tiers.id, accounts.tierId))
    .where(eq(accounts.id, accountId));
  if (!account) throw new Error(`account ${accountId} of an authenticated key is missing`);

  const creditsUsedInPeriod = await creditsUsed(ctx.db, 'account', accountId, period.start, period.end);
  const remaining = Math.max(0, account.account.creditBalance);
  // The ledger gives balance = carried over + granted − used, so what the period included is used + remaining.
  const included = creditsUsedInPeriod + remaining;

  const minutesUsed = await transcriptionMinutesUsed(ctx.db, accountId, period.start, period.end);
  const minutesIncluded = account.tier.transcriptionMinutesIncluded;

  const storageGb = (await storedBytes(ctx.db, accountId)) / BYTES_PER_GB;
  const storageIncludedGb = account.tier.storageBytesIncluded / BYTES_PER_GB;

  const firstDay = period.start.toISOString().slice(0, 10);
  const endDay = period.end.toISOString().slice(0, 10);
  const perKey = await ctx.db
    .select({
      apiKeyId: apiKeys.id,
      name: apiKeys.name,
      keyPrefix: apiKeys.keyPrefix,
      requests: sql<string>`sum(${apiUsageDaily.requests})`,
      errors: sql<string>`sum(${apiUsageDaily.errors})`,
      latencyMsTotal: sql<string>`sum(${apiUsageDaily.latencyMsTotal})`,
      promptTokens: sql<string>`sum(${apiUsageDaily.promptTokens})`,
      completionTokens: sql<string>`sum(${apiUsageDaily.completionTokens})`,
      lastRequestAt: sql<Date | string>`max(${apiUsageDaily.lastRequestAt})`,
    })
    .from(apiUsageDaily)
    .innerJoin(apiKeys, eq(apiKeys.id, apiUsageDaily.apiKeyId))
    .where(and(eq(apiUsageDaily.accountId, accountId), gte(apiUsageDaily.day, firstDay), lt(apiUsageDaily.day, endDay)))
    .groupBy(apiKeys.id, apiKeys.name, apiKeys.keyPrefix)
    .orderBy(desc(sql`sum(${apiUsageDaily.requests})`), apiKeys.id);

  const byKey = perKey.map((row) => {
    const requests = Number(row.requests);
    return {
      api_key_id: row.apiKeyId,
      name: row.name,
      key_prefix: row.keyPrefix,
      requests,
      tokens: Number(row.promptTokens) + Number(row.completionTokens),
      errors: Number(row.errors),
      avg_latency_ms: requests > 0 ? round(Number(row.latencyMsTotal) / requests, 1) : 0,
      last_used_at: row.lastRequestAt ? iso(new Date(row.lastRequestAt)) : null,
      promptTokens: Number(row.promptTokens),
      completionTokens: Number(row.completionTokens),
      latencyMsTotal: Number(row.latencyMsTotal),
    };
  });
  const sum = (pick: (row: (typeof byKey)[number]) => number) => byKey.reduce((total, row) => total + pick(row), 0);
  const totalRequests = sum((row) => row.requests);
  const apiCreditsUsed = await creditsUsed(ctx.db, 'account_keys', accountId, period.start, period.end);

  return {
    object: 'usage',
    billing_period: { start: iso(period.start), end: iso(period.end) },
    credits: { used: creditsUsedInPeriod, included, remaining, percentage_used: percentage(creditsUsedInPeriod, included) },
    transcription: {
      minutes_used: minutesUsed,
      minutes_included: minutesIncluded,
      minutes_remaining: Math.max(0, minutesIncluded - minutesUsed),
      percentage_used: percentage(minutesUsed, minutesIncluded),
    },
    storage: {
      gb_used: round(storageGb, 3),
      gb_included: round(storageIncludedGb, 3),
      gb_remaining: round(Math.max(0, storageIncludedGb - storageGb), 3),
      percentage_used: percentage(storageGb, storageIncludedGb),
    },
    api_requests: {
      total_requests: totalRequests,
      total_tokens: sum((row) => row.tokens),
      prompt_tokens: sum((row) => row.promptTokens),
      completion_tokens: sum((row) => row.completionTokens),
      credits_used: apiCreditsUsed,
      error_count: sum((row) => row.errors),
      avg_latency_ms: totalRequests > 0 ? round(sum((row) => row.latencyMsTotal) / totalRequests, 1) : 0,
      by_key: byKey.slice(0, 100).map(({ promptTokens: _p, completionTokens: _c, latencyMsTotal: _l, ...row }) => row),
    },
    rate_limit: { tier: account.tier.id as Tier, requests_per_minute: account.tier.requestsPerMinute },
    auto_recharge: {
      enabled: account.account.autoRechargeEnabled,
      threshold: account.account.autoRechargeThreshold,
      credits_to_add: account.account.autoRechargeCredits,
    },
    limits: { budget_alert: account.account.budgetAlert, usage_limit: account.account.usageLimit },
  };
};
