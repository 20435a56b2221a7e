import type { components, operations } from '@persona-api/types';
import { apiError, errors } from '../../http/errors.js';
import { filledDefault } from '../../lib/pagination.js';

/** The paging parameters of an item list; a response's input items and a conversation's items take the same. */
export type ItemPageQuery = NonNullable<operations['listConversationItems']['parameters']['query']>;

/**
 * The item a page starts after: `cursor`, or OpenAI's `after` (both naming different items is a 400), and
 * the parameter it came in, for the error when it names no item of the list.
 */
export function pageStart(query: { after?: string; cursor?: string }): { from: string | undefined; param: 'after' | 'cursor' } {
  if (query.after !== undefined && query.cursor !== undefined && query.after !== query.cursor) {
    throw errors.parameterConflict('after', '`after` and `cursor` name different items; send one of them.');
  }
  return { from: query.after ?? query.cursor, param: query.after !== undefined ? 'after' : 'cursor' };
}

/** The 400 for a `cursor` or `after` that is not an item of the list. */
export const notAnItem = (from: string, param: 'after' | 'cursor') =>
  apiError('invalid_cursor', `${from} is not an item of this list; take next_cursor from the previous page.`, param);

/** A page of a list whose cursor is an item's id: the contract's envelope with its typed `data`. */
export type IdPage<T extends { id: string }> = components['schemas']['ItemListEnvelope'] & { data: T[] };

/** The page of `data`: `next_cursor` is its last item's id when more follow, unless `nextCursor` says where. */
export function idPage<T extends { id: string }>(
  data: T[],
  hasMore: boolean,
  nextCursor: string | null = hasMore ? (data.at(-1)?.id ?? null) : null,
): IdPage<T> {
  return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: hasMore, next_cursor: nextCursor };
}

/**
 * One page of a list whose cursor is an item's id, in OpenAI's item-list shape plus `next_cursor`
 * (DECISIONS.md, Responses): `cursor` and OpenAI's `after` both name the previous page's last item.
 * `read(from, order, count)` returns up to `count` items after `from` in `order` (the page and one more,
 * which tells whether more follow), or null when `from` is not an item of the list: a 400 invalid_cursor.
 * `order` and `limit` come with the contract's defaults filled in.
 */
export async function itemPage<T extends { id: string }>(
  query: ItemPageQuery,
  read: (from: string | undefined, order: 'asc' | 'desc', count: number) => Promise<T[] | null> | T[] | null,
): Promise<IdPage<T>> {
  const { from, param } = pageStart(query);
  const limit = filledDefault(query.limit, 'limit');
  const items = await read(from, filledDefault(query.order, 'order'), limit + 1);
  if (items === null) throw notAnItem(from!, param);
  return idPage(items.slice(0, limit), items.length > limit);
}
