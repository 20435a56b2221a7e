import { AsyncLocalStorage } from 'node:async_hooks';
import { hash } from 'node:crypto';
import { and, asc, desc, eq, gt, is, lt, or, Placeholder, sql, type AnyColumn, type SQL, type Subquery } from 'drizzle-orm';
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
  return hash('sha256', `${cursorOwner.getStore() ?? ''}\n${list}\n${stableStringify(filters)}`, 'base64url').slice(0, 16);
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

/** The placeholders of the cursor's sort key and id in a page after the first. */
const AFTER_SORT_KEY = 'page_after_sort_key';
const AFTER_ID = 'page_after_id';

/**
 * The condition for the rows after the cursor's (sortKey, id), as placeholders its values fill, and the
 * order: newest first, or oldest first with `order: 'asc'`. (sort_key, id) < (cursor.sort_key, cursor.id)
 * is written out so it can use the composite index on both drivers; it still works when the cursor's item
 * has since been deleted.
 */
function keysetOf(columns: KeysetColumns, order: 'asc' | 'desc', afterCursor: boolean): { after: SQL | undefined; orderBy: SQL[] } {
  const beyond = order === 'asc' ? gt : lt;
  const direction = order === 'asc' ? asc : desc;
  const sortKey = sql.placeholder(AFTER_SORT_KEY);
  const id = sql.placeholder(AFTER_ID);
  return {
    after: afterCursor ? or(beyond(columns.sortKey, sortKey), and(eq(columns.sortKey, sortKey), beyond(columns.id, id))) : undefined,
    orderBy: [direction(columns.sortKey), direction(columns.id)],
  };
}

/**
 * The rows a page fetches, written into the statement's text rather than sent as a parameter. With
 * `limit $n` PostgreSQL's generic plan assumes a tenth of the rows; once a table has grown that plan costs
 * more than the custom ones, so every call is planned anew (pg_prepared_statements on GET /meetings' statement
 * at 100k meetings: 0 generic plans in 10 executions, against 5 with the number in the text) and a list's
 * time grows with the table. Typed as the number drizzle's limit() takes; it is SQL, rendered as the number.
 */
function rowsToFetch(rows: number): number {
  if (!Number.isSafeInteger(rows) || rows < 1 || rows > MAX_ROWS_TO_FETCH) throw new RangeError(`rows to fetch: ${rows}`);
  return sql.raw(String(rows)) as unknown as number;
}

/** The contract's largest page (100) and the one extra row. */
const MAX_ROWS_TO_FETCH = 101;

export interface Page<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/** Builds the list envelope from the rows fetched (the page and one more); `next_cursor` is null exactly when `has_more` is false. */
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
  return filledDefault(query.limit, 'limit');
}

/** A query parameter whose default the contract gives: the validator has filled it in, so it is never missing. */
export function filledDefault<Value>(value: Value | undefined, name: string): Value {
  if (value === undefined) throw new Error(`${name} is missing: the contract validator fills in its default`);
  return value;
}

/** The part of a keyset query a list's own query builder applies: `.where(page.where).orderBy(...page.orderBy).limit(page.fetch)`. */
export interface PageQuery {
  where: SQL | undefined;
  orderBy: SQL[];
  /** The rows to fetch (the page and one more), in the statement's text (rowsToFetch). */
  fetch: number;
  /** For a list across workspaces: what its select reads instead of its table (pageSource in db/scoped.ts). */
  source?: Subquery | undefined;
}

/**
 * How a list's statement is kept: built once per shape and then only run (drizzle `.prepare()`). Building
 * a select with its joins and keyset cost 58 µs of CPU per call after the entity check fix, more than the
 * rest of a list page's work. Every value of `filters`, `rows` and `acrossWorkspaces` is written
 * `sql.placeholder(name)` and given here; building a statement that holds any other value is an error,
 * so one caller's values can never be kept for the next.
 */
export interface PreparedList {
  /** The database handle the statements run on (they are kept per handle). */
  db: object;
  /** Names the list's statements; with the values given (defined ones), the cursor's presence and the page size it names the shape. */
  name: string;
  /** Every placeholder's value; an undefined one is a filter not asked for. */
  values: Record<string, string | number | boolean | undefined>;
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
   * For a list over all of the caller's workspaces (no workspace filter): the first rows of each
   * workspace's own keyset page (`pageAcrossWorkspaces` in db/scoped.ts), given to `rows` as `page.source`
   * for its select to read instead of the table (`pageSource`), so the query costs workspaces × page
   * instead of every row of those workspaces.
   */
  acrossWorkspaces?: ((page: PageQuery) => Subquery) | undefined;
  /** The select with the page's where, order and size, unexecuted (a drizzle query, prepared once per shape). */
  rows(page: PageQuery): PromiseLike<Row[]>;
  /** The statement's name and its placeholders' values (see PreparedList). */
  prepared: PreparedList;
  keyOf(row: Row): { sortKey: Date; id: string };
  toItem(row: Row): Item;
}

