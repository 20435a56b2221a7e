import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { MIGRATIONS_FOLDER } from '../db/client.js';
import type { Executor } from '../db/client.js';
import { accounts, apiKeys, creditLedger, creditUsageDaily, projects, workspaces } from '../db/schema/index.js';
import { rowsOf } from '../db/sql.js';
import type { UsageScope } from './credits.js';

export interface CounterMismatch {
  scope: UsageScope;
  scopeId: string;
  day: string;
  /** Credits spent that day by the ledger (charges net of refunds). */
  ledger: number;
  /** What credit_usage_daily says. */
  counter: number;
}

/**
 * Compares the usage counters with the ledger they summarise (the ledger is the truth): every scope and
 * UTC day whose counter differs from the ledger's sum. A counter whose workspace, project, key or account
 * was deleted has no ledger rows left under that id (they were set to null) and is not a mismatch.
 * A full scan of the ledger: an operator's check, not a request path.
 */
export async function reconcileUsageCounters(db: Executor): Promise<CounterMismatch[]> {
  const result = await db.execute(sql`
    with ledger as (
      select v.scope, v.scope_id, l.day, sum(l.credits) as credits
      from (
        select ${creditLedger.accountId} as account_id, ${creditLedger.workspaceId} as workspace_id,
          ${creditLedger.projectId} as project_id, ${creditLedger.apiKeyId} as api_key_id, ${creditLedger.operationId} as operation_id,
          (${creditLedger.createdAt} at time zone 'UTC')::date as day, -${creditLedger.amount} as credits
        from ${creditLedger} where ${creditLedger.kind} in ('charge', 'refund')
      ) l
      cross join lateral (values
        ('account', l.account_id),
        ('account_keys', case when l.api_key_id is not null then l.account_id end),
        ('workspace', l.workspace_id),
        ('project', l.project_id),
        ('api_key', l.api_key_id),
        ('account_feature', l.account_id || ':' || coalesce(l.operation_id, ''))
      ) as v(scope, scope_id)
      where v.scope_id is not null
      group by v.scope, v.scope_id, l.day
    )
    select coalesce(l.scope, c.scope) as scope, coalesce(l.scope_id, c.scope_id) as scope_id,
      coalesce(l.day, c.day)::text as day, coalesce(l.credits, 0)::text as ledger, coalesce(c.credits, 0)::text as counter
    from ledger l
    full join ${creditUsageDaily} c on c.scope = l.scope and c.scope_id = l.scope_id and c.day = l.day
    where coalesce(l.credits, 0) <> coalesce(c.credits, 0)
      and not (l.scope is null and case c.scope
        when 'workspace' then not exists (select 1 from ${workspaces} where ${workspaces.id} = c.scope_id)
        when 'project' then not exists (select 1 from ${projects} where ${projects.id} = c.scope_id)
        when 'api_key' then not exists (select 1 from ${apiKeys} where ${apiKeys.id} = c.scope_id)
        when 'account_feature' then not exists (select 1 from ${accounts} where ${accounts.id} = split_part(c.scope_id, ':', 1))
        else not exists (select 1 from ${accounts} where ${accounts.id} = c.scope_id)
      end)
    order by 1, 2, 3`);
  const rows = rowsOf<{ scope: UsageScope; scope_id: string; day: string; ledger: string; counter: string }>(result);
  return rows.map((row) => ({ scope: row.scope, scopeId: row.scope_id, day: row.day, ledger: Number(row.ledger), counter: Number(row.counter) }));
}

/**
 * The backfill statements of the migrations that added the counters (each one's last statement): together
 * they build every counter from the ledger. Found by name, whatever numbers the migrations end up with.
 */
export function usageCountersBackfills(): string[] {
  const files = readdirSync(MIGRATIONS_FOLDER)
    .filter((name) => /_usage(_feature)?_counters\.sql$/.test(name))
    .sort();
  if (files.length !== 2) throw new Error(`expected the two usage counters migrations, found ${files.join(', ') || 'none'}`);
  return files.map((file) => readFileSync(join(MIGRATIONS_FOLDER, file), 'utf8').split('--> statement-breakpoint').at(-1)!);
}
