import type { Transaction } from '../db/client.js';
import type { RequestContext } from '../http/context.js';
import { budgetAlertHeader, chargeCredits, checkCredits, type ChargeResult } from './credits.js';

export interface ChargedCreate<Row> {
  workspaceId: string;
  projectId?: string | null;
  /** The flat price, known up front (DECISIONS.md, Credits): custom personas 300, brand voices and video analyses 100. */
  price: number;
  /** The ledger entry's text, e.g. `Custom persona cp_…`. */
  description(row: Row): string;
  /** The paid work (a model call), run after the balance check and before anything is written: its failure costs nothing. */
  produce(): Promise<Row>;
  /**
   * Stores the row (and enqueues its jobs) in the charge's transaction: either both happen or neither.
   * Gets the charge, whose `ledgerId` a job that may fail keeps for its refund.
   */
  store(tx: Transaction, row: Row, charge: ChargeResult): Promise<void>;
}

/**
 * A flat-priced create: 402 before any work when the balance or a limit cannot cover the price, then
 * the work, then the row and the charge in one transaction, then the `Budget-Alert` header. The charge's
 * ledger id is returned so a job that later fails for good can `refundCredits` it.
 */
export async function chargedCreate<Row>(ctx: RequestContext, create: ChargedCreate<Row>): Promise<{ row: Row; charge: ChargeResult }> {
  const scope = { accountId: ctx.auth.accountId, workspaceId: create.workspaceId, projectId: create.projectId ?? null };
  await checkCredits(ctx.db, { ...scope, estimate: create.price, pricing: 'fixed', now: ctx.now() });
  const row = await create.produce();
  // A workspace or project deleted while the work ran fails the ledger's foreign key: the transaction rolls
  // back and the error mapper answers the 404 (app/errors.ts). Locking them here first would deadlock against
  // the delete, which locks the account first.
  const charge = await ctx.db.transaction(async (tx) => {
    const result = await chargeCredits(tx, {
      ...scope,
      apiKeyId: ctx.auth.apiKeyId,
      amount: create.price,
      pricing: 'fixed',
      description: create.description(row),
      operationId: ctx.operationId,
      requestId: ctx.requestId,
      now: ctx.now(),
    });
    await create.store(tx, row, result);
    return result;
  });
  const alert = budgetAlertHeader(charge);
  if (alert) ctx.setHeader('budget-alert', alert);
  return { row, charge };
}
