import { bigint, index, pgTable, text } from 'drizzle-orm/pg-core';
import { timestampMs } from '../../db/schema/columns.js';
import { workspaces } from '../workspaces/table.js';

export const projects = pgTable(
  'projects',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    goal: text('goal'),
    budgetAlert: bigint('budget_alert', { mode: 'number' }),
    usageLimit: bigint('usage_limit', { mode: 'number' }),
    billingEmail: text('billing_email'),
    createdAt: timestampMs('created_at').notNull(),
    updatedAt: timestampMs('updated_at').notNull(),
  },
  (t) => [index('projects_page_idx').on(t.workspaceId, t.createdAt, t.id)],
);
