import type { components } from '@persona-api/types';
import type { HandlerMap } from '../../contract/handler-types.js';
import { idPage, itemPage, notAnItem, pageStart } from '../../ai/responses/item-page.js';
import { filledDefault } from '../../lib/pagination.js';
import {
  deleteChatCompletionRow,
  FILTER_WINDOW,
  findChatCompletion,
  readChatCompletionMessages,
  readChatCompletions,
  updateChatCompletionMetadata,
} from './stored.js';

type StoredMessage = components['schemas']['ChatCompletionStoredMessage'];
type TextPart = components['schemas']['ChatCompletionContentPartText'];

/** A request message in OpenAI's stored-message shape (DECISIONS.md, Legacy chat completions). */
export function storedMessageOf(completionId: string, position: number, message: Record<string, unknown>): StoredMessage {
  const content = message.content;
  const parts = Array.isArray(content) ? (content as { type: string; text?: string }[]).filter((part): part is TextPart => part.type === 'text') : null;
  return {
    id: `${completionId}-${position}`,
    role: message.role as StoredMessage['role'],
    content: parts ? parts.map((part) => part.text).join('') : typeof content === 'string' ? content : null,
    name: typeof message.name === 'string' ? message.name : null,
    content_parts: parts ? parts.map((part) => ({ type: 'text', text: part.text })) : null,
    ...(Array.isArray(message.tool_calls) ? { tool_calls: message.tool_calls as StoredMessage['tool_calls'] } : {}),
    ...(typeof message.tool_call_id === 'string' ? { tool_call_id: message.tool_call_id } : {}),
  };
}

// OpenAI's stored chat completions (DECISIONS.md, Legacy chat completions).
export const storedChatHandlers: Pick<
  HandlerMap,
  'listChatCompletions' | 'getChatCompletion' | 'updateChatCompletion' | 'deleteChatCompletion' | 'listChatCompletionMessages'
> = {
  listChatCompletions: async ({ query = {} }, ctx) => {
    const { from, param } = pageStart(query);
    const limit = filledDefault(query.limit, 'limit');
    const filtered = query.model !== undefined || Object.keys(query.metadata ?? {}).length > 0;
    const page = await readChatCompletions(ctx.db, ctx.auth.accountId, {
      after: from,
      order: filledDefault(query.order, 'order'),
      count: limit + 1,
      // Unfiltered, the window is the page and one more; filtered, a bounded look past the cursor.
      window: filtered ? FILTER_WINDOW : limit + 1,
      model: query.model,
      metadata: query.metadata,
    });
    if (page === null) throw notAnItem(from!, param);
    const data = page.items.slice(0, limit);
    const more = page.items.length > limit;
    // Filtered, a full window may hide matches past it: go on from where the look stopped.
    return more ? idPage(data, true) : idPage(data, filtered && page.windowFull, filtered && page.windowFull ? page.lastLooked : null);
  },

  getChatCompletion: async ({ params }, ctx) => findChatCompletion(ctx.db, ctx.auth.accountId, params.id),

  updateChatCompletion: async ({ params, body }, ctx) => updateChatCompletionMetadata(ctx.db, ctx.auth.accountId, params.id, body.metadata ?? {}),

  deleteChatCompletion: async ({ params }, ctx) => {
    await deleteChatCompletionRow(ctx.db, ctx.auth.accountId, params.id);
    return { id: params.id, object: 'chat.completion.deleted', deleted: true };
  },

  listChatCompletionMessages: async ({ params, query = {} }, ctx) =>
    itemPage(query, async (from, order, count) => {
      // A message id is the completion's id, a hyphen and the position.
      const digits = from?.startsWith(`${params.id}-`) ? from.slice(params.id.length + 1) : undefined;
      const position = digits !== undefined && /^(0|[1-9][0-9]{0,5})$/.test(digits) ? Number(digits) : undefined;
      if (from !== undefined && position === undefined) return null;
      const read = await readChatCompletionMessages(ctx.db, ctx.auth.accountId, params.id, { after: position, order, count });
      if (position !== undefined && position >= read.total) return null;
      return read.messages.map(({ position, message }) => storedMessageOf(params.id, position, message));
    }),
};
