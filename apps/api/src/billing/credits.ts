import { countCredits } from '../observability/billing.js';
import { and, eq, gte, lt, or, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Database, Executor, Transaction } from '../db/client.js';
import { accounts, budgetAlerts, creditLedger, creditReservations, creditUsageDaily, projects, users, workspaces } from '../db/schema/index.js';
import { qualified, rowsOf } from '../db/sql.js';
import { apiError, type ApiError } from '../http/errors.js';
import { newId } from '../lib/ids.js';

/** Billing periods are calendar months in UTC: `start` inclusive, `end` exclusive. */
export function billingPeriod(now: Date): { start: Date; end: Date } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start, end };
}

/** Scopes that usage counters are kept for (credit_usage_daily). */
export type UsageScope = (typeof creditUsageDaily.$inferSelect)['scope'];

/** The UTC day of an instant, as the counters' `day` column holds it. */
export const usageDayOf = (at: Date): string => at.toISOString().slice(0, 10);

/**
 * Credits spent (charges net of refunds) in one scope from the UTC day of `since` up to the day of
 * `until` (exclusive); always >= 0. `since`/`until` are day boundaries (billing periods are whole
 * months). Reads at most one counter row per day, whatever the history.
 */
export async function creditsUsed(db: Executor, scope: UsageScope, scopeId: string, since: Date, until?: Date): Promise<number> {
  const [row] = await db
    .select({ used: sql<string>`coalesce(sum(${creditUsageDaily.credits}), 0)` })
    .from(creditUsageDaily)
    .where(
      and(
        eq(creditUsageDaily.scope, scope),
        eq(creditUsageDaily.scopeId, scopeId),
        gte(creditUsageDaily.day, usageDayOf(since)),
        until ? lt(creditUsageDaily.day, usageDayOf(until)) : undefined,
      ),
    );
  return Math.max(0, Number(row?.used ?? 0));
}

/** creditsUsed for several scopes in one statement, keyed `scope:id`. */
async function creditsUsedByScope(db: Executor, scopes: { scope: UsageScope; id: string }[], since: Date): Promise<Map<string, number>> {
  const used = new Map<string, number>();
  if (scopes.length === 0) return used;
  const rows = await db
    .select({ scope: creditUsageDaily.scope, scopeId: creditUsageDaily.scopeId, used: sql<string>`sum(${creditUsageDaily.credits})` })
    .from(creditUsageDaily)
    .where(
      and(
        or(...scopes.map((entry) => and(eq(creditUsageDaily.scope, entry.scope), eq(creditUsageDaily.scopeId, entry.id)))),
        gte(creditUsageDaily.day, usageDayOf(since)),
      ),
    )
    .groupBy(creditUsageDaily.scope, creditUsageDaily.scopeId);
  for (const row of rows) used.set(`${row.scope}:${row.scopeId}`, Math.max(0, Number(row.used)));
  return used;
}

/**
 * Credits a project spent from `since` (any instant) on, as an SQL expression for a project list's
 * correlated column: whole days after `since` from the counters, and the ledger rows of `since`'s own
 * day from `since` on (an index range of one day's charges), so a rolling window stays exact.
 */
export function projectCreditsSince(projectId: AnyPgColumn, since: Date): SQL<string> {
  const nextMidnight = new Date(Date.UTC(since.getUTCFullYear(), since.getUTCMonth(), since.getUTCDate() + 1));
  return sql<string>`greatest(0, (select coalesce(sum(${qualified(creditUsageDaily.credits)}), 0) from ${creditUsageDaily}
    where ${qualified(creditUsageDaily.scope)} = 'project' and ${qualified(creditUsageDaily.scopeId)} = ${projectId}
    and ${qualified(creditUsageDaily.day)} > ${usageDayOf(since)})
    + (select coalesce(-sum(${qualified(creditLedger.amount)}), 0) from ${creditLedger}
    where ${qualified(creditLedger.projectId)} = ${projectId} and ${qualified(creditLedger.kind)} in ('charge', 'refund')
    and ${qualified(creditLedger.createdAt)} >= ${since.toISOString()} and ${qualified(creditLedger.createdAt)} < ${nextMidnight.toISOString()}))`;
}

interface UsageEntry {
  accountId: string;
  workspaceId?: string | null;
  projectId?: string | null;
  apiKeyId?: string | null;
  /** The operation charged for (a refund names its charge's). */
  operationId?: string | null;
  /** Credits spent: a charge's credits, a refund's negated. */
  credits: number;
  at: Date;
}

