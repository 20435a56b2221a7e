import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { and, asc, desc, eq, gt, lt, or, type AnyColumn, type SQL } from 'drizzle-orm';
import stableStringify from 'safe-stable-stringify';
import { errors } from '../http/errors.js';

/**
 * The account a request runs for, set around every handler (app/routes.ts), so that every list's
 * cursors are bound to it without each list passing it along: a cursor given to another account, or
 * to the same list with other filters, is a 400 invalid_cursor (DECISIONS.md), not a page of a
 * different list.
 */
const cursorOwner = new AsyncLocalStorage<string>();

/** Runs `work` (a handler) with the caller's account as the owner of the cursors it makes and reads. */
export function withCursorOwner<T>(accountId: string | null, work: () => T): T {
  return cursorOwner.run(accountId ?? '', work);
}

/** What a cursor is bound to: the account, the list and its filters (every query field but limit and cursor). */
function cursorScope(list: string, query: object): string {
  const { limit: _limit, cursor: _cursor, ...filters } = query as Record<string, unknown>;
  return createHash('sha256')
    .update(`${cursorOwner.getStore() ?? ''}\n${list}\n${stableStringify(filters)}`)
    .digest('base64url')
    .slice(0, 16);
}

/**
 * The one cursor helper every list uses (DECISIONS.md, Lists and pagination): newest first by a
 * timestamp with the id as unique tie-breaker, keyset queries (no OFFSET), and opaque url-safe
 * cursors holding the sort key and id of the last item returned, plus the name of the list so a
 * cursor from another list is refused.
 */
interface CursorPayload {
  /** List name. */
  l: string;
  /** Sort key: milliseconds since the epoch. */
  t: number;
  /** Tie-breaker id of the last item returned. */
  id: string;
  /** The scope it belongs to: a hash of the account, the list and its filters (cursorScope). */
  s?: string;
}

const ID_SHAPE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export function encodeCursor(list: string, sortKey: Date, id: string, scope?: string): string {
  const payload: CursorPayload = { l: list, t: sortKey.getTime(), id, ...(scope === undefined ? {} : { s: scope }) };
  return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

/** Decodes a cursor of `list`; anything else (garbled, tampered, another list's) is a 400 invalid_cursor. */
export function decodeCursor(list: string, cursor: string, scope?: string): { sortKey: Date; id: string } {
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw errors.invalidCursor();
  }
  const { l, t, id, s } = (payload ?? {}) as Partial<CursorPayload>;
  if (l !== list || s !== scope || typeof t !== 'number' || !Number.isSafeInteger(t) || t < 0 || typeof id !== 'string' || !ID_SHAPE.test(id)) {
    throw errors.invalidCursor();
  }
  return { sortKey: new Date(t), id };
}

export interface PageRequest {
  /** Names the list, e.g. `workspaces` or `workspace_members:ws_…`, so cursors cannot cross lists. */
  list: string;
  limit: number;
  cursor?: string | undefined;
  /** The account, list and filters the cursors are bound to (see cursorScope). */
  scope?: string;
}

export interface KeysetColumns {
  sortKey: AnyColumn;
  id: AnyColumn;
}

/**
 * The WHERE condition for the page after the cursor and the ORDER BY for newest first (or oldest first
 * with `order: 'asc'`). Apply with
 * `.where(and(filters, page.after)).orderBy(...page.orderBy).limit(page.fetch)`.
 */
export function keyset(
  request: PageRequest,
  columns: KeysetColumns,
  order: 'asc' | 'desc' = 'desc',
): { after: SQL | undefined; orderBy: SQL[]; fetch: number } {
  let after: SQL | undefined;
  if (request.cursor !== undefined) {
    const { sortKey, id } = decodeCursor(request.list, request.cursor, request.scope);
    // (sort_key, id) < (cursor.sort_key, cursor.id), written out so it can use the composite index on
    // both drivers; it still works when the cursor's item has since been deleted.
    const beyond = order === 'asc' ? gt : lt;
    after = or(beyond(columns.sortKey, sortKey), and(eq(columns.sortKey, sortKey), beyond(columns.id, id)));
  }
  const direction = order === 'asc' ? asc : desc;
  // One extra row tells whether another page exists.
  return { after, orderBy: [direction(columns.sortKey), direction(columns.id)], fetch: request.limit + 1 };
}

