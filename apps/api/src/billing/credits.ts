import { countCredits } from '../observability/billing.js';
import { and, eq, gte, lt, sql, type Placeholder, type SQL } from 'drizzle-orm';
import type { Database, Executor, Transaction } from '../db/client.js';
import { accounts, creditLedger, creditReservations, creditUsageDaily, projects, workspaces } from '../db/schema/index.js';
import { COMMIT_WITHOUT_FLUSH, qualified, rowsOf } from '../db/sql.js';
import { LostReply } from '../http/dependency-faults.js';
import { apiError, type ApiError } from '../http/errors.js';
import { newId } from '../lib/ids.js';
import { requireRole } from '../workspaces/access.js';
import { rolesThatCan, type Action, type WorkspaceRole } from '../workspaces/roles.js';

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
 * `until` (exclusive), as a scalar subquery (text; may be below 0 before clamping): at most one counter
 * row per day, whatever the history. For a statement that reads it beside other figures (GET /usage).
 */
export const creditsUsedBetweenSql = (scope: UsageScope, scopeId: SQL | string, since: Date, until?: Date): SQL<string> =>
  sql<string>`(select coalesce(sum(${creditUsageDaily.credits}), 0) from ${creditUsageDaily} where ${and(
    eq(creditUsageDaily.scope, scope),
    eq(creditUsageDaily.scopeId, scopeId),
    gte(creditUsageDaily.day, usageDayOf(since)),
    until ? lt(creditUsageDaily.day, usageDayOf(until)) : undefined,
  )})::text`;

/**
 * Credits spent (charges net of refunds) in one scope from the UTC day of `since` up to the day of
 * `until` (exclusive); always >= 0. `since`/`until` are day boundaries (billing periods are whole
 * months). Reads at most one counter row per day, whatever the history.
 */