/** The `account_feature` counter of an account's credits for one operation (`acct_…:createResponse`; `acct_…:` without one). */
export const featureScopeId = (accountId: string, operationId: string | null | undefined): string => `${accountId}:${operationId ?? ''}`;

/** The counter rows (one per scope) that a charge or refund adds to. */
function usageRows(entry: UsageEntry): { scope: UsageScope; scopeId: string; day: string; credits: number }[] {
  const day = usageDayOf(entry.at);
  const scopes: [UsageScope, string | null | undefined][] = [
    ['account', entry.accountId],
    ['account_keys', entry.apiKeyId ? entry.accountId : null],
    ['workspace', entry.workspaceId],
    ['project', entry.projectId],
    ['api_key', entry.apiKeyId],
    ['account_feature', featureScopeId(entry.accountId, entry.operationId)],
  ];
  return scopes.flatMap(([scope, scopeId]) => (scopeId ? [{ scope, scopeId, day, credits: entry.credits }] : []));
}

/**
 * Adds a charge or refund to the counters of its scopes, in the transaction that writes its ledger row
 * (one statement). Callers hold the account row's lock, so concurrent writers of one account's counter
 * rows are already ordered and cannot deadlock.
 */
async function recordUsage(tx: Executor, entry: UsageEntry): Promise<void> {
  await tx
    .insert(creditUsageDaily)
    .values(usageRows(entry))
    .onConflictDoUpdate({
      target: [creditUsageDaily.scope, creditUsageDaily.scopeId, creditUsageDaily.day],
      set: { credits: sql`${qualified(creditUsageDaily.credits)} + excluded.credits` },
    });
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
  /** A refund names the operation of the charge it reverses, so usage by feature nets it out too. */
  operationId?: string | null;
  /** The ledger row's id; a new `txn_…` by default. */
  ledgerId?: string;
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
    id: grant.ledgerId ?? newId('txn'),
    accountId: grant.accountId,
    workspaceId: grant.workspaceId ?? null,
    projectId: grant.projectId ?? null,
    apiKeyId: grant.apiKeyId ?? null,
    kind: grant.kind ?? 'grant',
    amount: grant.amount,
    balanceAfter: account.balance,
    requestId: grant.requestId ?? null,
    operationId: grant.operationId ?? null,
    description: grant.description,
    createdAt: grant.now,
  });
  if (grant.kind === 'refund') {
    await recordUsage(tx, { ...grant, credits: -grant.amount, at: grant.now });
  }
  return account.balance;
}

export function grantCredits(db: Database, grant: GrantRequest): Promise<number> {
  return db.transaction((tx) => grantCreditsIn(tx, grant));
}

export type BudgetAlertScope = 'workspace' | 'project';

/**
 * `fixed`: the price is known up front (a custom persona, a brand voice); the call is refused when it
 * would take usage past a limit. `metered`: token-priced; the call was checked before the model ran
 * (`checkCredits`) and is charged in full even past a limit (overshoot at most one call), but never
 * takes the balance below zero (DECISIONS.md, Credits and Budgets).
 */
export type Pricing = 'fixed' | 'metered';

export interface ChargeScope {
  accountId: string;
  workspaceId?: string | null;
  projectId?: string | null;
}

export interface ChargeRequest extends ChargeScope {
  amount: number;
  /** The hold made for this call by reserveCredits: released here, and only its credits plus the unheld balance may be charged. */
  reservationId?: string | null;
  pricing?: Pricing;
  description: string;
  now: Date;
  apiKeyId?: string | null;
  operationId?: string | null;
  requestId?: string | null;
}

export interface ChargeResult {
  ledgerId: string | null;
  /** Credits actually charged: `amount`, or less for a metered call that emptied the balance. */
  charged: number;
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
}

/** This period's usage of each scope that `needs` it, from the counters in one statement. */
async function periodUsage(db: Executor, limited: Limited[], needs: (scope: Limited) => boolean, since: Date): Promise<Map<Limited, number>> {
  const wanted = limited.filter(needs);
  const used = await creditsUsedByScope(db, wanted, since);
  return new Map(wanted.map((scope) => [scope, used.get(`${scope.scope}:${scope.id}`) ?? 0]));
}

interface Locked {
  account: typeof accounts.$inferSelect;
  limited: Limited[];
}

