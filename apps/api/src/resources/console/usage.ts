import type { ConsoleUsageGroup } from '@persona-api/types';
import { and, desc, eq, gte, inArray, lt, sql, type SQL } from 'drizzle-orm';
import { billingPeriod } from '../../billing/credits.js';
import type { Handler } from '../../contract/handler-types.js';
import { creditLedger } from '../../db/schema/billing.js';
import { apiKeys } from '../../db/schema/tenancy.js';
import { iso } from '../../lib/wire.js';
import { projects } from '../projects/table.js';
import { workspaces } from '../workspaces/table.js';
import { requireSession } from './sessions.js';

const GROUPS_LISTED = 100;

/** Credits spent in this period, as GET /usage counts them: charges net of refunds. */
const creditsSpent = sql<string>`coalesce(-sum(${creditLedger.amount}), 0)`;

export const getConsoleUsageBreakdown: Handler<'getConsoleUsageBreakdown'> = async (_input, ctx) => {
  const session = await requireSession(ctx, { csrf: false });
  const period = billingPeriod(ctx.now());
  const spent = and(
    eq(creditLedger.accountId, session.accountId),
    inArray(creditLedger.kind, ['charge', 'refund']),
    gte(creditLedger.createdAt, period.start),
    lt(creditLedger.createdAt, period.end),
  );
  const groups = async (key: SQL<string | null>, name: SQL<string | null> | null, join?: (query: any) => any, order: 'credits' | 'key' = 'credits') => {
    let query: any = ctx.db.select({ id: key, name: name ?? sql<null>`null`, credits: creditsSpent }).from(creditLedger);
    if (join) query = join(query);
    const rows: { id: string | null; name: string | null; credits: string }[] = await query
      .where(spent)
      .groupBy(key, ...(name ? [name] : []))
      .orderBy(order === 'credits' ? desc(creditsSpent) : key)
      .limit(order === 'credits' ? GROUPS_LISTED : 31);
    return rows
      .map((row): ConsoleUsageGroup => ({ id: row.id, name: row.name, credits: Math.max(0, Number(row.credits)) }))
      .filter((group) => group.credits > 0);
  };
  const day = sql<string>`to_char(${creditLedger.createdAt} at time zone 'UTC', 'YYYY-MM-DD')`;
  const [byDay, byFeature, byWorkspace, byProject, byKey] = [
    await groups(day, null, undefined, 'key'),
    await groups(sql<string | null>`${creditLedger.operationId}`, null),
    await groups(sql<string | null>`${creditLedger.workspaceId}`, sql<string | null>`${workspaces.name}`, (query) =>
      query.leftJoin(workspaces, eq(workspaces.id, creditLedger.workspaceId)),
    ),
    await groups(sql<string | null>`${creditLedger.projectId}`, sql<string | null>`${projects.name}`, (query) =>
      query.leftJoin(projects, eq(projects.id, creditLedger.projectId)),
    ),
    await groups(sql<string | null>`${creditLedger.apiKeyId}`, sql<string | null>`${apiKeys.name}`, (query) =>
      query.leftJoin(apiKeys, eq(apiKeys.id, creditLedger.apiKeyId)),
    ),
  ];
  return {
    object: 'console.usage_breakdown',
    billing_period: { start: iso(period.start), end: iso(period.end) },
    total_credits: byDay.reduce((sum, group) => sum + group.credits, 0),
    by_day: byDay,
    by_feature: byFeature,
    by_workspace: byWorkspace,
    by_project: byProject,
    by_key: byKey,
  };
};
