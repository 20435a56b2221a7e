import type { components } from '@persona-api/types';
import { unix } from '../../lib/wire.js';
import type { ConversationRow } from './repository.js';

/** The wire form of a conversation (OpenAI's `Conversation`). */
export const toConversation = (row: ConversationRow): components['schemas']['Conversation'] => ({
  id: row.id,
  object: 'conversation',
  created_at: unix(row.createdAt),
  metadata: row.metadata,
});