/**
 * Locks the account, workspace and project rows (in that order, so concurrent charges serialise).
 * NO KEY UPDATE, not UPDATE: it must not conflict with the KEY SHARE locks that inserting rows which
 * reference these (a thread, a ledger entry) takes, or two charging transactions would deadlock.
 * One statement (an inner join; rows are locked in the order the FROM names them); a workspace or
 * project that is gone falls back to one statement per row.
 */
async function lockScope(tx: Executor, scope: ChargeScope, lock: boolean): Promise<Locked> {
  const forUpdate = <T extends { for(strength: 'no key update'): unknown }>(query: T) => (lock ? query.for('no key update') : query);
  const workspaceColumns = { id: workspaces.id, budgetAlert: workspaces.budgetAlert, usageLimit: workspaces.usageLimit, billingEmail: workspaces.billingEmail };
  const projectColumns = { id: projects.id, budgetAlert: projects.budgetAlert, usageLimit: projects.usageLimit, billingEmail: projects.billingEmail };
  type LimitColumns = { id: string; budgetAlert: number | null; usageLimit: number | null; billingEmail: string | null };
  const accountLimits = (account: typeof accounts.$inferSelect): Limited => ({
    scope: 'account',
    id: account.id,
    budgetAlert: account.budgetAlert,
    usageLimit: account.usageLimit,
    billingEmail: null,
  });
  if (scope.workspaceId) {
    const joined = scope.projectId
      ? tx
          .select({ account: accounts, workspace: workspaceColumns, project: projectColumns })
          .from(accounts)
          .innerJoin(workspaces, eq(workspaces.id, scope.workspaceId))
          .innerJoin(projects, eq(projects.id, scope.projectId))
          .where(eq(accounts.id, scope.accountId))
      : tx
          .select({ account: accounts, workspace: workspaceColumns })
          .from(accounts)
          .innerJoin(workspaces, eq(workspaces.id, scope.workspaceId))
          .where(eq(accounts.id, scope.accountId));
    const [row] = (await forUpdate(joined)) as { account: typeof accounts.$inferSelect; workspace: LimitColumns; project?: LimitColumns }[];
    if (row) {
      const limited: Limited[] = [accountLimits(row.account), { scope: 'workspace', ...row.workspace }];
      if (row.project) limited.push({ scope: 'project', ...row.project });
      return { account: row.account, limited };
    }
  }
  const [account] = (await forUpdate(tx.select().from(accounts).where(eq(accounts.id, scope.accountId)))) as (typeof accounts.$inferSelect)[];
  if (!account) throw new Error(`no account ${scope.accountId}`);
  const limited: Limited[] = [accountLimits(account)];
  if (scope.workspaceId) {
    const [workspace] = (await forUpdate(tx.select(workspaceColumns).from(workspaces).where(eq(workspaces.id, scope.workspaceId)))) as LimitColumns[];
    if (workspace) limited.push({ scope: 'workspace', ...workspace });
  }
  if (scope.projectId) {
    const [project] = (await forUpdate(tx.select(projectColumns).from(projects).where(eq(projects.id, scope.projectId)))) as LimitColumns[];
    if (project) limited.push({ scope: 'project', ...project });
  }
  return { account, limited };
}

function usageLimitExceeded(scope: Limited, used: number, amount: number): ApiError {
  const what = `The ${scope.scope} usage limit of ${scope.usageLimit} credits for this billing period`;
  return apiError(
    'usage_limit_exceeded',
    used >= (scope.usageLimit ?? 0) ? `${what} has been reached.` : `${what} would be exceeded: ${used} used, this request needs ${amount}.`,
  );
}

/**
 * The check before a charged call does its work (402, nothing done): the balance covers `estimate`
 * and no usage limit of the account, workspace or project is reached (or, for a fixed price, passed).
 */
export async function checkCredits(db: Executor, scope: ChargeScope & { estimate: number; pricing?: Pricing; now: Date }): Promise<void> {
  const { account, limited } = await lockScope(db, scope, false);
  const period = billingPeriod(scope.now);
  const usage = await periodUsage(db, limited, (entry) => entry.usageLimit !== null, period.start);
  for (const [entry, used] of usage) {
    if (entry.usageLimit === null) continue;
    const refused = scope.pricing === 'fixed' ? used + scope.estimate > entry.usageLimit : used >= entry.usageLimit;
    if (refused) throw usageLimitExceeded(entry, used, scope.estimate);
  }
  const rechargeable = account.autoRechargeEnabled && account.autoRechargeCredits > 0;
  if (account.creditBalance < scope.estimate && !rechargeable) {
    throw apiError('insufficient_credits', `This request needs ${scope.estimate} credits but the account has ${account.creditBalance} left.`);
  }
}

