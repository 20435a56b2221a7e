import type { Database } from '../../db/client.js';
import { deleteOlderThan, purgeJob } from '../../db/purge.js';
import type { JobDefinition } from '../../jobs/types.js';
import type { Services } from '../../services.js';
import { modelResponses } from './table.js';

export const RESPONSE_JOBS = { expire: 'responses.expire' } as const;

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Deletes the stored responses (and chat completions) created before `cutoff`, oldest first, a batch per
 * statement through the created_at index until none is left or `signal` aborts; returns how many. The ledger
 * keeps their charges.
 */
export function expireResponses(db: Database, cutoff: Date, signal?: AbortSignal): Promise<number> {
  return deleteOlderThan(db, modelResponses, modelResponses.createdAt, cutoff, { signal });
}

/** The hourly expiry, when the operator set RESPONSE_RETENTION_DAYS (DECISIONS.md, Responses). */
export function responseJobs(services: Services): JobDefinition[] {
  const days = services.responseRetentionDays;
  if (days === undefined) return [];
  return [
    purgeJob({
      kind: RESPONSE_JOBS.expire,
      schedule: '29 * * * *',
      what: 'stored responses past their retention',
      purge: (signal) => expireResponses(services.db, new Date(services.clock.now().getTime() - days * DAY_MS), signal),
      logFields: { retention_days: days },
    }),
  ];
}
