import { sql } from 'drizzle-orm';
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { JobDefinition } from '../jobs/types.js';
import type { Database } from './client.js';
import { rowsOf } from './sql.js';

/** Rows one statement deletes: a short statement over a bounded range of the time column's index. */
export const PURGE_BATCH = 2_000;

/**
 * Deletes the rows of `table` whose `column` (a time, with an index) is before `cutoff`, oldest first, one
 * batch per statement until none is left or `signal` aborts; returns how many. However much expired since the
 * last run, no statement is longer than a batch: no long lock or transaction on PostgreSQL, and on PGlite,
 * which runs in the server's thread, requests are served between batches. Rows are picked by their physical
 * address (`ctid`), so a table without a single-column key purges the same way.
 */
export async function deleteOlderThan(
  db: Database,
  table: PgTable,
  column: AnyPgColumn,
  cutoff: Date,
  { batch = PURGE_BATCH, signal }: { batch?: number; signal?: AbortSignal } = {},
): Promise<number> {
  let deleted = 0;
  for (;;) {
    const [row] = rowsOf<{ count: number }>(
      await db.execute(sql`with gone as (
          delete from ${table} where ctid = any(array(
            select ctid from ${table} where ${column} < ${cutoff.toISOString()}::timestamptz order by ${column} limit ${batch}))
          returning 1)
        select count(*)::int as count from gone`),
    );
    const count = row?.count ?? 0;
    deleted += count;
    if (count < batch || signal?.aborted) return deleted;
  }
}

/**
 * The scheduled job of a purge: runs `purge` (given the job's deadline signal, which stops it between batches)
 * once per `schedule` for the whole cluster, and logs how many rows went, as `deleted <what>`.
 */
export function purgeJob(options: {
  kind: string;
  schedule: string;
  what: string;
  purge: (signal: AbortSignal) => Promise<number>;
  logFields?: Record<string, unknown>;
}): JobDefinition {
  return {
    kind: options.kind,
    schedule: options.schedule,
    deadlineSeconds: 900,
    retryLimit: 0,
    async run(_payload, context) {
      const deleted = await options.purge(context.signal);
      if (deleted > 0) context.log.info({ count: deleted, ...options.logFields }, `deleted ${options.what}`);
    },
  };
}
