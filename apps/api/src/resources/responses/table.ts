import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { timestampMs } from '../../db/schema/columns.js';
import { accounts, apiKeys } from '../../db/schema/tenancy.js';
import { workspaces } from '../workspaces/table.js';

/**
 * Every model answer the service produced: `/responses` (`resp_…`) and legacy `/chat/completions`
 * (`chatcmpl_…`). `body` is the object as the caller received it (the final one of a stream), `request`
 * the request body. Read back by GET /responses/{id} (a `/responses` one), continued by
 * `previous_response_id`, quoted by `item_reference`; kept for support, usage audits and the credit
 * ledger's request ids until DELETE /responses/{id}. Status `cancelled`: the client left mid-stream and
 * was charged for what it had been sent.
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
    // Null for a video-analysis chat answered without a persona (DECISIONS.md, Video analyses).
    personaId: text('persona_id'),
    status: text('status', { enum: ['completed', 'failed', 'cancelled'] }).notNull(),
    stream: boolean('stream').notNull(),
    engine: text('engine').notNull(),
    upstreamModel: text('upstream_model'),
    request: jsonb('request').$type<Record<string, unknown>>().notNull(),
    body: jsonb('body').$type<Record<string, unknown>>().notNull(),
    inputTokens: integer('input_tokens').notNull(),
    outputTokens: integer('output_tokens').notNull(),
    creditsUsed: integer('credits_used').notNull(),
    // Characters of this turn's text as `previous_response_id` counts them (its own input, item
    // references resolved, plus its output): a chain is restored by summing these, not by reading text.
    // Null for chat completions and for responses stored before the column (then measured from the JSON).
    turnChars: integer('turn_chars'),
    // The conversation (`conversation`) the response read and was appended to, and the sequence numbers of
    // the first and last of its items it was given (null when it had none): its input_items. No foreign
    // key: a conversation may be deleted, its responses stay.
    conversationId: text('conversation_id'),
    conversationSeqFrom: bigint('conversation_seq_from', { mode: 'number' }),
    conversationSeqTo: bigint('conversation_seq_to', { mode: 'number' }),
    // A chat completion's metadata as POST /chat/completions/{id} last set it; null: the request's.
    metadata: jsonb('metadata').$type<Record<string, string>>(),
    createdAt: timestampMs('created_at').notNull(),
  },
  (t) => [
    index('model_responses_account_idx').on(t.accountId, t.createdAt),
    index('model_responses_workspace_idx').on(t.workspaceId, t.createdAt),
    // The retention job's oldest-first batches (RESPONSE_RETENTION_DAYS); built online (`.concurrently()`, db/online-indexes.ts).
    index('model_responses_created_idx').on(t.createdAt).concurrently(),
    // The account's stored chat completions, a page at a time (GET /chat/completions); built online.
    index('model_responses_chat_idx')
      .on(t.accountId, t.createdAt, t.id)
      .where(sql`${t.object} = 'chat.completion' and ${t.status} = 'completed'`)
      .concurrently(),
    // item_reference lookups by output item id (msg_…, fc_…); built online (`.concurrently()`, db/online-indexes.ts). Without
    // GIN's pending list: the settlement whose insert filled it (4 MB) would merge it, ~176 ms (0021).
    index('model_responses_output_items_idx')
      .using('gin', sql`jsonb_path_query_array((${t.body} -> 'output'), '$[*].id')`)
      .with({ fastupdate: 'off' })
      .concurrently(),
  ],
);
