import { count, gt, sum } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { creditReservations } from '../db/schema/index.js';
import { creditHoldsOpen, credits, creditsHeld, onScrape } from './metrics.js';
import { currentFeature } from './tracing.js';

/**
 * Credits charged or refunded, by the feature being served (operationId or job kind). Counted when the
 * ledger row is written in its transaction; a transaction that then rolls back is still counted (rare:
 * the charge is the last write of its transaction).
 */
export function countCredits(kind: 'charged' | 'refunded', amount: number): void {
  if (amount > 0) credits.inc({ feature: currentFeature(), kind }, amount);
}

/** Open (unexpired) credit holds and the credits they keep, read from the database at each scrape. Returns the removal. */
export function collectCreditHolds(db: Database, now: () => Date = () => new Date()): () => void {
  return onScrape(async () => {
    const [row] = await db
      .select({ holds: count(), credits: sum(creditReservations.credits) })
      .from(creditReservations)
      .where(gt(creditReservations.expiresAt, now()));
    creditHoldsOpen.set(row?.holds ?? 0);
    creditsHeld.set(Number(row?.credits ?? 0));
  });
}
