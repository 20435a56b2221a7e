import { and, asc, desc, eq, gt, lt, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { errors } from '../../http/errors.js';
import { itemCharacters } from '../../ai/responses/request.js';
import { inputItemOf, ITEM_PREFIX, kindOf, listedItem, type GivenItem, type ListedItem } from '../../ai/responses/items.js';
import { newId } from '../../lib/ids.js';
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
 * Appends `given` to the conversation, in order, each under a new id: the sequence numbers come from the
 * conversation's row (locked by the update until the transaction ends), so concurrent adds keep one order.
 * Run inside a transaction.
 */
export async function appendItems(tx: Executor, accountId: string, id: string, given: readonly GivenItem[], now: Date): Promise<ListedItem[]> {
  const [bumped] = await tx
    .update(conversations)
    .set({ itemSeq: sql`${conversations.itemSeq} + ${given.length}` })
    .where(ofAccount(accountId, id))
    .returning({ itemSeq: conversations.itemSeq });
  if (!bumped) throw errors.notFound('conversation', id);
  const first = bumped.itemSeq - given.length + 1;
  const items = given.map((entry) => listedItem(entry, newId(ITEM_PREFIX[kindOf(entry)])));
  if (items.length > 0) {
    await tx
      .insert(conversationItems)
      .values(
        items.map((item, index) => ({ conversationId: id, seq: first + index, id: item.id, item, chars: itemCharacters(inputItemOf(item)), createdAt: now })),
      );
  }
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
