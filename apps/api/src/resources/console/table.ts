import { index, pgTable, text } from 'drizzle-orm/pg-core';
import { timestampMs } from '../../db/schema/columns.js';
import { accounts, users } from '../../db/schema/tenancy.js';

/** A member's console password (DECISIONS.md, Console): the scrypt hash with its parameters, never the password. */
export const consoleCredentials = pgTable('console_credentials', {
  userId: text('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  passwordHash: text('password_hash').notNull(),
  updatedAt: timestampMs('updated_at').notNull(),
});

/** Sign-in sessions; the cookie's token and the CSRF token are kept only as SHA-256 digests. */
export const consoleSessions = pgTable(
  'console_sessions',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull().unique(),
    csrfToken: text('csrf_token').notNull(),
    createdAt: timestampMs('created_at').notNull(),
    expiresAt: timestampMs('expires_at').notNull(),
    endedAt: timestampMs('ended_at'),
  },
  // The purge of sessions long expired (purge.ts) ranges over expires_at.
  (t) => [index('console_sessions_user_idx').on(t.userId), index('console_sessions_expires_idx').on(t.expiresAt).concurrently()],
);

/** One-time setup links the admin CLI prints: a token (stored hashed) that lets a member choose a password once. */
export const consoleSetupTokens = pgTable(
  'console_setup_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: timestampMs('created_at').notNull(),
    expiresAt: timestampMs('expires_at').notNull(),
    usedAt: timestampMs('used_at'),
  },
  (t) => [index('console_setup_tokens_expires_idx').on(t.expiresAt).concurrently()],
);
