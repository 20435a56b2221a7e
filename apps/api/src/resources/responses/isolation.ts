import { messageItem, responseObject, responseUsage } from '../../ai/responses/output.js';
import { defaultResponseSettings } from '../../ai/responses/request.js';
import { newId } from '../../lib/ids.js';
import type { IsolationSeed } from '../module.js';
import { modelResponses } from './table.js';

/** A stored response of A's, written directly so that A's credits stay untouched. */
export const seedStoredResponse: IsolationSeed = async ({ db, a, now }) => {
  const aResponse = newId('resp');
  const output = [messageItem('Our secret launch date.', 'completed')];
  await db.insert(modelResponses).values({
    id: aResponse,
    object: 'response',
    accountId: a.accountId,
    workspaceId: a.workspaceId,
    personaId: 'persona_saas_cfo',
    status: 'completed',
    stream: false,
    engine: 'offline',
    request: { model: 'service-1', input: 'When is our secret launch?' },
    body: responseObject(
      aResponse,
      Math.floor(now.getTime() / 1000),
      defaultResponseSettings('persona_saas_cfo'),
      {
        status: 'completed',
        output,
        usage: responseUsage({ input_tokens: 5, output_tokens: 5, cached_tokens: 0, reasoning_tokens: 0, source: 'tokenizer' }, 0),
      },
      { jsonSchema: false, analysis: false },
    ) as unknown as Record<string, unknown>,
    inputTokens: 5,
    outputTokens: 5,
    creditsUsed: 0,
    turnChars: 49,
    createdAt: now,
  });
  return { aResponse, aResponseMessage: output[0]!.id };
};
