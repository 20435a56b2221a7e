import type { FocusGroupAnswer, FocusGroupSummary, PersonaReference } from '@persona-api/types';
import { index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { timestampMs } from '../../db/schema/columns.js';
import { accounts, users } from '../../db/schema/tenancy.js';
import { workspaces } from '../workspaces/table.js';

/**
 * Focus groups (DECISIONS.md, Focus groups). The row is written `in_progress` before any persona answers,
 * and `answers` holds one slot per persona in request order (null until that persona has answered), so a
 * read during the run shows the answers so far. `personas` keeps each persona's name and category as they
 * were: deleting a persona later leaves past groups readable.
 */
export const focusGroups = pgTable(
  'focus_groups',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    createdByUserId: text('created_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    question: text('question').notNull(),
    instructions: text('instructions'),
    personas: jsonb('personas').$type<PersonaReference[]>().notNull(),
    status: text('status', { enum: ['in_progress', 'completed', 'failed'] }).notNull(),
    answers: jsonb('answers').$type<(FocusGroupAnswer | null)[]>().notNull(),
    summary: jsonb('summary').$type<FocusGroupSummary>(),
    inputTokens: integer('input_tokens').notNull().default(0),
    outputTokens: integer('output_tokens').notNull().default(0),
    creditsUsed: integer('credits_used').notNull().default(0),
    createdAt: timestampMs('created_at').notNull(),
    updatedAt: timestampMs('updated_at').notNull(),
  },
  // The list's keyset order within a workspace.
  (t) => [index('focus_groups_workspace_idx').on(t.workspaceId, t.createdAt, t.id)],
);
