import type { SQL } from 'drizzle-orm';
import type { RequestContext } from '../../http/context.js';
import { apiError, errors } from '../../http/errors.js';
import { inputItemOf, type ListedItem, sentItems, withNewIds } from '../../ai/responses/items.js';
import { MAX_INPUT_CHARS, type ResolvedInputItem } from '../../ai/responses/request.js';
import { appendItemsSql, readRecentItems } from './repository.js';

/** The most items of a conversation one call reads (DECISIONS.md, Conversations). */
export const MAX_RESTORED_ITEMS = 1_000;

/** What a response read of its conversation: the sequence numbers of the first and last item given. */
export interface ConversationRead {
  id: string;
  from: number | null;
  to: number | null;
}

/**
 * The items of the account's conversation `id` that `POST /responses` puts before `input`, oldest first:
 * the latest within `budget` characters and MAX_RESTORED_ITEMS. Older ones that do not fit are a 400
 * `context_length_exceeded` unless `truncation` is `auto`, which leaves them out. Unknown, or another
 * account's: a 404 at `conversation`.
 */
export async function readConversationTurns(
  ctx: RequestContext,
  id: string,
  { budget, truncation }: { budget: number; truncation: 'auto' | 'disabled' },
): Promise<{ history: ResolvedInputItem[]; read: ConversationRead }> {
  const recent = await readRecentItems(ctx.db, ctx.auth.accountId, id, { budget, max: MAX_RESTORED_ITEMS });
  if (!recent) throw errors.notFound('conversation', id, 'conversation');
  if (recent.dropped && truncation !== 'auto') {
    throw apiError(
      'context_length_exceeded',
      `The items of conversation ${id} and input together exceed ${MAX_INPUT_CHARS} characters or ${MAX_RESTORED_ITEMS} items. Set truncation to "auto" to leave out its oldest items.`,
      'input',
    );
  }
  return {
    history: recent.items.map(({ item }) => inputItemOf(item)),
    read: { id, from: recent.items[0]?.seq ?? null, to: recent.items.at(-1)?.seq ?? null },
  };
}

/**
 * The statement part that appends a completed turn to its conversation in the settlement
 * (settleModelCall's `alsoWrite`): `input` under new ids, then the output items under their own.
 */
export function appendTurn(ctx: RequestContext, id: string, input: string | ResolvedInputItem[], output: readonly ListedItem[]): (when: SQL) => SQL {
  const items = [...withNewIds(sentItems(input)), ...output];
  return (when) => appendItemsSql(ctx.auth.accountId, id, items, ctx.now(), when);
}
