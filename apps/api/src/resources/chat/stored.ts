import type { components } from '@persona-api/types';
import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { rowsOf } from '../../db/sql.js';
import { errors } from '../../http/errors.js';
import { modelResponses } from '../responses/table.js';

type StoredChatCompletion = components['schemas']['StoredChatCompletion'];
type ChatCompletion = components['schemas']['ChatCompletion'];
type Metadata = Record<string, string>;

/**
 * The account's stored chat completions (DECISIONS.md, Legacy chat completions): completed ones only, the
 * predicate of the partial index model_responses_chat_idx, written as literals so that a prepared statement's
 * generic plan can still use the index. Every read below is a range of it or a primary-key probe.
 */
const storedOf = (accountId: string) =>
  sql`${modelResponses.accountId} = ${accountId} and ${modelResponses.object} = 'chat.completion' and ${modelResponses.status} = 'completed'`;

/** The account's stored chat completion with this id. */
const storedWithId = (accountId: string, id: string) => and(eq(modelResponses.id, id), storedOf(accountId));

/** Its metadata: as last updated, else the request's (completions stored before the column have only that). */
const metadataOf = sql<Metadata>`coalesce(${modelResponses.metadata}, nullif(${modelResponses.request} -> 'metadata', 'null'::jsonb), '{}'::jsonb)`;

const stored = (body: unknown, metadata: Metadata): StoredChatCompletion => ({ ...(body as ChatCompletion), metadata });

export async function findChatCompletion(db: Executor, accountId: string, id: string): Promise<StoredChatCompletion> {
  const [row] = await db.select({ body: modelResponses.body, metadata: metadataOf }).from(modelResponses).where(storedWithId(accountId, id)).limit(1);
  if (!row) throw errors.notFound('chat completion', id);
  return stored(row.body, row.metadata);
}

/** Replaces the metadata whole (null or {} clears it) and answers the completion as it now is. */
export async function updateChatCompletionMetadata(db: Executor, accountId: string, id: string, metadata: Metadata): Promise<StoredChatCompletion> {
  const [row] = await db.update(modelResponses).set({ metadata }).where(storedWithId(accountId, id)).returning({ body: modelResponses.body });
  if (!row) throw errors.notFound('chat completion', id);
  return stored(row.body, metadata);
}

/** Deletes it; the ledger rows of its charge stay. */
export async function deleteChatCompletionRow(db: Executor, accountId: string, id: string): Promise<void> {
  const deleted = await db.delete(modelResponses).where(storedWithId(accountId, id)).returning({ id: modelResponses.id });
  if (deleted.length === 0) throw errors.notFound('chat completion', id);
}

/** How many completions past the cursor a filtered page looks at, at most (DECISIONS.md). */
export const FILTER_WINDOW = 1_000;

export interface CompletionPage {
  /** The page's completions and one more when more follow, or, filtered, those of the window that matched. */
  items: StoredChatCompletion[];
  /** Whether the window was full: rows past it are unread (filtered pages only). */
  windowFull: boolean;
  /** The last completion looked at (a filtered page's next cursor when it holds fewer than asked). */
  lastLooked: string | null;
}

/**
 * Up to `count` completions after the completion `after` in `order`, matching `filter` (a `model` and
 * metadata pairs) among at most `window` completions past it: one statement over model_responses_chat_idx
 * (the cursor's position is read in it). Null when `after` is not a stored completion of the account.
 */
export async function readChatCompletions(
  db: Executor,
  accountId: string,
  {
    after,
    order,
    count,
    window,
    model,
    metadata,
  }: { after: string | undefined; order: 'asc' | 'desc'; count: number; window: number; model?: string; metadata?: Metadata },
): Promise<CompletionPage | null> {
  const direction = sql.raw(order);
  const reverse = sql.raw(order === 'asc' ? 'desc' : 'asc');
  const past = sql.raw(order === 'asc' ? '>' : '<');
  const filters: SQL[] = [];
  if (model !== undefined) filters.push(sql`r.body ->> 'model' = ${model}`);
  if (metadata !== undefined && Object.keys(metadata).length > 0) filters.push(sql`looked.metadata @> ${JSON.stringify(metadata)}::jsonb`);
  const matching = filters.length > 0 ? sql`where ${sql.join(filters, sql` and `)}` : sql``;
  const [row] = rowsOf<{ cursor_found: boolean; looked: number; last_looked: string | null; items: { body: unknown; metadata: Metadata }[] }>(
    await db.execute(sql`with cursor as (
        select created_at, id from ${modelResponses} where ${modelResponses.id} = ${after ?? null}::text and ${storedOf(accountId)}
      ), looked as (
        select id, created_at, ${metadataOf} as metadata from ${modelResponses}
        where ${storedOf(accountId)} ${after === undefined ? sql`` : sql`and (created_at, id) ${past} (select created_at, id from cursor)`}
        order by created_at ${direction}, id ${direction} limit ${window}
      ), page as (
        select looked.id, looked.created_at, looked.metadata, r.body from looked join ${modelResponses} r on r.id = looked.id
        ${matching} order by looked.created_at ${direction}, looked.id ${direction} limit ${count}
      )
      select exists (select 1 from cursor) as cursor_found, (select count(*) from looked)::int as looked,
        (select id from looked order by created_at ${reverse}, id ${reverse} limit 1) as last_looked,
        coalesce((select jsonb_agg(jsonb_build_object('body', body, 'metadata', metadata) order by created_at ${direction}, id ${direction}) from page),
          '[]'::jsonb) as items`),
  );
  if (!row || (after !== undefined && !row.cursor_found)) return null;
  return { items: row.items.map((item) => stored(item.body, item.metadata)), windowFull: row.looked >= window, lastLooked: row.last_looked };
}

/** The request message at `position` and the request's message count, for a page of messages. */
export interface StoredMessages {
  messages: { position: number; message: Record<string, unknown> }[];
  total: number;
}

/**
 * Up to `count` of the completion's request messages after position `after` in `order`, cut from the stored
 * request in the statement that reads it. A 404 when the account has no such stored completion.
 */
export async function readChatCompletionMessages(
  db: Executor,
  accountId: string,
  id: string,
  { after, order, count }: { after: number | undefined; order: 'asc' | 'desc'; count: number },
): Promise<StoredMessages> {
  const direction = sql.raw(order);
  const past = sql.raw(order === 'asc' ? '>' : '<');
  const [row] = rowsOf<StoredMessages>(
    await db.execute(sql`select jsonb_array_length(${modelResponses.request} -> 'messages') as total,
        coalesce((select jsonb_agg(jsonb_build_object('position', e.ord - 1, 'message', e.value) order by e.ord ${direction})
          from (select value, ord from jsonb_array_elements(${modelResponses.request} -> 'messages') with ordinality as m(value, ord)
            ${after === undefined ? sql`` : sql`where ord - 1 ${past} ${after}::int`} order by ord ${direction} limit ${count}) e), '[]'::jsonb) as messages
      from ${modelResponses} where ${modelResponses.id} = ${id} and ${storedOf(accountId)}`),
  );
  if (!row) throw errors.notFound('chat completion', id);
  return row;
}