/** How long a hold counts if its call never settles (a crashed process): longer than any model call runs. */
export const RESERVATION_TTL_MS = 15 * 60 * 1000;

/** This period's usage of each of `scopes` as the columns `used_0`, `used_1`, … of a raw select (counter reads). */
function usageColumns(scopes: Limited[], since: Date): SQL {
  const columns = scopes.map(
    (entry, index) => sql`, (select coalesce(sum(${creditUsageDaily.credits}), 0) from ${creditUsageDaily}
      where ${creditUsageDaily.scope} = ${entry.scope} and ${creditUsageDaily.scopeId} = ${entry.id}
      and ${creditUsageDaily.day} >= ${usageDayOf(since)})::text as ${sql.identifier(`used_${index}`)}`,
  );
  return sql.join(columns, sql``);
}

/** The `used_i` columns of a row read back, as usage per scope (never below 0). */
function usageOfRow(scopes: Limited[], row: Record<string, string | null>): Map<Limited, number> {
  return new Map(scopes.map((entry, index) => [entry, Math.max(0, Number(row[`used_${index}`] ?? 0))]));
}

/** Credits held by the account's unexpired holds other than `except`, as a scalar subquery. */
function heldByOthersSql(accountId: string, now: Date, except?: string | null): SQL {
  return sql`(select coalesce(sum(${creditReservations.credits}), 0) from ${creditReservations}
    where ${creditReservations.accountId} = ${accountId} and ${creditReservations.expiresAt} > ${now.toISOString()}::timestamptz
    ${except ? sql`and ${creditReservations.id} <> ${except}` : sql``})`;
}

export interface Reservation {
  id: string;
  credits: number;
}

/**
 * The check before a token-priced call runs, as a hold (DECISIONS.md, Credits): the usage limits as in
 * checkCredits, then the balance not held by other running calls must cover `floor` (the input's cost
 * and extras: 402 insufficient_credits, nothing done), and `estimate` (the floor plus an output
 * allowance) — or as much of it as is free — is held until the call is charged. Holds are taken one at a
 * time per account (the account row is locked), so concurrent calls cannot all pass on the same credits.
 */
export async function reserveCredits(
  db: Database,
  scope: ChargeScope & { floor: number; estimate: number; now: Date; reservationId: string },
): Promise<Reservation> {
  return db.transaction(async (tx) => {
    const { account, limited } = await lockScope(tx, scope, true);
    const period = billingPeriod(scope.now);
    const rechargeable = account.autoRechargeEnabled && account.autoRechargeCredits > 0;
    const checked = limited.filter((entry) => entry.usageLimit !== null);
    // One statement after the lock (so it reads every hold and charge committed before it): the credits
    // other calls hold, this period's usage of each limited scope, and the hold itself. A check that
    // fails below throws, and the transaction takes the hold back with it.
    const heldByOthers = heldByOthersSql(account.id, scope.now);
    const credits = rechargeable
      ? sql`${scope.estimate}::bigint`
      : sql`greatest(${scope.floor}::bigint, least(${scope.estimate}::bigint, ${account.creditBalance}::bigint - held.credits))`;
    const [row] = rowsOf<Record<string, string | null>>(
      await tx.execute(sql`with held as (select ${heldByOthers} as credits),
        hold as (insert into ${creditReservations} (id, account_id, credits, created_at, expires_at)
          select ${scope.reservationId}, ${account.id}, ${credits}, ${scope.now.toISOString()}::timestamptz,
            ${new Date(scope.now.getTime() + RESERVATION_TTL_MS).toISOString()}::timestamptz from held
          returning credits)
        select (select credits from held)::text as held, (select credits from hold)::text as credits${usageColumns(checked, period.start)}`),
    );
    if (!row) throw new Error('the hold statement returned no row');
    for (const [entry, used] of usageOfRow(checked, row)) {
      if (used >= (entry.usageLimit ?? 0)) throw usageLimitExceeded(entry, used, scope.floor);
    }
    const free = account.creditBalance - Number(row.held ?? 0);
    if (free < scope.floor && !rechargeable) {
      throw apiError('insufficient_credits', `This request needs ${scope.floor} credits but the account has ${Math.max(0, free)} available.`);
    }
    return { id: scope.reservationId, credits: Number(row.credits) };
  });
}

