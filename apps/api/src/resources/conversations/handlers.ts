import type { HandlerMap } from '../../contract/handler-types.js';
import { givenItemsOfCaller } from '../../ai/responses/items.js';
import { itemPage } from '../../ai/responses/item-page.js';
import { newId } from '../../lib/ids.js';
import { toConversation } from './mappers.js';
import { appendItems, deleteConversationRow, deleteItem, findConversation, findItem, insertConversation, readItems, updateMetadata } from './repository.js';

// OpenAI's Conversations API (DECISIONS.md, Conversations): the account's conversations and their items.
export const conversationHandlers: Pick<
  HandlerMap,
  | 'createConversation'
  | 'getConversation'
  | 'updateConversation'
  | 'deleteConversation'
  | 'listConversationItems'
  | 'createConversationItems'
  | 'getConversationItem'
  | 'deleteConversationItem'
> = {
  createConversation: async ({ body }, ctx) => {
    // References are resolved before the transaction: they read other rows, and a bad one is a 400.
    const given = body.items ? await givenItemsOfCaller(ctx, body.items, 'items') : [];
    const now = ctx.now();
    const row = await ctx.db.transaction(async (tx) => {
      const created = await insertConversation(tx, { id: newId('conv'), accountId: ctx.auth.accountId, metadata: body.metadata ?? {}, createdAt: now });
      if (given.length > 0) await appendItems(tx, ctx.auth.accountId, created.id, given, now);
      return created;
    });
    return toConversation(row);
  },

  getConversation: async ({ params }, ctx) => toConversation(await findConversation(ctx.db, ctx.auth.accountId, params.id)),

  updateConversation: async ({ params, body }, ctx) => toConversation(await updateMetadata(ctx.db, ctx.auth.accountId, params.id, body.metadata ?? {})),

  deleteConversation: async ({ params }, ctx) => {
    await deleteConversationRow(ctx.db, ctx.auth.accountId, params.id);
    return { id: params.id, object: 'conversation.deleted', deleted: true };
  },

  listConversationItems: async ({ params, query }, ctx) => {
    const conversation = await findConversation(ctx.db, ctx.auth.accountId, params.id);
    return itemPage(query ?? {}, (from, order, count) => readItems(ctx.db, conversation.id, { order, from, count }));
  },

  createConversationItems: async ({ params, body }, ctx) => {
    const given = await givenItemsOfCaller(ctx, body.items, 'items');
    const items = await appendItems(ctx.db, ctx.auth.accountId, params.id, given, ctx.now());
    return { object: 'list', data: items, first_id: items[0]!.id, last_id: items.at(-1)!.id, has_more: false };
  },

  getConversationItem: async ({ params }, ctx) => {
    const conversation = await findConversation(ctx.db, ctx.auth.accountId, params.id);
    return findItem(ctx.db, conversation.id, params.item_id);
  },

  deleteConversationItem: async ({ params }, ctx) => {
    const conversation = await findConversation(ctx.db, ctx.auth.accountId, params.id);
    await deleteItem(ctx.db, conversation.id, params.item_id);
    return toConversation(conversation);
  },
};