export async function creditsUsed(db: Executor, scope: UsageScope, scopeId: string, since: Date, until?: Date): Promise<number> {
  const [row] = rowsOf<{ used: string }>(await db.execute(sql`select ${creditsUsedBetweenSql(scope, scopeId, since, until)} as used`));
  return Math.max(0, Number(row?.used ?? 0));
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

/** The counter rows (one per scope, each naming the account) that a charge or refund adds to. */
function usageRows(entry: UsageEntry): { scope: UsageScope; scopeId: string; day: string; credits: number; accountId: string }[] {
  const day = usageDayOf(entry.at);
  const scopes: [UsageScope, string | null | undefined][] = [
    ['account', entry.accountId],
    ['account_keys', entry.apiKeyId ? entry.accountId : null],
    ['workspace', entry.workspaceId],
    ['project', entry.projectId],
    ['api_key', entry.apiKeyId],
    ['account_feature', featureScopeId(entry.accountId, entry.operationId)],
  ];
  return scopes.flatMap(([scope, scopeId]) => (scopeId ? [{ scope, scopeId, day, credits: entry.credits, accountId: entry.accountId }] : []));
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

type LimitedScope = 'account' | BudgetAlertScope;

function usageLimitExceeded(scope: LimitedScope, limit: number, used: number, amount: number): ApiError {
  const what = `The ${scope} usage limit of ${limit} credits for this billing period`;
  return apiError(
    'usage_limit_exceeded',
    used >= limit ? `${what} has been reached.` : `${what} would be exceeded: ${used} used, this request needs ${amount}.`,
  );
}

/**
 * creditsUsed as a column of a select, as text (migration 0013's credit_period_usage: at most 31 counter
 * rows). `since` may be a placeholder holding its day (usageDayOf) for a statement kept per shape; the
 * scope is one of four names, written into the text.
 */
export const creditsUsedSql = (scope: UsageScope, id: SQL, since: Date | Placeholder): SQL<string> =>
  sql<string>`credit_period_usage(${sql.raw(`'${scope}'`)}, ${id}, ${since instanceof Date ? usageDayOf(since) : since}::date)::text`;

/**
 * Whether the workspace `id` (an SQL expression for it) has reached its budget alert this period, as a
 * boolean column: false when it sets none, null when there is no such workspace. The Budget-Alert a
 * stream's headers carry, which go out before the charge (reserveCredits' `withBudgetAlert`,
 * budgetAlertBeforeStream).
 */
export const budgetAlertReachedSql = (id: SQL, since: Date): SQL<boolean | null> =>
  sql<boolean | null>`(select w.budget_alert is not null and credit_period_usage('workspace', w.id, ${usageDayOf(since)}::date) >= w.budget_alert
    from workspaces w where w.id = ${id})`;

/**
 * The check before a charged call does its work (402, nothing done): the balance covers `estimate`
 * and no usage limit of the account, workspace or project is reached (or, for a fixed price, passed).
 * One statement: the three rows and their period usage.
 */
export async function checkCredits(db: Executor, scope: ChargeScope & { estimate: number; pricing?: Pricing; now: Date }): Promise<void> {
  const since = billingPeriod(scope.now).start;
  const limitColumns = (table: typeof workspaces | typeof projects, kind: UsageScope) => ({
    id: table.id,
    budgetAlert: table.budgetAlert,
    usageLimit: table.usageLimit,
    billingEmail: table.billingEmail,
    used: creditsUsedSql(kind, qualified(table.id), since),
  });
  const [row] = await db
    .select({
      account: accounts,
      accountUsed: creditsUsedSql('account', qualified(accounts.id), since),
      workspace: limitColumns(workspaces, 'workspace'),
      project: limitColumns(projects, 'project'),
    })
    .from(accounts)
    .leftJoin(workspaces, scope.workspaceId ? eq(workspaces.id, scope.workspaceId) : sql`false`)
    .leftJoin(projects, scope.projectId ? eq(projects.id, scope.projectId) : sql`false`)
    .where(eq(accounts.id, scope.accountId));
  if (!row) throw new Error(`no account ${scope.accountId}`);
  const { account } = row;
  const limits: [LimitedScope, number | null, string | null | undefined][] = [
    ['account', account.usageLimit, row.accountUsed],
    ['workspace', row.workspace?.id ? row.workspace.usageLimit : null, row.workspace?.used],
    ['project', row.project?.id ? row.project.usageLimit : null, row.project?.used],
  ];
  for (const [entry, limit, usedText] of limits) {
    if (limit === null) continue;
    const used = Number(usedText ?? 0);
    const refused = scope.pricing === 'fixed' ? used + scope.estimate > limit : used >= limit;
    if (refused) throw usageLimitExceeded(entry, limit, used, scope.estimate);
  }
  const rechargeable = account.autoRechargeEnabled && account.autoRechargeCredits > 0;
  if (account.creditBalance < scope.estimate && !rechargeable) {
    throw apiError('insufficient_credits', `This request needs ${scope.estimate} credits but the account has ${account.creditBalance} left.`);
  }
}

/** How long a hold counts if its call never settles (a crashed process): longer than any model call runs. */
export const RESERVATION_TTL_MS = 15 * 60 * 1000;

/** A refusal of the hold or charge functions (migration 0013) as the error envelope the caller answers. */
interface Refusal {
  result: string;
  refused_scope: string | null;
  refused_limit: string | number | null;
  refused_used: string | number | null;
  available: string | number | null;
}

function refusalOf(row: Refusal, amount: number): ApiError {
  if (row.result === 'usage_limit_exceeded') {
    return usageLimitExceeded(row.refused_scope as LimitedScope, Number(row.refused_limit), Number(row.refused_used), amount);
  }
  if (row.result === 'insufficient_credits') {
    return apiError('insufficient_credits', `This request needs ${amount} credits but the account has ${Number(row.available)} available.`);
  }
  throw new Error(`unexpected result ${row.result} of a credit function`);
}

export interface Reservation {
  id: string;
  credits: number;
  /** The workspace the hold was taken in: the one named, or the caller's default (`defaultWorkspaceOf`). */
  workspaceId: string | null;
  /** With `withBudgetAlert`: whether that workspace's budget alert was reached before this call. */
  budgetAlertReached: boolean;
}

/**
 * The hold's scope is the caller's default workspace (DECISIONS.md: the oldest workspace they own, else
 * the account alone), resolved in the hold's own statement; their role there must allow `action`.
 */
export interface DefaultWorkspaceOf {
  userId: string;
  action: Action;
  /** What the 403 says they cannot do. */
  doing: string;
}

/**
 * The check before a token-priced call runs, as a hold (DECISIONS.md, Credits): the usage limits as in
 * checkCredits, then the balance not held by other running calls must cover `floor` (the input's cost
 * and extras: 402 insufficient_credits, nothing done), and `estimate` (the floor plus an output
 * allowance) — or as much of it as is free — is held until the call is charged. Holds are taken one at a
 * time per account (the account row is locked), so concurrent calls cannot all pass on the same credits.
 * One statement (hold_credits, migration 0013), always its own transaction (`db` is never one).
 *
 * That transaction commits without waiting for its WAL flush (`synchronous_commit = off`, set for it
 * alone): a hold is a reservation, not money. It is visible to every other call as soon as it commits;
 * a database crash can lose at most the last holds, whose calls lose their connection and are never
 * charged or answered; and the charge that takes it commits synchronously, flushing the WAL up to and
 * including the hold's commit. One flush less per paid call.
 */
export async function reserveCredits(
  db: Database,
  scope: ChargeScope & {
    floor: number;
    estimate: number;
    now: Date;
    reservationId: string;
    defaultWorkspaceOf?: DefaultWorkspaceOf;
    /**
     * Also read whether the hold's workspace has reached its budget alert (a stream's Budget-Alert header,
     * which goes out before the charge), in the same statement instead of a round trip of its own.
     */
    withBudgetAlert?: boolean;
  },
): Promise<Reservation> {
  const of = scope.defaultWorkspaceOf;
  const period = billingPeriod(scope.now).start;
  // The hold writes no usage, so the alert read beside it sees what the charges before this call left.
  const budgetAlert = scope.withBudgetAlert ? sql`, ${budgetAlertReachedSql(sql`hold.workspace`, period)} as budget_alert_reached` : sql``;
  const [row] = rowsOf<Refusal & { workspace: string | null; member_role: string | null; held: string | number | null; budget_alert_reached?: boolean | null }>(
    await db.execute(sql`select hold.*${budgetAlert} from hold_credits(${scope.reservationId}, ${scope.accountId}, ${of ? null : (scope.workspaceId ?? null)}::text,
      ${scope.projectId ?? null}::text, ${of?.userId ?? null}::text, ${JSON.stringify(of ? rolesThatCan(of.action) : [])}::jsonb,
      ${scope.floor}::bigint, ${scope.estimate}::bigint, ${scope.now.toISOString()}::timestamptz,
      ${new Date(scope.now.getTime() + RESERVATION_TTL_MS).toISOString()}::timestamptz, ${usageDayOf(period)}::date) as hold,
      ${COMMIT_WITHOUT_FLUSH}`),
  );
  if (!row) throw new LostReply('the credit hold');
  if (row.result === 'permission_denied' && of) requireRole(row.member_role as WorkspaceRole, of.action, of.doing);
  if (row.result !== 'ok') throw refusalOf(row, scope.floor);
  return { id: scope.reservationId, credits: Number(row.held), workspaceId: row.workspace, budgetAlertReached: row.budget_alert_reached === true };
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
  return { id: hold.id, credits: hold.credits, release: () => releaseReservation(db, hold.id) };
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

/** A charge as one SQL function call (chargeCall), and how to read the row it returns. */
export interface ChargeCall {
  /** `charge_credits(…)`: a set-returning call, for `select * from` or a CTE. */
  call: SQL;
  /** The result of the row `call` returned; throws the 402 of a refusal. */
  read(row: Record<string, unknown> | undefined): ChargeResult;
}

/**
 * The charge as one statement (charge_credits, migration 0013), for a caller that writes the effect paid
 * for in the same statement (settleModelCall: a CTE that also stores the response). Refuses (402, nothing
 * written) when a usage limit is reached, or passed by a fixed price, or when the balance is short even
 * after an auto-recharge. Ids are made here, so the function writes nothing the caller did not name.
 */
export function chargeCall(charge: ChargeRequest): ChargeCall {
  if (!Number.isSafeInteger(charge.amount) || charge.amount < 0) throw new RangeError('a charge is a whole number of credits');
  const period = billingPeriod(charge.now);
  const ids = {
    ledger: newId('txn'),
    recharge: newId('txn'),
    recharge_after: newId('txn'),
    alert_account: newId('alert'),
    alert_workspace: newId('alert'),
    alert_project: newId('alert'),
  };
  // The counters the charge adds to (usageRows: one definition with refunds); the function adds the credits charged.
  const counters = usageRows({ ...charge, credits: 0, at: charge.now }).map(({ scope, scopeId, day }) => ({ scope, scope_id: scopeId, day }));
  const call = sql`charge_credits(${charge.accountId}, ${charge.workspaceId ?? null}::text, ${charge.projectId ?? null}::text, ${charge.apiKeyId ?? null}::text,
    ${charge.amount}::bigint, ${charge.reservationId ?? null}::text, ${(charge.pricing ?? 'fixed') === 'fixed'}::boolean, ${charge.description},
    ${charge.operationId ?? null}::text, ${charge.requestId ?? null}::text, ${charge.now.toISOString()}::timestamptz, ${usageDayOf(period.start)}::date,
    ${period.start.toISOString()}::timestamptz, ${JSON.stringify(counters)}::jsonb, ${JSON.stringify(ids)}::jsonb)`;
  const read = (found: Record<string, unknown> | undefined): ChargeResult => {
    if (!found) throw new LostReply('the charge');
    const row = found as unknown as Refusal & { ledger: string | null; charged: string | number; balance: string | number; alerts: string | null };
    if (row.result !== 'ok') throw refusalOf(row, charge.amount);
    const charged = Number(row.charged);
    if (charged > 0) countCredits('charged', charged);
    return {
      ledgerId: row.ledger,
      charged,
      balanceAfter: Number(row.balance),
      budgetAlert: row.alerts ? (row.alerts.split(', ') as BudgetAlertScope[]) : [],
    };
  };
  return { call, read };
}

/**
 * Charges credits inside the transaction that stores the effect being paid for, so either both
 * happen or neither does (chargeCall; one statement).
 */
export async function chargeCredits(tx: Executor, charge: ChargeRequest): Promise<ChargeResult> {
  const { call, read } = chargeCall(charge);
  return read(rowsOf<Record<string, unknown>>(await tx.execute(sql`select * from ${call}`))[0]);
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
