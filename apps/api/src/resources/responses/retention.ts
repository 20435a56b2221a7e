import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { rowsOf } from '../../db/sql.js';
import type { JobDefinition } from '../../jobs/types.js';
import type { Services } from '../../services.js';
import { modelResponses } from './table.js';

export const RESPONSE_JOBS = { expire: 'responses.expire' } as const;

/** Rows one statement deletes: a short lock on a bounded range of the created_at index. */
const EXPIRE_BATCH = 2_000;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Deletes the stored responses (and chat completions) created before `cutoff`, oldest first, one batch per
 * statement until none is left or `signal` aborts; returns how many. The ledger keeps their charges.
 */
export async function expireResponses(db: Database, cutoff: Date, signal?: AbortSignal): Promise<number> {
  let deleted = 0;
  for (;;) {
    const [row] = rowsOf<{ count: number }>(
      await db.execute(sql`with gone as (
          delete from ${modelResponses} where ${modelResponses.id} in (
            select ${modelResponses.id} from ${modelResponses} where ${modelResponses.createdAt} < ${cutoff.toISOString()}::timestamptz
            order by ${modelResponses.createdAt} limit ${EXPIRE_BATCH})
          returning 1)
        select count(*)::int as count from gone`),
    );
    deleted += row?.count ?? 0;
    if ((row?.count ?? 0) < EXPIRE_BATCH || signal?.aborted) return deleted;
  }
}

/** The hourly expiry, when the operator set RESPONSE_RETENTION_DAYS (DECISIONS.md, Responses). */
export function responseJobs(services: Services): JobDefinition[] {
  const days = services.responseRetentionDays;
  if (days === undefined) return [];
  return [
    {
      kind: RESPONSE_JOBS.expire,
      schedule: '29 * * * *',
      deadlineSeconds: 900,
      retryLimit: 0,
      async run(_payload, context) {
        const deleted = await expireResponses(services.db, new Date(services.clock.now().getTime() - days * DAY_MS), context.signal);
        if (deleted > 0) context.log.info({ count: deleted, retention_days: days }, 'deleted stored responses past their retention');
      },
    },
  ];
}
