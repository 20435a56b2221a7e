import type { Database } from '../../db/client.js';
import { deleteOlderThan, purgeJob } from '../../db/purge.js';
import type { JobDefinition } from '../../jobs/types.js';
import type { Services } from '../../services.js';
import { consoleSessions, consoleSetupTokens } from './table.js';

export const CONSOLE_JOBS = { purge: 'console.purge' } as const;

/**
 * How long an expired session or setup link is kept (DECISIONS.md, Console): long enough to see who signed
 * in recently, then gone, so the tables hold about a month of sign-ins, not every one ever made.
 */
export const CONSOLE_EXPIRED_KEPT_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Deletes the sessions and setup links that expired more than CONSOLE_EXPIRED_KEPT_MS before `now`, a batch
 * per statement through their expires_at indexes; returns how many. A session's browser keys expire with it
 * and keep their rows (usage and the ledger name them); they only keep its id.
 */
export async function purgeExpiredConsoleRows(db: Database, now: Date, signal?: AbortSignal): Promise<number> {
  const cutoff = new Date(now.getTime() - CONSOLE_EXPIRED_KEPT_MS);
  const sessions = await deleteOlderThan(db, consoleSessions, consoleSessions.expiresAt, cutoff, { signal });
  if (signal?.aborted) return sessions;
  return sessions + (await deleteOlderThan(db, consoleSetupTokens, consoleSetupTokens.expiresAt, cutoff, { signal }));
}

/** The daily purge, once for the whole cluster. */
export function consoleJobs(services: Pick<Services, 'db' | 'clock'>): JobDefinition[] {
  return [
    purgeJob({
      kind: CONSOLE_JOBS.purge,
      schedule: '41 4 * * *',
      what: 'console sessions and setup links expired over 30 days ago',
      purge: (signal) => purgeExpiredConsoleRows(services.db, services.clock.now(), signal),
    }),
  ];
}
