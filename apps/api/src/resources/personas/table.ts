import type { PersonaDetails } from '@persona-api/types';
import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { timestampMs } from './columns.js';
import { accounts, apiKeys, users, workspaces } from './tenancy.js';

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
    index('personas_workspace_idx').on(t.workspaceId, t.createdAt, t.id),
    check('personas_owner_check', sql`(${t.isCustom} and ${t.workspaceId} is not null and ${t.accountId} is not null) or (not ${t.isCustom} and ${t.workspaceId} is null and ${t.accountId} is null)`),
  ],
);

/**
 * Every model answer the service produced: `/responses` (`resp_…`) and legacy `/chat/completions`
 * (`chatcmpl_…`). `body` is the object as the caller received it (the final one of a stream), `request`
 * the request body. Not readable through the API (the contract has no GET); kept for support, usage
 * audits and the credit ledger's request ids. Status `cancelled`: the client left mid-stream and was
 * charged for what it had been sent.
 */
export const modelResponses = pgTable(
  'model_responses',
  {
    id: text('id').primaryKey(),
    object: text('object', { enum: ['response', 'chat.completion'] }).notNull(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    workspaceId: text('workspace_id').references(() => workspaces.id, { onDelete: 'set null' }),
    apiKeyId: text('api_key_id').references(() => apiKeys.id, { onDelete: 'set null' }),
    requestId: text('request_id'),
    // No foreign key: a custom persona may be deleted, its responses stay.
    personaId: text('persona_id').notNull(),
    status: text('status', { enum: ['completed', 'failed', 'cancelled'] }).notNull(),
    stream: boolean('stream').notNull(),
    engine: text('engine').notNull(),
    upstreamModel: text('upstream_model'),
    request: jsonb('request').$type<Record<string, unknown>>().notNull(),
    body: jsonb('body').$type<Record<string, unknown>>().notNull(),
    inputTokens: integer('input_tokens').notNull(),
    outputTokens: integer('output_tokens').notNull(),
    creditsUsed: integer('credits_used').notNull(),
    createdAt: timestampMs('created_at').notNull(),
  },
  (t) => [index('model_responses_account_idx').on(t.accountId, t.createdAt), index('model_responses_workspace_idx').on(t.workspaceId, t.createdAt)],
);
