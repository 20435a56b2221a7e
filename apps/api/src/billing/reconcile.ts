import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { MIGRATIONS_FOLDER } from '../db/client.js';
import type { Database, Executor } from '../db/client.js';
import {
  accounts,
  apiKeys,
  creditLedger,
  creditUsageDaily,
  folders,
  meetingSchemaResults,
  meetingSchemas,
  meetingSchemaUsage,
  meetings,
  projects,
  transcriptionUsageDaily,
  workspaces,
} from '../db/schema/index.js';
import { rowsOf } from '../db/sql.js';
import { transcriptionMinutesOf } from '../resources/meetings/repository.js';
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
 * UTC day whose counter differs from the ledger's sum. A counter that names another account than its
 * ledger rows is reported twice: its credits missing from the right account, present in the wrong one.
 * A counter whose workspace, project, key or account was deleted has no ledger rows left under that id
 * (they were set to null) and is not a mismatch.
 * A full scan of the ledger: an operator's check, not a request path.
 */
export async function reconcileUsageCounters(db: Executor): Promise<CounterMismatch[]> {
  const result = await db.execute(sql`
    with ledger as (
      select l.account_id, v.scope, v.scope_id, l.day, sum(l.credits) as credits
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
      group by l.account_id, v.scope, v.scope_id, l.day
    )
    select coalesce(l.scope, c.scope) as scope, coalesce(l.scope_id, c.scope_id) as scope_id,
      coalesce(l.day, c.day)::text as day, coalesce(l.credits, 0)::text as ledger, coalesce(c.credits, 0)::text as counter
    from ledger l
    full join ${creditUsageDaily} c on c.scope = l.scope and c.scope_id = l.scope_id and c.day = l.day and c.account_id = l.account_id
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
 * Both checks (`admin usage reconcile`), in one read-only transaction exempt from the 15 s statement timeout
 * the server's connections give a request: they scan the whole ledger and every counted table, which on
 * years of history takes longer than a request may, and the check must still answer.
 */
export async function reconcile(db: Database): Promise<{ usage: CounterMismatch[]; counts: CountMismatch[] }> {
  return db.transaction(
    async (tx) => {
      await tx.execute(sql`set local statement_timeout = 0`);
      return { usage: await reconcileUsageCounters(tx), counts: await reconcileCounts(tx) };
    },
    { accessMode: 'read only' },
  );
}

/** A counter column (or transcription day) that differs from a recount of the rows it counts. */
export interface CountMismatch {
  /** `projects.agent_thread_count`, `workspaces.member_count`, `folders.file_count`, `accounts.stored_bytes`, `transcription_usage_daily.minutes`… */
  counter: string;
  /** The row's id (project, workspace, folder, account or schema); for transcription minutes `<account id> <day>`, for a schema's results `<schema id> <workspace id>`. */
  id: string;
  /** What a recount of the rows gives. */
  counted: number;
  /** What the counter says. */
  stored: number;
}

/**
 * Compares every counter kept by the writes of the rows it counts with a recount of those rows (the
 * rows are the truth): projects' thread and generation counts, workspaces' member, project and thread
 * counts, folders' file counts, accounts' stored bytes, meeting schemas' results per workspace and downloads, and transcription minutes per account and day. A full scan of the
 * counted tables, grouped: an operator's check, not a request path.
 */
export async function reconcileCounts(db: Executor): Promise<CountMismatch[]> {
  const result = await db.execute(sql`
    with project_counts as (
      select project_id, count(*) filter (where kind = 'thread') as threads, count(*) filter (where kind = 'generation') as generations
      from (
        select project_id, 'thread' as kind from agent_threads where project_id is not null
        union all select project_id, 'generation' from generations where project_id is not null
      ) counted group by project_id
    ), workspace_counts as (
      select workspace_id, count(*) filter (where kind = 'member') as members, count(*) filter (where kind = 'project') as projects,
        count(*) filter (where kind = 'thread') as threads
      from (
        select workspace_id, 'member' as kind from workspace_members
        union all select workspace_id, 'project' from projects
        union all select workspace_id, 'thread' from agent_threads
      ) counted group by workspace_id
    ), folder_counts as (
      select folder_id, count(*) as files from files where folder_id is not null group by folder_id
    ), account_bytes as (
      select w.account_id, sum(f.size_bytes) as bytes from files f join ${workspaces} w on w.id = f.workspace_id group by w.account_id
    ), schema_results as (
      select schema_id, workspace_id, count(*) as results from ${meetingSchemaResults} group by schema_id, workspace_id
    ), minutes as (${transcriptionMinutesOf(sql`${meetings}`)}),
    compared as (
      select v.counter, p.id, v.counted, v.stored
      from ${projects} p left join project_counts c on c.project_id = p.id
      cross join lateral (values
        ('projects.agent_thread_count', coalesce(c.threads, 0), p.agent_thread_count::bigint),
        ('projects.generation_count', coalesce(c.generations, 0), p.generation_count::bigint)
      ) as v(counter, counted, stored)
      union all
      select v.counter, w.id, v.counted, v.stored
      from ${workspaces} w left join workspace_counts c on c.workspace_id = w.id
      cross join lateral (values
        ('workspaces.member_count', coalesce(c.members, 0), w.member_count::bigint),
        ('workspaces.project_count', coalesce(c.projects, 0), w.project_count::bigint),
        ('workspaces.agent_thread_count', coalesce(c.threads, 0), w.agent_thread_count::bigint)
      ) as v(counter, counted, stored)
      union all
      select 'folders.file_count', f.id, coalesce(c.files, 0), f.file_count::bigint
      from ${folders} f left join folder_counts c on c.folder_id = f.id
      union all
      select 'accounts.stored_bytes', a.id, coalesce(b.bytes, 0), a.stored_bytes
      from ${accounts} a left join account_bytes b on b.account_id = a.id
      union all
      select 'meeting_schema_usage.results', coalesce(r.schema_id, u.schema_id) || ' ' || coalesce(r.workspace_id, u.workspace_id),
        coalesce(r.results, 0), coalesce(u.results, 0)
      from schema_results r full join ${meetingSchemaUsage} u on u.schema_id = r.schema_id and u.workspace_id = r.workspace_id
      union all
      select 'meeting_schemas.downloads', s.id, coalesce(d.workspaces, 0), s.downloads::bigint
      from ${meetingSchemas} s left join (select schema_id, count(*) as workspaces from schema_results group by schema_id) d on d.schema_id = s.id
      union all
      select 'transcription_usage_daily.minutes', coalesce(m.account_id, t.account_id) || ' ' || coalesce(m.day, t.day)::text,
        coalesce(m.minutes, 0), coalesce(t.minutes, 0)
      from minutes m full join ${transcriptionUsageDaily} t on t.account_id = m.account_id and t.day = m.day
    )
    select counter, id, counted::text, stored::text from compared where counted <> stored order by 1, 2`);
  const rows = rowsOf<{ counter: string; id: string; counted: string; stored: string }>(result);
  return rows.map((row) => ({ counter: row.counter, id: row.id, counted: Number(row.counted), stored: Number(row.stored) }));
}

/** The statements after the hand-written marker of the one migration whose name ends with `suffix`. */
function handWrittenBackfill(suffix: string): string[] {
  const files = readdirSync(MIGRATIONS_FOLDER).filter((name) => name.endsWith(suffix));
  if (files.length !== 1) throw new Error(`expected one *${suffix} migration, found ${files.join(', ') || 'none'}`);
  const statements = readFileSync(join(MIGRATIONS_FOLDER, files[0]!), 'utf8').split('--> statement-breakpoint');
  const first = statements.findIndex((statement) => statement.includes('Hand-written from here'));
  if (first < 0) throw new Error(`${files[0]} has no hand-written backfill`);
  return statements.slice(first);
}

/**
 * The statements that rebuild the counters reconcileCounts checks from the rows alone: every counter set
 * to zero, then the backfills of the migrations that added them (their statements after the hand-written
 * marker). For tests and bench:scale, whose bulk rows bypass the writers.
 */
export function countsRebuild(): string[] {
  return [
    'update projects set agent_thread_count = 0, generation_count = 0',
    'update workspaces set member_count = 0, project_count = 0, agent_thread_count = 0',
    'update folders set file_count = 0',
    'update accounts set stored_bytes = 0',
    'delete from transcription_usage_daily',
    'delete from meeting_schema_usage',
    'update meeting_schemas set downloads = 0',
    ...handWrittenBackfill('_resource_counters.sql'),
    ...handWrittenBackfill('_folder_file_count.sql'),
    ...handWrittenBackfill('_meeting_schema_usage.sql'),
  ];
}

/**
 * The statement that builds every usage counter, with its account, from the ledger: the hand-written last
 * statement of the migration that gave the counters their accounts (0026), found by name.
 */
export function usageCountersBackfills(): string[] {
  return handWrittenBackfill('_account_usage_counters.sql');
}
