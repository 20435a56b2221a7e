import { and, asc, desc, eq, gt, gte, lt, lte, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { rowsOf } from '../../db/sql.js';
import { errors } from '../../http/errors.js';
import { itemCharacters } from '../../ai/responses/request.js';
import { inputItemOf, type GivenItem, type ListedItem, withNewIds } from '../../ai/responses/items.js';
import { conversationItems, conversations } from './table.js';

export type ConversationRow = typeof conversations.$inferSelect;

const ofAccount = (accountId: string, id: string) => and(eq(conversations.id, id), eq(conversations.accountId, accountId));

/** The account's conversation, or the 404 (another account's is unknown). */
export async function findConversation(db: Executor, accountId: string, id: string): Promise<ConversationRow> {
  const [row] = await db.select().from(conversations).where(ofAccount(accountId, id)).limit(1);
  if (!row) throw errors.notFound('conversation', id);
  return row;
}

export async function insertConversation(db: Executor, row: typeof conversations.$inferInsert): Promise<ConversationRow> {
  const [created] = await db.insert(conversations).values(row).returning();
  return created!;
}

export async function updateMetadata(db: Executor, accountId: string, id: string, metadata: Record<string, string>): Promise<ConversationRow> {
  const [row] = await db.update(conversations).set({ metadata }).where(ofAccount(accountId, id)).returning();
  if (!row) throw errors.notFound('conversation', id);
  return row;
}

export async function deleteConversationRow(db: Executor, accountId: string, id: string): Promise<void> {
  const deleted = await db.delete(conversations).where(ofAccount(accountId, id)).returning({ id: conversations.id });
  if (deleted.length === 0) throw errors.notFound('conversation', id);
}

/**
 * Appends `given` to the account's conversation, in order, each under a new id: one statement
 * (appendItemsSql), which takes their sequence numbers from the conversation's row, so concurrent adds
 * keep one order. A 404 when there is no such conversation.
 */
export async function appendItems(db: Executor, accountId: string, id: string, given: readonly GivenItem[], now: Date): Promise<ListedItem[]> {
  const items = withNewIds(given);
  const [row] = rowsOf<{ found: boolean }>(
    await db.execute(sql`with ${appendItemsSql(accountId, id, items, now, sql`true`)} select exists (select 1 from bumped) as found`),
  );
  if (!row?.found) throw errors.notFound('conversation', id);
  return items;
}

/** The item with this id in the conversation (a unique-index read). */
export async function findItem(db: Executor, conversationId: string, itemId: string): Promise<ListedItem> {
  const [row] = await db
    .select({ item: conversationItems.item })
    .from(conversationItems)
    .where(and(eq(conversationItems.conversationId, conversationId), eq(conversationItems.id, itemId)))
    .limit(1);
  if (!row) throw errors.notFound('conversation item', itemId, 'item_id');
  return row.item;
}

export async function deleteItem(db: Executor, conversationId: string, itemId: string): Promise<void> {
  const deleted = await db
    .delete(conversationItems)
    .where(and(eq(conversationItems.conversationId, conversationId), eq(conversationItems.id, itemId)))
    .returning({ seq: conversationItems.seq });
  if (deleted.length === 0) throw errors.notFound('conversation item', itemId, 'item_id');
}

/**
 * Up to `count` items after the item `from` (by id) in `order`: a range of the primary key. Null when
 * `from` is not an item of the conversation.
 */
export async function readItems(
  db: Executor,
  conversationId: string,
  { order, from, count }: { order: 'asc' | 'desc'; from: string | undefined; count: number },
): Promise<ListedItem[] | null> {
  let after: number | undefined;
  if (from !== undefined) {
    const [cursor] = await db
      .select({ seq: conversationItems.seq })
      .from(conversationItems)
      .where(and(eq(conversationItems.conversationId, conversationId), eq(conversationItems.id, from)))
      .limit(1);
    if (!cursor) return null;
    after = cursor.seq;
  }
  const rows = await db
    .select({ item: conversationItems.item })
    .from(conversationItems)
    .where(
      and(
        eq(conversationItems.conversationId, conversationId),
        after === undefined ? undefined : order === 'asc' ? gt(conversationItems.seq, after) : lt(conversationItems.seq, after),
      ),
    )
    .orderBy(order === 'asc' ? asc(conversationItems.seq) : desc(conversationItems.seq))
    .limit(count);
  return rows.map((row) => row.item);
}

/** The latest items of a conversation a call may read, and whether older ones were left out. */
export interface RecentItems {
  items: { seq: number; item: ListedItem }[];
  /** Items older than the first kept were left out: over `budget` characters or `max` items. */
  dropped: boolean;
}

/**
 * The conversation's latest items within `budget` characters and `max` items, oldest first, in one
 * statement (DECISIONS.md, Conversations): the character counts of at most `max` items, newest first, are
 * summed over a range of the primary key, then only the kept items are read, and one more index probe
 * tells whether older items exist. Null when the account has no such conversation.
 */
export async function readRecentItems(
  db: Executor,
  accountId: string,
  id: string,
  { budget, max }: { budget: number; max: number },
): Promise<RecentItems | null> {
  const [row] = rowsOf<{ read: number; kept: number; older: boolean; items: { seq: number; item: ListedItem }[] }>(
    await db.execute(sql`with recent as (
        select seq, chars from ${conversationItems} where conversation_id = ${id} order by seq desc limit ${max}
      ), kept as (
        select seq from (select seq, sum(chars) over (order by seq desc) as total from recent) totals where total <= ${budget}
      )
      select (select count(*) from recent)::int as read, (select count(*) from kept)::int as kept,
        (select o.seq from ${conversationItems} o where o.conversation_id = c.id and o.seq < (select min(seq) from recent)
          order by o.seq desc limit 1) is not null as older,
        coalesce((select jsonb_agg(jsonb_build_object('seq', i.seq, 'item', i.item) order by i.seq) from ${conversationItems} i
          where i.conversation_id = c.id and i.seq >= (select min(seq) from kept)), '[]'::jsonb) as items
      from ${conversations} c where c.id = ${id} and c.account_id = ${accountId}`),
  );
  if (!row) return null;
  return { items: row.items, dropped: row.older || row.read > row.kept };
}

/**
 * A statement part (CTEs) appending `items` to the conversation when `when` holds, for the settlement of
 * the response that produced them (model-call.ts): its sequence numbers taken from the conversation's
 * row, as appendItems does. A conversation deleted meanwhile gets nothing.
 */
export function appendItemsSql(accountId: string, id: string, items: readonly ListedItem[], now: Date, when: SQL): SQL {
  const chars = items.map((item) => itemCharacters(inputItemOf(item)));
  return sql`bumped as (
      update ${conversations} set item_seq = item_seq + ${items.length}::bigint
      where id = ${id} and account_id = ${accountId} and ${when} returning item_seq
    ), appended as (
      insert into ${conversationItems} (conversation_id, seq, id, item, chars, created_at)
      select ${id}, bumped.item_seq - ${items.length}::bigint + e.ord, e.value ->> 'id', e.value, (${`{${chars.join(',')}}`}::int[])[e.ord], ${now.toISOString()}::timestamptz
      from bumped, jsonb_array_elements(${JSON.stringify(items)}::jsonb) with ordinality as e(value, ord)
    )`;
}

/** The account's conversation's items from sequence number `from` to `to`, oldest first: a range of the primary key. */
export async function readItemRange(db: Executor, accountId: string, id: string, from: number, to: number): Promise<ListedItem[]> {
  const rows = await db
    .select({ item: conversationItems.item })
    .from(conversationItems)
    .innerJoin(conversations, eq(conversations.id, conversationItems.conversationId))
    .where(
      and(eq(conversationItems.conversationId, id), eq(conversations.accountId, accountId), gte(conversationItems.seq, from), lte(conversationItems.seq, to)),
    )
    .orderBy(asc(conversationItems.seq));
  return rows.map((row) => row.item);
}
