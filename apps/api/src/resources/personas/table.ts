import type { PersonaDetails } from '@persona-api/types';
import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { timestampMs } from '../../db/schema/columns.js';
import { accounts, users } from '../../db/schema/tenancy.js';
import { workspaces } from '../workspaces/table.js';

/**
 * Base personas (seeded from the engine's catalog on every start, no owner) and custom personas (a
 * workspace's, made by POST /personas) in one table, so a persona list pages through both with one
 * keyset query. The curated system prompts of base personas are never stored: they stay in the engine.
 */
export const personas = pgTable(
  'personas',
  {
    id: text('id').primaryKey(),
    isCustom: boolean('is_custom').notNull(),
    // Null for base personas; a custom persona belongs to one workspace of one account.
    accountId: text('account_id').references(() => accounts.id, { onDelete: 'cascade' }),
    workspaceId: text('workspace_id').references(() => workspaces.id, { onDelete: 'cascade' }),
    createdByUserId: text('created_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    name: text('name').notNull(),
    category: text('category').notNull(),
    description: text('description').notNull(),
    type: text('type', { enum: ['B2B', 'B2C'] }),
    pipelineType: text('pipeline_type', { enum: ['north_star', 'intermediate', 'advanced'] }).notNull(),
    details: jsonb('details').$type<PersonaDetails>().notNull(),
    aiGenerated: jsonb('ai_generated').$type<{ confidence: number; rationale: string }>(),
    creditsCharged: integer('credits_charged').notNull().default(0),
    createdAt: timestampMs('created_at').notNull(),
    updatedAt: timestampMs('updated_at').notNull(),
  },
  (t) => [
    index('personas_page_idx').on(t.createdAt, t.id),
    // The base personas' part of a list, without walking past custom personas.
    index('personas_base_page_idx').on(t.createdAt, t.id).where(sql`not ${t.isCustom}`).concurrently(),
    index('personas_workspace_idx').on(t.workspaceId, t.createdAt, t.id),
    check(
      'personas_owner_check',
      sql`(${t.isCustom} and ${t.workspaceId} is not null and ${t.accountId} is not null) or (not ${t.isCustom} and ${t.workspaceId} is null and ${t.accountId} is null)`,
    ),
  ],
);
