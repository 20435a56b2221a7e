import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { errors } from '../../http/errors.js';
import type { components } from '@persona-api/types';
import type { ResponseObject } from '../../ai/responses/request.js';
import { modelResponses } from './table.js';

/** A `/responses` response of the account (chat completions are not responses): a primary-key read. */
const ofAccount = (accountId: string, id: string) =>
  and(eq(modelResponses.id, id), eq(modelResponses.accountId, accountId), eq(modelResponses.object, 'response'));

/**
 * The stored response as the caller received it (DECISIONS.md, Responses). A stream the client left is
 * stored as it stood then (`in_progress`); read back it is `cancelled`, OpenAI's status for it.
 */
export async function findStoredResponse(db: Executor, accountId: string, id: string): Promise<ResponseObject> {
  const [row] = await db.select({ status: modelResponses.status, body: modelResponses.body }).from(modelResponses).where(ofAccount(accountId, id)).limit(1);
  if (!row) throw errors.notFound('response', id);
  const body = row.body as unknown as ResponseObject;
  return row.status === 'cancelled' ? { ...body, status: 'cancelled' } : body;
}

/** Deletes the stored response; the ledger rows of its charge stay (they name it only in their description). */
export async function deleteStoredResponse(db: Executor, accountId: string, id: string): Promise<void> {
  const deleted = await db.delete(modelResponses).where(ofAccount(accountId, id)).returning({ id: modelResponses.id });
  if (deleted.length === 0) throw errors.notFound('response', id);
}

/** What a stored response's request said about its input: the input as sent and the response it continued. */
export interface StoredRequest {
  input: string | components['schemas']['ResponseInputItem'][];
  previous_response_id?: string | null;
}

/** The request body a response of the account was made with (a primary-key read). */
export async function findStoredRequest(db: Executor, accountId: string, id: string): Promise<StoredRequest> {
  const [row] = await db.select({ request: modelResponses.request }).from(modelResponses).where(ofAccount(accountId, id)).limit(1);
  if (!row) throw errors.notFound('response', id);
  return row.request as unknown as StoredRequest;
}
