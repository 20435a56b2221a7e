import type { components, operations } from '@persona-api/types';
import { apiError, errors } from '../../http/errors.js';
import { filledDefault } from '../../lib/pagination.js';
import type { ListedItem } from './items.js';

/** The paging parameters of an item list; a response's input items and a conversation's items take the same. */
export type ItemPageQuery = NonNullable<operations['listConversationItems']['parameters']['query']>;

/**
 * One page of an item list in OpenAI's item-list shape plus `next_cursor` (DECISIONS.md, Responses):
 * `cursor` and OpenAI's `after` both name the previous page's last item. `read(from, order, count)` returns
 * up to `count` items after `from` in `order` (the page and one more, which tells whether more follow), or
 * null when `from` is not an item of the list: a 400 invalid_cursor. `order` and `limit` come with the
 * contract's defaults filled in.
 */
export async function itemPage(
  query: ItemPageQuery,
  read: (from: string | undefined, order: 'asc' | 'desc', count: number) => Promise<ListedItem[] | null> | ListedItem[] | null,
): Promise<components['schemas']['ResponseItemList']> {
  if (query.after !== undefined && query.cursor !== undefined && query.after !== query.cursor) {
    throw errors.parameterConflict('after', '`after` and `cursor` name different items; send one of them.');
  }
  const from = query.after ?? query.cursor;
  const limit = filledDefault(query.limit, 'limit');
  const items = await read(from, filledDefault(query.order, 'order'), limit + 1);
  if (items === null) {
    const param = query.after !== undefined ? 'after' : 'cursor';
    throw apiError('invalid_cursor', `${from} is not an item of this list; take next_cursor from the previous page.`, param);
  }
  const data = items.slice(0, limit);
  const hasMore = items.length > limit;
  return {
    object: 'list',
    data,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
    has_more: hasMore,
    next_cursor: hasMore ? data.at(-1)!.id : null,
  };
}
