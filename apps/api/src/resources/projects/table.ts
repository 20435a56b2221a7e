import { bigint, index, integer, pgTable, text } from 'drizzle-orm/pg-core';
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
    // Counters kept by the writes of the counted rows, in their transactions (relative increments only):
    // a project read costs the same whatever its history. `pnpm admin usage reconcile` recounts them.
    agentThreadCount: integer('agent_thread_count').notNull().default(0),
    generationCount: integer('generation_count').notNull().default(0),
    createdAt: timestampMs('created_at').notNull(),
    updatedAt: timestampMs('updated_at').notNull(),
  },
  (t) => [index('projects_page_idx').on(t.workspaceId, t.createdAt, t.id)],
);