/**
 * One list operation in one call: newest first, keyset paging from the cursor, the spec's default
 * limit, the filters, the list envelope.
 *
 *     listPage(query, { list: 'projects', keyset: { sortKey: projects.createdAt, id: projects.id },
 *       prepared: { db, name: 'projects', values: { search: query.search ? containsPattern(query.search) : undefined } },
 *       filters: [query.search ? ilike(projects.name, sql.placeholder('search')) : undefined],
 *       rows: (page) => db.select()...where(page.where).orderBy(...page.orderBy).limit(page.fetch),
 *       keyOf: (row) => ({ sortKey: row.createdAt, id: row.id }), toItem: toProject })
 */
export async function listPage<Row, Item>(query: ListQuery, spec: ListSpec<Row, Item>): Promise<Page<Item>> {
  const request: PageRequest = { list: spec.list, limit: limitOf(query), cursor: query.cursor, scope: cursorScope(spec.list, query) };
  return toPage(request, await preparedRows(request, spec), spec.keyOf, spec.toItem);
}

interface PreparedStatement<Row> {
  params: unknown[];
  execute(values: Record<string, unknown>): Promise<Row[]>;
}

const preparedStatements = new WeakMap<object, Map<string, PreparedStatement<unknown>>>();

async function preparedRows<Row, Item>(request: PageRequest, spec: ListSpec<Row, Item>): Promise<Row[]> {
  const { prepared } = spec;
  const after = request.cursor === undefined ? undefined : decodeCursor(request.list, request.cursor, request.scope);
  const values: Record<string, unknown> = {};
  // Absent as the lists' filters take it (`query.x ? filter : undefined`): undefined or empty.
  for (const [name, value] of Object.entries(prepared.values)) if (value !== undefined && value !== '') values[name] = value;
  if (after) {
    // As drizzle writes a timestamp parameter (the placeholder has no column to encode it).
    values[AFTER_SORT_KEY] = after.sortKey.toISOString();
    values[AFTER_ID] = after.id;
  }
  const names = Object.keys(values).sort();
  const shape = `${prepared.name}|${names.join(',')}|${request.limit}`;
  let statements = preparedStatements.get(prepared.db);
  if (!statements) preparedStatements.set(prepared.db, (statements = new Map()));
  let statement = statements.get(shape) as PreparedStatement<Row> | undefined;
  if (!statement) {
    statement = prepareList(spec, names, request.limit + 1);
    statements.set(shape, statement as PreparedStatement<unknown>);
  }
  return statement.execute(values);
}

/**
 * Builds and prepares the list's statement for the placeholders `names` (the cursor's among them when it
 * pages on). It must hold no value but placeholders, or that value would be sent with every later caller's
 * page; and use exactly `names`, which name its shape, or a later call with the same names would run a
 * statement built for other filters.
 */
function prepareList<Row, Item>(spec: ListSpec<Row, Item>, names: string[], fetch: number): PreparedStatement<Row> {
  const { name } = spec.prepared;
  const { after, orderBy } = keysetOf(spec.keyset, spec.order ?? 'desc', names.includes(AFTER_ID));
  // One extra row tells whether another page exists.
  const page: PageQuery = { where: and(...(spec.filters ?? []), after), orderBy, fetch: rowsToFetch(fetch) };
  const query = spec.rows(spec.acrossWorkspaces ? { ...page, source: spec.acrossWorkspaces(page) } : page) as unknown as {
    prepare?: (name: string) => PreparedStatement<Row>;
  };
  if (typeof query.prepare !== 'function') throw new Error(`list ${name}: rows() must return an unexecuted drizzle query`);
  const statement = query.prepare(`list_${name}`);
  const used = statement.params.map(placeholderName);
  const held = used.filter((placeholder) => placeholder === undefined).length;
  if (held > 0) throw new Error(`list ${name}: its statement holds values (${held}); write them as sql.placeholder()`);
  const distinct = [...new Set(used)].sort();
  if (distinct.join(',') !== names.join(',')) throw new Error(`list ${name}: its statement uses [${distinct.join(', ')}] but was given [${names.join(', ')}]`);
  return statement;
}

/** The placeholder a statement parameter stands for (drizzle wraps one bound to a column in a Param). */
function placeholderName(param: unknown): string | undefined {
  const placeholder = is(param, Placeholder) ? param : (param as { value?: unknown } | null)?.value;
  return is(placeholder, Placeholder) ? placeholder.name : undefined;
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
