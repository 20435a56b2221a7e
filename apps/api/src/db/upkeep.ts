import { sql } from 'drizzle-orm';
import type { JobDefinition } from '../jobs/types.js';
import type { Services } from '../services.js';
import type { Database } from './client.js';
import { rowsOf } from './sql.js';

/**
 * The work PostgreSQL's autovacuum does, for a database where none runs. PGlite is PostgreSQL as a single
 * process: it reports `autovacuum = on`, but there is no launcher, so nothing ever vacuums or analyses. Rows
 * deleted or updated stay as dead rows, so a table that churns grows with every call it has ever served
 * (credit holds are written and deleted by each charged call, idempotency keys and job rows are purged), its
 * planner statistics are those of the day it was created, and no row is ever frozen (DECISIONS.md, History
 * that grows). On PostgreSQL the autovacuum launcher is there (or the operator turned it off) and this does nothing.
 */

// PostgreSQL's autovacuum defaults (Routine Vacuuming): a table is due a vacuum when its dead rows pass
// 50 + 20 % of its rows, or its rows inserted since the last vacuum 1 000 + 20 % (which sets the visibility
// map and freezes), or its oldest unfrozen transaction is older than autovacuum_freeze_max_age; an analyse
// when its rows changed since the last one pass 50 + 10 %.
const VACUUM_BASE = 50;
const VACUUM_SCALE = 0.2;
const INSERT_BASE = 1_000;
const INSERT_SCALE = 0.2;
const ANALYZE_BASE = 50;
const ANALYZE_SCALE = 0.1;

export interface TableDue {
  schema: string;
  table: string;
  vacuum: boolean;
  analyze: boolean;
}

/**
 * Whether autovacuum is configured on but no launcher runs: PGlite. PostgreSQL has its launcher; one whose
 * operator turned autovacuum off (as CI's does) is left as configured.
 */
export async function autovacuumMissing(db: Database): Promise<boolean> {
  const [row] = rowsOf<{ missing: boolean }>(
    await db.execute(sql`select current_setting('autovacuum')::bool
      and not exists (select 1 from pg_stat_activity where backend_type = 'autovacuum launcher') as missing`),
  );
  return row?.missing === true;
}

/** The tables (the catalogs' and pg-boss's included) autovacuum would vacuum or analyse now, oldest unfrozen first. */
export async function tablesDue(db: Database): Promise<TableDue[]> {
  // A session reports its counts at most once a second; PGlite's one session has just made them: report now.
  await db.execute(sql`select pg_stat_force_next_flush()`);
  const rows = rowsOf<{
    schema: string;
    table: string;
    dead: number;
    inserted: number;
    modified: number;
    tuples: number;
    xid_age: number;
    freeze_max_age: number;
  }>(
    await db.execute(sql`select n.nspname as schema, c.relname as table,
        coalesce(s.n_dead_tup, 0)::float8 as dead, coalesce(s.n_ins_since_vacuum, 0)::float8 as inserted,
        coalesce(s.n_mod_since_analyze, 0)::float8 as modified, greatest(c.reltuples, 0)::float8 as tuples,
        greatest(age(c.relfrozenxid), coalesce(age(toast.relfrozenxid), 0))::float8 as xid_age,
        current_setting('autovacuum_freeze_max_age')::float8 as freeze_max_age
      from pg_class c
      join pg_namespace n on n.oid = c.relnamespace
      left join pg_stat_all_tables s on s.relid = c.oid
      left join pg_class toast on toast.oid = c.reltoastrelid
      where c.relkind in ('r', 'm') and n.nspname <> 'information_schema' and n.nspname not like 'pg\\_temp%' and n.nspname not like 'pg\\_toast%'
      order by xid_age desc, c.oid`),
  );
  return rows.flatMap((row) => {
    const vacuum =
      row.dead > VACUUM_BASE + VACUUM_SCALE * row.tuples || row.inserted > INSERT_BASE + INSERT_SCALE * row.tuples || row.xid_age > row.freeze_max_age;
    const analyze = row.modified > ANALYZE_BASE + ANALYZE_SCALE * row.tuples;
    return vacuum || analyze ? [{ schema: row.schema, table: row.table, vacuum, analyze }] : [];
  });
}

/**
 * Vacuums and analyses the tables due, one statement per table; stops between tables when `signal` aborts.
 * PGlite runs in the server's thread, so requests are served between tables. Returns the tables done.
 */
export async function vacuumTablesDue(db: Database, signal?: AbortSignal): Promise<TableDue[]> {
  const done: TableDue[] = [];
  for (const due of await tablesDue(db)) {
    if (signal?.aborted) break;
    const target = sql`${sql.identifier(due.schema)}.${sql.identifier(due.table)}`;
    await db.execute(due.vacuum ? (due.analyze ? sql`vacuum (analyze) ${target}` : sql`vacuum ${target}`) : sql`analyze ${target}`);
    done.push(due);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return done;
}

/** The job's work: vacuumTablesDue where autovacuum is missing, nothing elsewhere. */
export async function runUpkeep(db: Database, signal?: AbortSignal): Promise<TableDue[]> {
  return (await autovacuumMissing(db)) ? vacuumTablesDue(db, signal) : [];
}

export const DB_JOBS = { upkeep: 'db.upkeep' } as const;

/** Every five minutes, once for the cluster: what autovacuum would do, where it does not run. */
export function upkeepJobs(services: Pick<Services, 'db'>): JobDefinition[] {
  return [
    {
      kind: DB_JOBS.upkeep,
      schedule: '*/5 * * * *',
      deadlineSeconds: 900,
      retryLimit: 0,
      async run(_payload, context) {
        const done = await runUpkeep(services.db, context.signal);
        if (done.length === 0) return;
        const names = (wanted: (due: TableDue) => boolean) => done.filter(wanted).map((due) => `${due.schema}.${due.table}`);
        context.log.info(
          { vacuumed: names((due) => due.vacuum), analysed: names((due) => due.analyze) },
          'vacuumed and analysed tables (no autovacuum runs here)',
        );
      },
    },
  ];
}
