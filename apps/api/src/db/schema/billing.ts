import { bigint, bigserial, date, index, integer, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { timestampMs } from './columns.js';
import { projects } from '../../resources/projects/table.js';
import { workspaces } from '../../resources/workspaces/table.js';
import { accounts, apiKeys } from './tenancy.js';

/**
 * Every change to an account's credits: grants are positive, charges negative. `accounts.credit_balance`
 * is kept equal to the sum of this table by writing both in one transaction.
 */
export const creditLedger = pgTable(
  'credit_ledger',
  {
    id: text('id').primaryKey(),
    // Order of writing: entries of one request share a timestamp.
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    // Money history outlives the workspace or project it was spent in.
    workspaceId: text('workspace_id').references(() => workspaces.id, { onDelete: 'set null' }),
    projectId: text('project_id').references(() => projects.id, { onDelete: 'set null' }),
    apiKeyId: text('api_key_id').references(() => apiKeys.id, { onDelete: 'set null' }),
    kind: text('kind', { enum: ['grant', 'charge', 'refund', 'auto_recharge'] }).notNull(),
    amount: bigint('amount', { mode: 'number' }).notNull(),
    balanceAfter: bigint('balance_after', { mode: 'number' }).notNull(),
    operationId: text('operation_id'),
    requestId: text('request_id'),
    description: text('description').notNull(),
    createdAt: timestampMs('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('credit_ledger_seq_key').on(t.seq),
    index('credit_ledger_account_idx').on(t.accountId, t.createdAt),
    index('credit_ledger_workspace_idx').on(t.workspaceId, t.createdAt),
    index('credit_ledger_project_idx').on(t.projectId, t.createdAt),
    index('credit_ledger_key_idx').on(t.apiKeyId, t.createdAt),
  ],
);

/** Budget alerts raised: one per scope, threshold and billing period. */
export const budgetAlerts = pgTable(
  'budget_alerts',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    workspaceId: text('workspace_id').references(() => workspaces.id, { onDelete: 'cascade' }),
    projectId: text('project_id').references(() => projects.id, { onDelete: 'cascade' }),
    // 'workspace:ws_…' or 'project:proj_…': one unique key whichever scope raised it.
    scope: text('scope').notNull(),
    threshold: bigint('threshold', { mode: 'number' }).notNull(),
    creditsUsed: bigint('credits_used', { mode: 'number' }).notNull(),
    periodStart: timestampMs('period_start').notNull(),
    billingEmail: text('billing_email'),
    createdAt: timestampMs('created_at').notNull(),
  },
  (t) => [uniqueIndex('budget_alerts_once_key').on(t.scope, t.periodStart, t.threshold)],
);

/** Requests per API key and UTC day; GET /usage adds up the days of the billing period. */
export const apiUsageDaily = pgTable(
  'api_usage_daily',
  {
    apiKeyId: text('api_key_id')
      .notNull()
      .references(() => apiKeys.id, { onDelete: 'cascade' }),
    // The key's account, so GET /usage reads the account's rows of the period, not every key it ever had.
    accountId: text('account_id').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    requests: integer('requests').notNull().default(0),
    errors: integer('errors').notNull().default(0),
    latencyMsTotal: bigint('latency_ms_total', { mode: 'number' }).notNull().default(0),
    promptTokens: bigint('prompt_tokens', { mode: 'number' }).notNull().default(0),
    completionTokens: bigint('completion_tokens', { mode: 'number' }).notNull().default(0),
    lastRequestAt: timestampMs('last_request_at').notNull(),
  },
  // GET /usage's per-key figures: the account's rows of the period, built online (db/online-indexes.ts).
  (t) => [primaryKey({ columns: [t.apiKeyId, t.day] }), index('api_usage_daily_account_idx').on(t.accountId, t.day).concurrently()],
);

/** POST responses kept for 24 hours per API key and Idempotency-Key. */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    apiKeyId: text('api_key_id')
      .notNull()
      .references(() => apiKeys.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    requestHash: text('request_hash').notNull(),
    state: text('state', { enum: ['in_progress', 'completed'] }).notNull(),
    responseStatus: integer('response_status'),
    responseBody: text('response_body'),
    responseContentType: text('response_content_type'),
    createdAt: timestampMs('created_at').notNull(),
    /**
     * While in_progress: the request holding the key renews this while it runs; past it, the holder is
     * taken as dead (its process was killed) and a retry runs the request again. Null once completed.
     */
    lockedUntil: timestampMs('locked_until'),
  },
  (t) => [primaryKey({ columns: [t.apiKeyId, t.key] }), index('idempotency_keys_created_idx').on(t.createdAt)],
);

/**
 * Credits held for token-priced calls that are running (DECISIONS.md, Credits): the balance minus the
 * unexpired holds is what a new call may take. The hold is removed in the transaction that charges the
 * call, or when its request ends; one left by a crashed process stops counting at `expires_at`, and is
 * deleted a day later (purgeExpiredHolds).
 */
export const creditReservations = pgTable(
  'credit_reservations',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    credits: bigint('credits', { mode: 'number' }).notNull(),
    createdAt: timestampMs('created_at').notNull(),
    expiresAt: timestampMs('expires_at').notNull(),
  },
  (t) => [
    index('credit_reservations_account_idx').on(t.accountId, t.expiresAt),
    // The open holds across accounts (the metrics scrape), and the purge of holds long expired.
    index('credit_reservations_expires_idx').on(t.expiresAt).concurrently(),
  ],
);

/**
 * Running usage counters (DECISIONS.md, Usage counters): credits spent (charges net of refunds) per
 * scope and UTC day, written in the transaction that writes the ledger row, so a period's usage is a
 * read of at most 31 rows whatever the history. The ledger stays the truth: `pnpm admin usage reconcile`
 * compares both. Scopes: `account`, `account_keys` (the account's charges made with an API key),
 * `workspace`, `project`, `api_key`, and `account_feature` (`<account id>:<operationId>`, the console's
 * breakdown by feature). No foreign key: money history outlives a deleted workspace, and
 * its counters are then never read again.
 */
export const creditUsageDaily = pgTable(
  'credit_usage_daily',
  {
    scope: text('scope', { enum: ['account', 'account_keys', 'workspace', 'project', 'api_key', 'account_feature'] }).notNull(),
    scopeId: text('scope_id').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    credits: bigint('credits', { mode: 'number' }).notNull(),
    // The account the charges were made in, whatever the scope: the console's breakdown is a range over
    // the account's counters of the period (migration 0026), not a walk from every workspace, project and
    // key the account ever had.
    accountId: text('account_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.scopeId, t.day] }), index('credit_usage_daily_account_idx').on(t.accountId, t.scope, t.day).concurrently()],
);

/**
 * Transcription minutes used per account and UTC day (GET /usage, the minutes quota): ceil(recorded
 * seconds / 60) of a transcribed meeting, added when it reaches `done` (the day of its `completed_at`)
 * and taken back when it is deleted, so a period is a read of at most 31 rows. The meetings stay the
 * truth: `pnpm admin usage reconcile` recounts them.
 */
export const transcriptionUsageDaily = pgTable(
  'transcription_usage_daily',
  {
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
    minutes: bigint('minutes', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.day] })],
);
