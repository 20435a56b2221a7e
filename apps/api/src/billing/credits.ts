import { and, eq, gte, inArray, lt, sql, type SQL } from 'drizzle-orm';
import type { Database, Executor, Transaction } from '../db/client.js';
import { accounts, budgetAlerts, creditLedger, projects, users, workspaces } from '../db/schema/index.js';
import { ApiError } from '../http/errors.js';
import { newId } from '../lib/ids.js';

/** Billing periods are calendar months in UTC: `start` inclusive, `end` exclusive. */
export function billingPeriod(now: Date): { start: Date; end: Date } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start, end };
}

/** Credits spent (charges net of refunds) matching `where` from `since` on; always >= 0. */
export async function creditsUsedSince(db: Executor, where: SQL, since: Date, until?: Date): Promise<number> {
  const [row] = await db
    .select({ used: sql<string>`coalesce(-sum(${creditLedger.amount}), 0)` })
    .from(creditLedger)
    .where(
      and(
        where,
        inArray(creditLedger.kind, ['charge', 'refund']),
        gte(creditLedger.createdAt, since),
        until ? lt(creditLedger.createdAt, until) : undefined,
      ),
    );
  return Math.max(0, Number(row?.used ?? 0));
}

export interface GrantRequest {
  accountId: string;
  amount: number;
  kind?: 'grant' | 'refund' | 'auto_recharge';
  description: string;
  now: Date;
  workspaceId?: string | null;
  projectId?: string | null;
  apiKeyId?: string | null;
  requestId?: string | null;
}

/** Adds credits and writes the ledger row, in the caller's transaction. Returns the new balance. */
export async function grantCreditsIn(tx: Executor, grant: GrantRequest): Promise<number> {
  if (!Number.isSafeInteger(grant.amount) || grant.amount <= 0) throw new RangeError('a grant is a positive whole number of credits');
  const [account] = await tx
    .update(accounts)
    .set({ creditBalance: sql`${accounts.creditBalance} + ${grant.amount}` })
    .where(eq(accounts.id, grant.accountId))
    .returning({ balance: accounts.creditBalance });
  if (!account) throw new Error(`no account ${grant.accountId}`);
  await tx.insert(creditLedger).values({
    id: newId('txn'),
    accountId: grant.accountId,
    workspaceId: grant.workspaceId ?? null,
    projectId: grant.projectId ?? null,
    apiKeyId: grant.apiKeyId ?? null,
    kind: grant.kind ?? 'grant',
    amount: grant.amount,
    balanceAfter: account.balance,
    requestId: grant.requestId ?? null,
    description: grant.description,
    createdAt: grant.now,
  });
  return account.balance;
}

export function grantCredits(db: Database, grant: GrantRequest): Promise<number> {
  return db.transaction((tx) => grantCreditsIn(tx, grant));
}

export type BudgetAlertScope = 'workspace' | 'project';

export interface ChargeRequest {
  accountId: string;
  amount: number;
  description: string;
  now: Date;
  workspaceId?: string | null;
  projectId?: string | null;
  apiKeyId?: string | null;
  operationId?: string | null;
  requestId?: string | null;
}

export interface ChargeResult {
  ledgerId: string;
  balanceAfter: number;
  /** Scopes whose budget alert has been reached this period: the `Budget-Alert` response header. */
  budgetAlert: BudgetAlertScope[];
}

/** The `Budget-Alert` header value for a charge, or undefined when no threshold is reached. */
export function budgetAlertHeader(result: ChargeResult): string | undefined {
  return result.budgetAlert.length > 0 ? result.budgetAlert.join(', ') : undefined;
}

interface Limited {
  scope: 'account' | BudgetAlertScope;
  id: string;
  budgetAlert: number | null;
  usageLimit: number | null;
  billingEmail: string | null;
  where: SQL;
}

/**
 * Charges credits inside the transaction that performs the effect being paid for, so either both
 * happen or neither does. Refuses (402, nothing written) when the account, workspace or project usage
 * limit of the billing period would be passed, or when the balance is short even after an
 * auto-recharge. Rows are locked in a fixed order (account, workspace, project) so that concurrent
 * charges against the same limits serialise instead of overspending.
 */
