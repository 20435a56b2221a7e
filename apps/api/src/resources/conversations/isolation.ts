import { newId } from '../../lib/ids.js';
import type { IsolationSeed } from '../module.js';
import { conversationItems, conversations } from './table.js';

/** A conversation of A's with one item, written directly. */
export const seedConversation: IsolationSeed = async ({ db, a, now }) => {
  const aConversation = newId('conv');
  const aConversationItem = newId('msg');
  await db.insert(conversations).values({ id: aConversation, accountId: a.accountId, metadata: { topic: 'secret' }, itemSeq: 1, createdAt: now });
  await db.insert(conversationItems).values({
    conversationId: aConversation,
    seq: 1,
    id: aConversationItem,
    item: { id: aConversationItem, type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_text', text: 'Our secret launch date.' }] },
    chars: 23,
    createdAt: now,
  });
  return { aConversation, aConversationItem };
};
