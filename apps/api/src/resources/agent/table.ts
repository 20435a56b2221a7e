import type { AgentMessageSource } from '@persona-api/types';
import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { timestampMs } from '../../db/schema/columns.js';
import { users } from '../../db/schema/tenancy.js';
import { projects } from '../projects/table.js';
import { workspaces } from '../workspaces/table.js';

/**
 * Research-agent threads (DECISIONS.md, Research agent). The counters (`message_count`, `credits_used`,
 * `last_message_at`) are written in the transactions that add messages and charge answers, so a list
 * reads them without counting. `title_pending`: no title was given, so one is generated from the first
 * message (a title set by create or rename is never replaced).
 */
export const agentThreads = pgTable(
  'agent_threads',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    // A deleted project leaves its threads in the workspace.
    projectId: text('project_id').references(() => projects.id, { onDelete: 'set null' }),
    createdByUserId: text('created_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    // A base (`persona_…`) or custom (`cp_…`) persona; a deleted custom persona leaves the thread neutral.
    personaId: text('persona_id'),
    title: text('title').notNull(),
    titlePending: boolean('title_pending').notNull().default(false),
    messageCount: integer('message_count').notNull().default(0),
    creditsUsed: integer('credits_used').notNull().default(0),
    lastMessageAt: timestampMs('last_message_at'),
    createdAt: timestampMs('created_at').notNull(),
    updatedAt: timestampMs('updated_at').notNull(),
  },
  (t) => [
    index('agent_threads_workspace_idx').on(t.workspaceId, t.createdAt, t.id),
    index('agent_threads_project_page_idx').on(t.projectId, t.createdAt, t.id).concurrently(),
    // GET /agent/threads?project_id= per workspace of the caller (pageAcrossWorkspaces).
    index('agent_threads_workspace_project_idx').on(t.workspaceId, t.projectId, t.createdAt, t.id).concurrently(),
  ],
);

/**
 * A thread's messages, user and assistant. An assistant message is written `in_progress` before the
 * research starts; at most one per thread can be (the partial unique index), which is the 409 rule.
 */
export const agentMessages = pgTable(
  'agent_messages',
  {
    id: text('id').primaryKey(),
    threadId: text('thread_id')
      .notNull()
      .references(() => agentThreads.id, { onDelete: 'cascade' }),
    role: text('role', { enum: ['user', 'assistant'] }).notNull(),
    content: text('content').notNull(),
    status: text('status', { enum: ['in_progress', 'completed', 'failed'] }).notNull(),
    sources: jsonb('sources').$type<AgentMessageSource[]>().notNull().default([]),
    inputTokens: integer('input_tokens').notNull().default(0),
    outputTokens: integer('output_tokens').notNull().default(0),
    creditsUsed: integer('credits_used').notNull().default(0),
    // Why a failed answer failed (never sent on the wire; the message's status says it).
    error: text('error'),
    createdAt: timestampMs('created_at').notNull(),
    updatedAt: timestampMs('updated_at').notNull(),
  },
  (t) => [
    index('agent_messages_thread_idx').on(t.threadId, t.createdAt, t.id),
    uniqueIndex('agent_messages_one_answer_idx').on(t.threadId).where(sql`${t.status} = 'in_progress'`),
  ],
);
