import type { components } from '@persona-api/types';
import { bigint, index, integer, jsonb, pgTable, primaryKey, text, unique } from 'drizzle-orm/pg-core';
import { timestampMs } from '../../db/schema/columns.js';
import { accounts } from '../../db/schema/tenancy.js';

/**
 * Conversations kept on the server (OpenAI's Conversations API; DECISIONS.md, Conversations). `itemSeq` is
 * the sequence number of its latest item: an add takes the next numbers from this row, in its transaction,
 * so concurrent adds keep one order.
 */
export const conversations = pgTable(
  'conversations',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    metadata: jsonb('metadata').$type<Record<string, string>>().notNull().default({}),
    itemSeq: bigint('item_seq', { mode: 'number' }).notNull().default(0),
    createdAt: timestampMs('created_at').notNull(),
  },
  // The account delete's cascade.
  (t) => [index('conversations_account_idx').on(t.accountId)],
);

/**
 * A conversation's items in the listed form (`ResponseItem`), in order of `seq`: a page is a range of the
 * primary key. `id` is the item's own id, unique in its conversation (the item paths and cursors name it);
 * `chars` the characters of its text, as the 100 000-character input limit counts them.
 */
export const conversationItems = pgTable(
  'conversation_items',
  {
    conversationId: text('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    seq: bigint('seq', { mode: 'number' }).notNull(),
    id: text('id').notNull(),
    item: jsonb('item').$type<components['schemas']['ResponseItem']>().notNull(),
    chars: integer('chars').notNull(),
    createdAt: timestampMs('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.conversationId, t.seq] }), unique('conversation_items_id_key').on(t.conversationId, t.id)],
);
