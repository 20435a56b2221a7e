import { isRecord } from './errors.js';
import type { ApiResult, CursorPage } from './types.js';

/** Fetches one list response given the cursor of the previous page (undefined for the first). */
export type PageFetcher<Body> = (cursor: string | undefined) => Promise<ApiResult<Body>>;

function isCursorPage(value: unknown): value is CursorPage {
  return isRecord(value) && Array.isArray(value.data) && typeof value.has_more === 'boolean';
}

/** The page in a list response: the body itself, or the one property that is a page (a folder's `files`). */
function pageIn(body: unknown): CursorPage | undefined {
  if (isCursorPage(body)) return body;
  return isRecord(body) ? Object.values(body).find(isCursorPage) : undefined;
}

/**
 * Every item of a list operation, fetched page by page on demand: each page's `next_cursor` is sent as
 * `cursor` until a page says `has_more: false`. Iterate items with `for await`, or responses with `pages()`.
 */
export class Paginator<Item, Body> implements AsyncIterable<Item> {
  readonly #fetchPage: PageFetcher<Body>;

  constructor(fetchPage: PageFetcher<Body>) {
    this.#fetchPage = fetchPage;
  }

  /** Each list response with its Response and request id, in order. */
  async *pages(): AsyncGenerator<ApiResult<Body>, void, undefined> {
    let cursor: string | undefined;
    for (;;) {
      const result = await this.#fetchPage(cursor);
      yield result;
      const page = pageIn(result.data);
      if (!page?.has_more || !page.next_cursor) return;
      cursor = page.next_cursor;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const result of this.pages()) yield* (pageIn(result.data)?.data ?? []) as Item[];
  }

  /** Collects the items into an array, stopping after `limit` items when given. */
  async toArray(limit = Number.POSITIVE_INFINITY): Promise<Item[]> {
    const items: Item[] = [];
    if (limit <= 0) return items;
    for await (const item of this) {
      items.push(item);
      if (items.length >= limit) break;
    }
    return items;
  }
}