/** Gives a hold back (the call failed, or its client left, before it was charged); nothing if already settled. */
export async function releaseReservation(db: Executor, reservationId: string): Promise<void> {
  await db.delete(creditReservations).where(eq(creditReservations.id, reservationId));
}

/** A hold on credits for one token-priced call; `release()` gives it back and is a no-op once a charge took it. */
export interface CreditHold {
  id: string;
  credits: number;
  release(): Promise<void>;
}

/**
 * The hold every token-priced feature takes before its model runs (generations, the research agent, news
 * analyses and digests, focus groups; /responses through prepareModelCall): `floor` must be free (402
 * otherwise, nothing done), `estimate` is held. The charge that stores the result names it
 * (`reservationId: hold.id`) and so consumes it; callers release it in a `finally` for every other ending.
 * A process that dies holding it loses it after RESERVATION_TTL_MS.
 */
export async function holdCredits(db: Database, scope: ChargeScope & { floor: number; estimate: number; now: Date }): Promise<CreditHold> {
  const floor = Math.max(1, scope.floor);
  const hold = await reserveCredits(db, { ...scope, floor, estimate: Math.max(floor, scope.estimate), reservationId: newId('hold') });
  return { ...hold, release: () => releaseReservation(db, hold.id) };
}

/** Runs `run` under a credit hold (holdCredits), released however it ends; the charge inside names `hold.id`. */
export async function withCreditHold<T>(
  db: Database,
  scope: ChargeScope & { floor: number; estimate: number; now: Date },
  run: (hold: CreditHold) => Promise<T>,
): Promise<T> {
  const hold = await holdCredits(db, scope);
  try {
    return await run(hold);
  } finally {
    await hold.release();
  }
}

/**
 * Charges credits inside the transaction that stores the effect being paid for, so either both
 * happen or neither does. Refuses (402, nothing written) when a usage limit is reached, or passed by a
 * fixed price, or when the balance is short even after an auto-recharge.
 */
