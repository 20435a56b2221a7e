import type { ConsoleUsageGroup } from '@persona-api/types';
import { and, eq, gte, inArray, lt, sql } from 'drizzle-orm';
import { billingPeriod, featureScopeId, usageDayOf } from '../../billing/credits.js';
import type { Handler } from '../../contract/handler-types.js';
import { listOperations, loadSpec } from '../../contract/spec.js';
import { creditUsageDaily } from '../../db/schema/billing.js';
import { apiKeys } from '../../db/schema/tenancy.js';
import { iso } from '../../lib/wire.js';
import { projects } from '../projects/table.js';
import { workspaces } from '../workspaces/table.js';
import { requireSession } from './sessions.js';

const GROUPS_LISTED = 100;

// The operations a charge can name: the contract's, fixed for the process (the feature counters' keys).
let operationIds: string[] | undefined;
const contractOperationIds = () => (operationIds ??= listOperations(loadSpec()).map((operation) => operation.operationId));

interface Spent {
  id: string | null;
  name: string | null;
  credits: number;
}

/**
 * The groups of a breakdown, most credits first: credits are charges net of refunds, clamped at zero, and
 * a group that spent nothing is left out. `unassigned` is what the account spent outside every listed
 * group (no workspace, or a deleted one, …): the `null` group.
 */
function ranked(groups: Spent[], unassigned = 0): ConsoleUsageGroup[] {
  const all = unassigned === 0 ? groups : [...groups, { id: null, name: null, credits: unassigned }];
  return all
    .map((group) => ({ ...group, credits: Math.max(0, group.credits) }))
    .filter((group) => group.credits > 0)
    .sort((a, b) => b.credits - a.credits || ((a.id ?? '') < (b.id ?? '') ? -1 : 1))
    .slice(0, GROUPS_LISTED);
}

const totalOf = (groups: Spent[]) => groups.reduce((sum, group) => sum + group.credits, 0);

/**
 * Credits this period by day, feature, workspace, project and key, read from the usage counters
 * (credit_usage_daily, DECISIONS.md: History that grows): at most a month of counter rows per group,
 * whatever the ledger holds.
 */
export const getConsoleUsageBreakdown: Handler<'getConsoleUsageBreakdown'> = async (_input, ctx) => {
  const { accountId } = await requireSession(ctx, { csrf: false });
  const period = billingPeriod(ctx.now());
  const counters = creditUsageDaily;
  const inPeriod = and(gte(counters.day, usageDayOf(period.start)), lt(counters.day, usageDayOf(period.end)));
  const credits = sql<string>`sum(${counters.credits})`;
  const spent = (rows: { id: string | null; name: string | null; credits: string }[]): Spent[] =>
    rows.map((row) => ({ id: row.id, name: row.name, credits: Number(row.credits) }));

  const days = spent(
    await ctx.db
      .select({ id: counters.day, name: sql<null>`null`, credits })
      .from(counters)
      .where(and(eq(counters.scope, 'account'), eq(counters.scopeId, accountId), inPeriod))
      .groupBy(counters.day)
      .orderBy(counters.day),
  );
  // The account's whole spend this period: what the groups below leave unassigned is measured against it.
  // Each group query starts from the account's own workspaces, projects or keys (indexed by account), then
  // reads their counter rows by primary key.
  const accountTotal = totalOf(days);

  const featureKeys = [...contractOperationIds(), null].map((operationId) => featureScopeId(accountId, operationId));
  const features = spent(
    await ctx.db
      .select({ id: counters.scopeId, name: sql<null>`null`, credits })
      .from(counters)
      .where(and(eq(counters.scope, 'account_feature'), inArray(counters.scopeId, featureKeys), inPeriod))
      .groupBy(counters.scopeId),
  ).map((group) => ({ ...group, id: group.id!.slice(accountId.length + 1) || null }));

  const workspaceGroups = spent(
    await ctx.db
      .select({ id: workspaces.id, name: workspaces.name, credits })
      .from(workspaces)
      .innerJoin(counters, and(eq(counters.scope, 'workspace'), eq(counters.scopeId, workspaces.id), inPeriod))
      .where(eq(workspaces.accountId, accountId))
      .groupBy(workspaces.id, workspaces.name),
  );
  const projectGroups = spent(
    await ctx.db
      .select({ id: projects.id, name: projects.name, credits })
      .from(workspaces)
      .innerJoin(projects, eq(projects.workspaceId, workspaces.id))
      .innerJoin(counters, and(eq(counters.scope, 'project'), eq(counters.scopeId, projects.id), inPeriod))
      .where(eq(workspaces.accountId, accountId))
      .groupBy(projects.id, projects.name),
  );
  const keyGroups = spent(
    await ctx.db
      .select({ id: apiKeys.id, name: apiKeys.name, credits })
      .from(apiKeys)
      .innerJoin(counters, and(eq(counters.scope, 'api_key'), eq(counters.scopeId, apiKeys.id), inPeriod))
      .where(eq(apiKeys.accountId, accountId))
      .groupBy(apiKeys.id, apiKeys.name),
  );

  const byDay = ranked(days).sort((a, b) => ((a.id ?? '') < (b.id ?? '') ? -1 : 1));
  return {
    object: 'console.usage_breakdown',
    billing_period: { start: iso(period.start), end: iso(period.end) },
    total_credits: byDay.reduce((sum, group) => sum + group.credits, 0),
    by_day: byDay,
    by_feature: ranked(features),
    by_workspace: ranked(workspaceGroups, accountTotal - totalOf(workspaceGroups)),
    by_project: ranked(projectGroups, accountTotal - totalOf(projectGroups)),
    by_key: ranked(keyGroups, accountTotal - totalOf(keyGroups)),
  };
};
