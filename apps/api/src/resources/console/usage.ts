import type { ConsoleUsageGroup } from '@persona-api/types';
import { and, eq, gte, lt, sql } from 'drizzle-orm';
import { unionAll } from 'drizzle-orm/pg-core';
import { billingPeriod, type UsageScope, usageDayOf } from '../../billing/credits.js';
import type { Handler } from '../../contract/handler-types.js';
import { creditUsageDaily } from '../../db/schema/billing.js';
import { apiKeys } from '../../db/schema/tenancy.js';
import { iso } from '../../lib/wire.js';
import { projects } from '../projects/table.js';
import { workspaces } from '../workspaces/table.js';
import { requireSession } from './sessions.js';

const GROUPS_LISTED = 100;

/** Which breakdown a row of the statement belongs to. */
type Breakdown = 'day' | 'feature' | 'workspace' | 'project' | 'api_key';

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
 * (credit_usage_daily, DECISIONS.md: History that grows): each breakdown is a range over the account's
 * counters of one scope in the period (credit_usage_daily_account_idx), so it reads what the account spent
 * in this month's groups, whatever the ledger holds and however many keys and projects the account ever had.
 */
export const getConsoleUsageBreakdown: Handler<'getConsoleUsageBreakdown'> = async (_input, ctx) => {
  const { accountId } = await requireSession(ctx, { csrf: false });
  const period = billingPeriod(ctx.now());
  const counters = creditUsageDaily;
  const inPeriod = and(gte(counters.day, usageDayOf(period.start)), lt(counters.day, usageDayOf(period.end)));
  const ofAccount = (scope: UsageScope) => and(eq(counters.accountId, accountId), eq(counters.scope, scope), inPeriod);
  const credits = sql<string>`sum(${counters.credits})`;
  const spent = (rows: { id: string | null; name: string | null; credits: string }[]): Spent[] =>
    rows.map((row) => ({ id: row.id, name: row.name, credits: Number(row.credits) }));
  /**
   * The account's counters of `scope` this period summed per workspace, project or key, then each one's
   * name looked up by its primary key in a lateral join (a plain join was planned as a merge join walking
   * the whole primary key, or a hash join over a scan); a deleted one has no name, and its credits stay unassigned.
   */
  const namedGroups = (scope: 'workspace' | 'project' | 'api_key', named: typeof workspaces | typeof projects | typeof apiKeys) => {
    const perGroup = ctx.db
      .select({ scopeId: counters.scopeId, credits: credits.as('credits') })
      .from(counters)
      .where(ofAccount(scope))
      .groupBy(counters.scopeId)
      .as(`per_${scope}`);
    // LIMIT 1 keeps the lookup a subquery run per group: without it PostgreSQL flattens the lateral join into
    // a plain one, which it answered with a sequential scan of api_keys when it overestimated the groups.
    const name = ctx.db.select({ id: named.id, name: named.name }).from(named).where(eq(named.id, perGroup.scopeId)).limit(1).as(`${scope}_name`);
    return ctx.db
      .select({
        breakdown: sql<Breakdown>`${sql.raw(`'${scope}'`)}::text`.as('breakdown'),
        id: name.id,
        name: name.name,
        credits: sql<string>`${perGroup.credits}`.as('credits'),
      })
      .from(perGroup)
      .innerJoinLateral(name, sql`true`);
  };

  // The five breakdowns in one statement (one round trip; they were five), each row tagged with its own.
  const rows = await unionAll(
    ctx.db
      .select({
        breakdown: sql<Breakdown>`'day'::text`.as('breakdown'),
        id: sql<string>`${counters.day}::text`.as('id'),
        name: sql<null>`null::text`.as('name'),
        credits: credits.as('credits'),
      })
      .from(counters)
      .where(and(eq(counters.scope, 'account'), eq(counters.scopeId, accountId), inPeriod))
      .groupBy(counters.day),
    ctx.db
      .select({
        breakdown: sql<Breakdown>`'feature'::text`.as('breakdown'),
        id: counters.scopeId,
        name: sql<null>`null::text`.as('name'),
        credits: credits.as('credits'),
      })
      .from(counters)
      .where(ofAccount('account_feature'))
      .groupBy(counters.scopeId),
    namedGroups('workspace', workspaces),
    namedGroups('project', projects),
    namedGroups('api_key', apiKeys),
  );
  const of = (breakdown: Breakdown) => spent(rows.filter((row) => row.breakdown === breakdown));
  const days = of('day');
  // The account's whole spend this period: what the groups below leave unassigned is measured against it.
  const accountTotal = totalOf(days);
  const features = of('feature').map((group) => ({ ...group, id: group.id!.slice(accountId.length + 1) || null }));
  const workspaceGroups = of('workspace');
  const projectGroups = of('project');
  const keyGroups = of('api_key');

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