export interface Page<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/** Builds the list envelope from the rows fetched with `keyset(...).fetch`; `next_cursor` is null exactly when `has_more` is false. */
export function toPage<Row, Item>(
  request: PageRequest,
  rows: Row[],
  keyOf: (row: Row) => { sortKey: Date; id: string },
  toItem: (row: Row) => Item,
): Page<Item> {
  const hasMore = rows.length > request.limit;
  const pageRows = hasMore ? rows.slice(0, request.limit) : rows;
  const last = pageRows.at(-1);
  const lastKey = hasMore && last !== undefined ? keyOf(last) : undefined;
  return {
    object: 'list',
    data: pageRows.map(toItem),
    has_more: hasMore,
    next_cursor: lastKey ? encodeCursor(request.list, lastKey.sortKey, lastKey.id, request.scope) : null,
  };
}

/** A list operation's query as the contract validator hands it over (`limit` has the spec's default filled in). */
export interface ListQuery {
  limit?: number | undefined;
  cursor?: string | undefined;
}

/**
 * The page size a list operation was called with. Ajv's `useDefaults` fills in the default the spec
 * gives the operation's limit (50 for most lists, 20 for meetings), so the handler never repeats it.
 */
function limitOf(query: ListQuery): number {
  if (query.limit === undefined) throw new Error('limit is missing: the contract validator fills in its default');
  return query.limit;
}

/** The part of a keyset query a list's own query builder applies: `.where(page.where).orderBy(...page.orderBy).limit(page.fetch)`. */
export interface PageQuery {
  where: SQL | undefined;
  orderBy: SQL[];
  fetch: number;
}

export interface ListSpec<Row, Item> {
  /** Names the list for its cursors (see PageRequest.list). */
  list: string;
  /** The sort and tie-breaker columns of the keyset. */
  keyset: KeysetColumns;
  /** Newest first (default) or oldest first. */
  order?: 'asc' | 'desc';
  /** The list's filters; undefined entries (a filter not asked for) are skipped. */
  filters?: (SQL | undefined)[];
  /**
   * For a list over all of the caller's workspaces (no workspace filter): a condition that narrows the
   * page to the first rows of each workspace's own keyset page (`pageAcrossWorkspaces` in db/scoped.ts),
   * so the query costs workspaces × page instead of every row of those workspaces.
   */
  acrossWorkspaces?: ((page: PageQuery) => SQL) | undefined;
  /** Runs the select with the page's where, order and size. */
  rows(page: PageQuery): Promise<Row[]>;
  keyOf(row: Row): { sortKey: Date; id: string };
  toItem(row: Row): Item;
}

/**
 * One list operation in one call: newest first, keyset paging from the cursor, the spec's default
 * limit, the filters, the list envelope.
 *
 *     listPage(query, { list: 'projects', keyset: { sortKey: projects.createdAt, id: projects.id },
 *       filters: [search ? ilike(...) : undefined], rows: (page) => db.select()...where(page.where)...,
 *       keyOf: (row) => ({ sortKey: row.createdAt, id: row.id }), toItem: toProject })
 */
export async function listPage<Row, Item>(query: ListQuery, spec: ListSpec<Row, Item>): Promise<Page<Item>> {
  const request: PageRequest = { list: spec.list, limit: limitOf(query), cursor: query.cursor, scope: cursorScope(spec.list, query) };
  const { after, orderBy, fetch } = keyset(request, spec.keyset, spec.order);
  const page: PageQuery = { where: and(...(spec.filters ?? []), after), orderBy, fetch };
  const rows = await spec.rows(spec.acrossWorkspaces ? { ...page, where: and(page.where, spec.acrossWorkspaces(page)) } : page);
  return toPage(request, rows, spec.keyOf, spec.toItem);
}

/**
 * The same page over items held in memory (a catalog, the model list): same order, cursors and
 * envelope as a keyset query.
 */
export function pageOf<Item>(query: ListQuery, list: string, items: readonly Item[], keyOf: (item: Item) => { sortKey: Date; id: string }): Page<Item> {
  const request: PageRequest = { list, limit: limitOf(query), cursor: query.cursor, scope: cursorScope(list, query) };
  const after = query.cursor === undefined ? null : decodeCursor(list, query.cursor, request.scope);
  const newestFirst = [...items].sort((x, y) => {
    const a = keyOf(x);
    const b = keyOf(y);
    return b.sortKey.getTime() - a.sortKey.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
  });
  const rest = newestFirst.filter((item) => {
    if (!after) return true;
    const key = keyOf(item);
    return key.sortKey < after.sortKey || (key.sortKey.getTime() === after.sortKey.getTime() && key.id < after.id);
  });
  return toPage(request, rest.slice(0, request.limit + 1), keyOf, (item) => item);
}

/** ILIKE pattern for a case-insensitive substring match, with the user's % and _ taken literally. */
export function containsPattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