export async function chargeCredits(tx: Transaction, charge: ChargeRequest): Promise<ChargeResult> {
  if (!Number.isSafeInteger(charge.amount) || charge.amount < 0) throw new RangeError('a charge is a whole number of credits');
  const pricing = charge.pricing ?? 'fixed';
  const period = billingPeriod(charge.now);
  const { account, limited } = await lockScope(tx, charge, true);
  // One statement after the lock: gives back this charge's own hold (a data-modifying CTE runs whether or
  // not it is read), and reads the credits other running calls hold and this period's usage of the
  // scopes with a limit or an alert. Credits that running calls hold are not this charge's to take.
  const counted = limited.filter((scope) => scope.usageLimit !== null || scope.budgetAlert !== null);
  const released = charge.reservationId
    ? sql`with released as (delete from ${creditReservations} where ${creditReservations.id} = ${charge.reservationId} returning 1) `
    : sql``;
  const [read] = rowsOf<Record<string, string | null>>(
    await tx.execute(
      sql`${released}select ${heldByOthersSql(account.id, charge.now, charge.reservationId)}::text as held${usageColumns(counted, period.start)}`,
    ),
  );
  if (!read) throw new Error('the settlement read returned no row');
  const heldByOthers = Number(read.held ?? 0);
  const usedBefore = usageOfRow(counted, read);
  for (const [scope, used] of usedBefore) {
    // A metered call was checked before it ran and is charged in full (DECISIONS.md).
    if (pricing === 'fixed' && scope.usageLimit !== null && used + charge.amount > scope.usageLimit) {
      throw usageLimitExceeded(scope, used, charge.amount);
    }
  }

  let balance = account.creditBalance;
  if (balance - heldByOthers < charge.amount && account.autoRechargeEnabled && account.autoRechargeCredits > 0) {
    balance = await grantCreditsIn(tx, {
      accountId: account.id,
      amount: account.autoRechargeCredits,
      kind: 'auto_recharge',
      description: 'Auto-recharge',
      now: charge.now,
    });
  }
  if (pricing === 'fixed' && balance - heldByOthers < charge.amount) {
    throw apiError('insufficient_credits', `This request needs ${charge.amount} credits but the account has ${Math.max(0, balance - heldByOthers)} available.`);
  }
  // Output beyond the estimate takes the balance at most to zero (to what other running calls hold).
  const charged = Math.min(charge.amount, Math.max(0, balance - heldByOthers));
  if (charged === 0) return { ledgerId: null, charged: 0, balanceAfter: balance, budgetAlert: [] };

  // One statement: the balance, the ledger row (with the balance it leaves) and the usage counters.
  const ledgerId = newId('txn');
  const counters = usageRows({ ...charge, credits: charged, at: charge.now }).map(
    (row) => sql`(${row.scope}, ${row.scopeId}, ${row.day}::date, ${row.credits}::bigint)`,
  );
  const [written] = rowsOf<{ balance: string }>(
    await tx.execute(sql`with debited as (
        update ${accounts} set credit_balance = credit_balance - ${charged}::bigint where ${accounts.id} = ${account.id} returning credit_balance
      ), ledger as (
        insert into ${creditLedger} (id, account_id, workspace_id, project_id, api_key_id, kind, amount, balance_after, operation_id, request_id, description, created_at)
        select ${ledgerId}, ${account.id}, ${charge.workspaceId ?? null}::text, ${charge.projectId ?? null}::text, ${charge.apiKeyId ?? null}::text, 'charge',
          ${-charged}::bigint, credit_balance, ${charge.operationId ?? null}::text, ${charge.requestId ?? null}::text, ${charge.description}, ${charge.now.toISOString()}::timestamptz
        from debited
      ), counted as (
        insert into ${creditUsageDaily} (scope, scope_id, day, credits) values ${sql.join(counters, sql`, `)}
        on conflict (scope, scope_id, day) do update set credits = ${creditUsageDaily}.credits + excluded.credits
      )
      select credit_balance::text as balance from debited`),
  );
  const balanceAfter = written ? Number(written.balance) : balance - charged;

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

  // Alerts go to the project's billing address, else the workspace's, else the owner's.
  const workspaceEmail = limited.find((entry) => entry.scope === 'workspace')?.billingEmail ?? null;
  const budgetAlert: BudgetAlertScope[] = [];
  for (const [scope, used] of usedBefore) {
    if (scope.budgetAlert === null || used + charged < scope.budgetAlert) continue;
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
          creditsUsed: used + charged,
          periodStart: period.start,
          billingEmail: scope.billingEmail ?? (scope.scope === 'project' ? workspaceEmail : null) ?? (await ownerEmail(tx, account.id)),
          createdAt: charge.now,
        })
        .onConflictDoNothing();
    }
  }
  // The header lists the workspace before the project.
  budgetAlert.sort((a, b) => (a === b ? 0 : a === 'workspace' ? -1 : 1));
  countCredits('charged', charged);
  return { ledgerId, charged, balanceAfter, budgetAlert };
}

async function ownerEmail(tx: Executor, accountId: string): Promise<string | null> {
  const [user] = await tx.select({ email: users.email }).from(users).where(eq(users.accountId, accountId)).orderBy(users.createdAt).limit(1);
  return user?.email ?? null;
}

/** The ledger id of the refund of a charge: one per charge, so refunding twice is refused by the key. */
const refundIdOf = (chargeLedgerId: string) => `${chargeLedgerId}_refund`;

/**
 * Gives back a charge (a job that failed for good, DECISIONS.md: credits are refunded on failure): a
 * `refund` ledger entry reversing it, in the same workspace, project and key so usage nets it out.
 * Idempotent per charge: a second call refunds nothing and returns 0. Returns the credits refunded.
 */
export async function refundCredits(tx: Transaction, refund: { chargeLedgerId: string; description: string; now: Date }): Promise<number> {
  const [charge] = await tx.select().from(creditLedger).where(eq(creditLedger.id, refund.chargeLedgerId));
  if (charge?.kind !== 'charge') throw new Error(`no charge ${refund.chargeLedgerId} to refund`);
  // The account row lock orders concurrent refunds of one charge; the second one sees the first's row.
  await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, charge.accountId)).for('update');
  const [done] = await tx
    .select({ id: creditLedger.id })
    .from(creditLedger)
    .where(eq(creditLedger.id, refundIdOf(charge.id)));
  if (done || charge.amount === 0) return 0;
  await grantCreditsIn(tx, {
    ledgerId: refundIdOf(charge.id),
    accountId: charge.accountId,
    workspaceId: charge.workspaceId,
    projectId: charge.projectId,
    apiKeyId: charge.apiKeyId,
    requestId: charge.requestId,
    operationId: charge.operationId,
    kind: 'refund',
    amount: -charge.amount,
    description: refund.description,
    now: refund.now,
  });
  countCredits('refunded', -charge.amount);
  return -charge.amount;
}