export async function chargeCredits(tx: Transaction, charge: ChargeRequest): Promise<ChargeResult> {
  if (!Number.isSafeInteger(charge.amount) || charge.amount <= 0) throw new RangeError('a charge is a positive whole number of credits');
  const period = billingPeriod(charge.now);

  const [account] = await tx.select().from(accounts).where(eq(accounts.id, charge.accountId)).for('update');
  if (!account) throw new Error(`no account ${charge.accountId}`);
  const limited: Limited[] = [
    {
      scope: 'account',
      id: account.id,
      budgetAlert: account.budgetAlert,
      usageLimit: account.usageLimit,
      billingEmail: null,
      where: eq(creditLedger.accountId, account.id),
    },
  ];
  if (charge.workspaceId) {
    const [workspace] = await tx
      .select({ id: workspaces.id, budgetAlert: workspaces.budgetAlert, usageLimit: workspaces.usageLimit, billingEmail: workspaces.billingEmail })
      .from(workspaces)
      .where(eq(workspaces.id, charge.workspaceId))
      .for('update');
    if (workspace) limited.push({ scope: 'workspace', ...workspace, where: eq(creditLedger.workspaceId, workspace.id) });
  }
  if (charge.projectId) {
    const [project] = await tx
      .select({ id: projects.id, budgetAlert: projects.budgetAlert, usageLimit: projects.usageLimit, billingEmail: projects.billingEmail })
      .from(projects)
      .where(eq(projects.id, charge.projectId))
      .for('update');
    if (project) limited.push({ scope: 'project', ...project, where: eq(creditLedger.projectId, project.id) });
  }

  const usedBefore = new Map<Limited, number>();
  for (const scope of limited) {
    if (scope.usageLimit === null && scope.budgetAlert === null) continue;
    const used = await creditsUsedSince(tx, scope.where, period.start);
    usedBefore.set(scope, used);
    if (scope.usageLimit !== null && used + charge.amount > scope.usageLimit) {
      throw new ApiError(
        402,
        'usage_limit_exceeded',
        `The ${scope.scope} usage limit of ${scope.usageLimit} credits for this billing period would be exceeded: ${used} used, this request needs ${charge.amount}.`,
      );
    }
  }

  let balance = account.creditBalance;
  if (balance < charge.amount && account.autoRechargeEnabled && account.autoRechargeCredits > 0) {
    balance = await grantCreditsIn(tx, {
      accountId: account.id,
      amount: account.autoRechargeCredits,
      kind: 'auto_recharge',
      description: 'Auto-recharge',
      now: charge.now,
    });
  }
  if (balance < charge.amount) {
    throw new ApiError(402, 'insufficient_credits', `This request needs ${charge.amount} credits but the account has ${balance} left.`);
  }

  const [updated] = await tx
    .update(accounts)
    .set({ creditBalance: sql`${accounts.creditBalance} - ${charge.amount}` })
    .where(eq(accounts.id, account.id))
    .returning({ balance: accounts.creditBalance });
  const balanceAfter = updated?.balance ?? balance - charge.amount;
  const ledgerId = newId('txn');
  await tx.insert(creditLedger).values({
    id: ledgerId,
    accountId: account.id,
    workspaceId: charge.workspaceId ?? null,
    projectId: charge.projectId ?? null,
    apiKeyId: charge.apiKeyId ?? null,
    kind: 'charge',
    amount: -charge.amount,
    balanceAfter,
    operationId: charge.operationId ?? null,
    requestId: charge.requestId ?? null,
    description: charge.description,
    createdAt: charge.now,
  });

  // Auto-recharge once the remaining credits fall to the threshold.
  if (account.autoRechargeEnabled && account.autoRechargeCredits > 0 && balanceAfter <= account.autoRechargeThreshold) {
    await grantCreditsIn(tx, {
      accountId: account.id,
      amount: account.autoRechargeCredits,
      kind: 'auto_recharge',
      description: 'Auto-recharge',
      now: charge.now,
    });
  }

  const budgetAlert: BudgetAlertScope[] = [];
  for (const [scope, used] of usedBefore) {
    if (scope.budgetAlert === null || used + charge.amount < scope.budgetAlert) continue;
    if (scope.scope !== 'account') budgetAlert.push(scope.scope);
    // The first crossing in a period records the alert (the e-mail outbox); later charges only flag it.
    if (used < scope.budgetAlert) {
      await tx
        .insert(budgetAlerts)
        .values({
          id: newId('alert'),
          accountId: account.id,
          workspaceId: scope.scope === 'workspace' ? scope.id : null,
          projectId: scope.scope === 'project' ? scope.id : null,
          scope: `${scope.scope}:${scope.id}`,
          threshold: scope.budgetAlert,
          creditsUsed: used + charge.amount,
          periodStart: period.start,
          billingEmail: scope.billingEmail ?? (await ownerEmail(tx, account.id)),
          createdAt: charge.now,
        })
        .onConflictDoNothing();
    }
  }
  budgetAlert.sort(); // 'project' < 'workspace'; the header lists workspace first.
  budgetAlert.reverse();
  return { ledgerId, balanceAfter, budgetAlert };
}

async function ownerEmail(tx: Executor, accountId: string): Promise<string | null> {
  const [user] = await tx.select({ email: users.email }).from(users).where(eq(users.accountId, accountId)).orderBy(users.createdAt).limit(1);
  return user?.email ?? null;
}
