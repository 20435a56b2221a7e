import type { Usage } from '@persona-api/types';
import { and, eq, gte, lt, sql } from 'drizzle-orm';
import { billingPeriod, creditsUsedBetweenSql, usageDayOf } from '../../billing/credits.js';
import type { Handler } from '../../contract/handler-types.js';
import { apiUsageDaily } from '../../db/schema/billing.js';
import { accounts, apiKeys, tiers } from '../../db/schema/tenancy.js';
import { iso } from '../../lib/wire.js';
import { transcriptionMinutesUsedSql } from '../meetings/repository.js';

type Tier = Usage['rate_limit']['tier'];

/** One key's counters of the period as the statement's json gives them: sums as text, the timestamp as PostgreSQL writes it. */
interface PerKeyRow {
  api_key_id: string;
  name: string;
  key_prefix: string;
  requests: string;
  errors: string;
  latency_ms_total: string;
  prompt_tokens: string;
  completion_tokens: string;
  last_request_at: string | null;
}

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

  // One statement after the flush: the account and its tier, the period's counters (credits, API-key credits,
  // transcription minutes: at most a row per day each) and the per-key request counters (keys × days).
  const perKey = ctx.db
    .select({
      apiKeyId: apiKeys.id,
      name: apiKeys.name,
      keyPrefix: apiKeys.keyPrefix,
      requests: sql<string>`sum(${apiUsageDaily.requests})`.as('requests'),
      errors: sql<string>`sum(${apiUsageDaily.errors})`.as('errors'),
      latencyMsTotal: sql<string>`sum(${apiUsageDaily.latencyMsTotal})`.as('latency_ms_total'),
      promptTokens: sql<string>`sum(${apiUsageDaily.promptTokens})`.as('prompt_tokens'),
      completionTokens: sql<string>`sum(${apiUsageDaily.completionTokens})`.as('completion_tokens'),
      lastRequestAt: sql<string>`max(${apiUsageDaily.lastRequestAt})`.as('last_request_at'),
    })
    .from(apiUsageDaily)
    .innerJoin(apiKeys, eq(apiKeys.id, apiUsageDaily.apiKeyId))
    .where(and(eq(apiUsageDaily.accountId, accountId), gte(apiUsageDaily.day, usageDayOf(period.start)), lt(apiUsageDaily.day, usageDayOf(period.end))))
    .groupBy(apiKeys.id, apiKeys.name, apiKeys.keyPrefix)
    .as('per_key');
  const [account] = await ctx.db
    .select({
      account: accounts,
      tier: tiers,
      creditsUsed: creditsUsedBetweenSql('account', accountId, period.start, period.end),
      apiCreditsUsed: creditsUsedBetweenSql('account_keys', accountId, period.start, period.end),
      minutesUsed: transcriptionMinutesUsedSql(accountId, period.start, period.end),
      // Most requests first, as json (its sums as text, its timestamp as PostgreSQL writes it).
      perKey: sql<PerKeyRow[] | null>`(select json_agg(json_build_object('api_key_id', ${perKey.apiKeyId}, 'name', ${perKey.name},
        'key_prefix', ${perKey.keyPrefix}, 'requests', ${perKey.requests}::text, 'errors', ${perKey.errors}::text,
        'latency_ms_total', ${perKey.latencyMsTotal}::text, 'prompt_tokens', ${perKey.promptTokens}::text,
        'completion_tokens', ${perKey.completionTokens}::text, 'last_request_at', ${perKey.lastRequestAt})
        order by ${perKey.requests} desc, ${perKey.apiKeyId}) from ${perKey})`,
    })
    .from(accounts)
    .innerJoin(tiers, eq(tiers.id, accounts.tierId))
    .where(eq(accounts.id, accountId));
  if (!account) throw new Error(`account ${accountId} of an authenticated key is missing`);

  const creditsUsedInPeriod = Math.max(0, Number(account.creditsUsed));
  const remaining = Math.max(0, account.account.creditBalance);
  // The ledger gives balance = carried over + granted − used, so what the period included is used + remaining.
  const included = creditsUsedInPeriod + remaining;

  const minutesUsed = Number(account.minutesUsed);
  const minutesIncluded = account.tier.transcriptionMinutesIncluded;

  const storageGb = Number(account.account.storedBytes) / BYTES_PER_GB;
  const storageIncludedGb = account.tier.storageBytesIncluded / BYTES_PER_GB;

  const byKey = (account.perKey ?? []).map((row) => {
    const requests = Number(row.requests);
    return {
      api_key_id: row.api_key_id,
      name: row.name,
      key_prefix: row.key_prefix,
      requests,
      tokens: Number(row.prompt_tokens) + Number(row.completion_tokens),
      errors: Number(row.errors),
      avg_latency_ms: requests > 0 ? round(Number(row.latency_ms_total) / requests, 1) : 0,
      last_used_at: row.last_request_at ? iso(new Date(row.last_request_at)) : null,
      promptTokens: Number(row.prompt_tokens),
      completionTokens: Number(row.completion_tokens),
      latencyMsTotal: Number(row.latency_ms_total),
    };
  });
  const sum = (pick: (row: (typeof byKey)[number]) => number) => byKey.reduce((total, row) => total + pick(row), 0);
  const totalRequests = sum((row) => row.requests);
  const apiCreditsUsed = Math.max(0, Number(account.apiCreditsUsed));

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
