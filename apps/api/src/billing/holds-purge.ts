import { deleteOlderThan, purgeJob } from '../db/purge.js';
import type { Database } from '../db/client.js';
import { creditReservations } from '../db/schema/index.js';
import type { JobDefinition } from '../jobs/types.js';
import type { Services } from '../services.js';

/**
 * How long a hold is kept after it expired. An expired hold no longer counts (holdCredits); it is left a
 * day for whoever looks into the crash that left it, then deleted so the table holds running calls only.
 */
export const EXPIRED_HOLD_KEPT_MS = 24 * 60 * 60 * 1000;

/** Deletes the holds expired more than EXPIRED_HOLD_KEPT_MS ago, a batch per statement; returns how many. */
export function purgeExpiredHolds(db: Database, now: Date, signal?: AbortSignal): Promise<number> {
  return deleteOlderThan(db, creditReservations, creditReservations.expiresAt, new Date(now.getTime() - EXPIRED_HOLD_KEPT_MS), { signal });
}

export const BILLING_JOBS = { purgeHolds: 'credits.purge-expired-holds' } as const;

/** The hourly purge of holds left by crashed processes, once for the whole cluster. */
export function billingJobs(services: Pick<Services, 'db' | 'clock'>): JobDefinition[] {
  return [
    purgeJob({
      kind: BILLING_JOBS.purgeHolds,
      schedule: '47 * * * *',
      what: 'credit holds expired over a day ago',
      purge: (signal) => purgeExpiredHolds(services.db, services.clock.now(), signal),
    }),
  ];
}
