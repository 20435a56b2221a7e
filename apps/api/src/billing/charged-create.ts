import type { Transaction } from '../db/client.js';
import { errors } from '../http/errors.js';
import type { RequestContext } from '../http/context.js';
import { foreignKeyViolation } from '../db/sql.js';
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
  const charge = await ctx.db
    .transaction(async (tx) => {
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
    })
    .catch((error: unknown) => {
      throw deletedTarget(error, create) ?? error;
    });
  const alert = budgetAlertHeader(charge);
  if (alert) ctx.setHeader('budget-alert', alert);
  return { row, charge };
}

/**
 * A workspace or project deleted while the work ran (the ledger row or the resource still names it): the
 * create's 404 for that parameter, nothing charged. Taking a lock on them before the charge instead would
 * order locks against a workspace delete the other way round and deadlock.
 */
function deletedTarget(error: unknown, { workspaceId, projectId }: { workspaceId: string; projectId?: string | null | undefined }) {
  const constraint = foreignKeyViolation(error);
  if (constraint?.includes('_workspace_id_')) return errors.notFound('workspace', workspaceId, 'workspace_id');
  if (constraint?.includes('_project_id_') && projectId) return errors.notFound('project', projectId, 'project_id');
  return null;
}
