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

type CreateRequest = components['schemas']['ResponseCreateRequest'];

/** What a stored response was given: its input as sent, the response it continued, the conversation items it read. */
export interface StoredInput {
  input: CreateRequest['input'];
  previousResponseId: string | null;
  conversation: { id: string; from: number; to: number } | null;
}

/** What a response of the account was given (a primary-key read). */
export async function findStoredInput(db: Executor, accountId: string, id: string): Promise<StoredInput> {
  const [row] = await db
    .select({
      request: modelResponses.request,
      conversationId: modelResponses.conversationId,
      from: modelResponses.conversationSeqFrom,
      to: modelResponses.conversationSeqTo,
    })
    .from(modelResponses)
    .where(ofAccount(accountId, id))
    .limit(1);
  if (!row) throw errors.notFound('response', id);
  const request = row.request as Pick<CreateRequest, 'input' | 'previous_response_id'>;
  return {
    input: request.input,
    previousResponseId: request.previous_response_id ?? null,
    conversation: row.conversationId && row.from !== null && row.to !== null ? { id: row.conversationId, from: row.from, to: row.to } : null,
  };
}
