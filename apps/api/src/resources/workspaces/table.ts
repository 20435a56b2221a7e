import { bigint, index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { timestampMs } from '../../db/schema/columns.js';
import { accounts, users } from '../../db/schema/tenancy.js';

export const workspaces = pgTable(
  'workspaces',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    ownerUserId: text('owner_user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    type: text('type').notNull(),
    image: text('image'),
    budgetAlert: bigint('budget_alert', { mode: 'number' }),
    usageLimit: bigint('usage_limit', { mode: 'number' }),
    billingEmail: text('billing_email'),
    // Counters kept by the writes of members, projects and research-agent threads, in their transactions
    // (relative increments only; `pnpm admin usage reconcile` recounts them).
    memberCount: integer('member_count').notNull().default(0),
    projectCount: integer('project_count').notNull().default(0),
    agentThreadCount: integer('agent_thread_count').notNull().default(0),
    createdAt: timestampMs('created_at').notNull(),
    updatedAt: timestampMs('updated_at').notNull(),
  },
  (t) => [index('workspaces_account_idx').on(t.accountId)],
);

export const workspaceMembers = pgTable(
  'workspace_members',
  {
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role').notNull(),
    joinedAt: timestampMs('joined_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.workspaceId, t.userId] }),
    index('workspace_members_user_idx').on(t.userId),
    index('workspace_members_page_idx').on(t.workspaceId, t.joinedAt, t.userId),
  ],
);
