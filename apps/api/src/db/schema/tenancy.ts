import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { timestampMs } from './columns.js';

/** Subscription tiers (a seeded catalog): the rate limit and what a billing period includes. */
export const tiers = pgTable('tiers', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  requestsPerMinute: integer('requests_per_minute').notNull(),
  includedCredits: bigint('included_credits', { mode: 'number' }).notNull(),
  storageBytesIncluded: bigint('storage_bytes_included', { mode: 'number' }).notNull(),
  transcriptionMinutesIncluded: integer('transcription_minutes_included').notNull(),
});

/** The tenant: owns API keys, workspaces and the credit balance. */
export const accounts = pgTable('accounts', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  tierId: text('tier_id')
    .notNull()
    .references(() => tiers.id),
  // Cached sum of the ledger, updated in the same transaction as every ledger row.
  creditBalance: bigint('credit_balance', { mode: 'number' }).notNull().default(0),
  autoRechargeEnabled: boolean('auto_recharge_enabled').notNull().default(false),
  autoRechargeThreshold: bigint('auto_recharge_threshold', { mode: 'number' }).notNull().default(0),
  autoRechargeCredits: bigint('auto_recharge_credits', { mode: 'number' }).notNull().default(0),
  // Account-wide thresholds of a billing period (workspaces and projects have their own).
  budgetAlert: bigint('budget_alert', { mode: 'number' }),
  usageLimit: bigint('usage_limit', { mode: 'number' }),
  // Bytes of the files in the account's workspaces (GET /usage, the storage quota), kept by every write
  // of a file row after taking this row's lock; `pnpm admin usage reconcile` recounts it.
  storedBytes: bigint('stored_bytes', { mode: 'number' }).notNull().default(0),
  createdAt: timestampMs('created_at').notNull(),
});

/** A person; `accountId` is null for someone invited to a workspace who has no account yet. */
export const users = pgTable(
  'users',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull(),
    accountId: text('account_id').references(() => accounts.id, { onDelete: 'cascade' }),
    createdAt: timestampMs('created_at').notNull(),
  },
  (t) => [uniqueIndex('users_email_key').on(sql`lower(${t.email})`), index('users_account_idx').on(t.accountId)],
);

export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    // SHA-256 of the whole key, hex; the key itself is never stored.
    keyHash: text('key_hash').notNull(),
    // The key's first 13 characters (`svc_live_` and 4 more), enough for a person to recognise it.
    keyPrefix: text('key_prefix').notNull(),
    createdAt: timestampMs('created_at').notNull(),
    revokedAt: timestampMs('revoked_at'),
    // A console browser key (DECISIONS.md, Console): the session it belongs to and when it stops working.
    consoleSessionId: text('console_session_id'),
    expiresAt: timestampMs('expires_at'),
  },
  (t) => [
    uniqueIndex('api_keys_key_hash_key').on(t.keyHash),
    index('api_keys_account_idx').on(t.accountId),
    // Every console page load makes a browser key and revokes the one before (DECISIONS.md, Console), so an
    // account's keys grow with its console use. The keys people made, active and revoked, for the console's
    // list; and a session's unrevoked browser key, for its revocation. Both built online (db/online-indexes.ts).
    index('api_keys_people_idx').on(t.accountId, t.revokedAt, t.id).where(sql`${t.consoleSessionId} is null`).concurrently(),
    index('api_keys_unrevoked_browser_idx').on(t.consoleSessionId).where(sql`${t.consoleSessionId} is not null and ${t.revokedAt} is null`).concurrently(),
  ],
);
