import { newId } from '../../lib/ids.js';
import type { IsolationSeed } from '../module.js';
import { modelResponses } from '../responses/table.js';

/** A stored chat completion of A's, written directly so that A's credits stay untouched. */
export const seedStoredChatCompletion: IsolationSeed = async ({ db, a, now }) => {
  const aChatCompletion = newId('chatcmpl');
  await db.insert(modelResponses).values({
    id: aChatCompletion,
    object: 'chat.completion',
    accountId: a.accountId,
    workspaceId: a.workspaceId,
    personaId: 'persona_saas_cfo',
    status: 'completed',
    stream: false,
    engine: 'offline',
    request: { model: 'service-1', messages: [{ role: 'user', content: 'When is our secret launch?' }], metadata: { topic: 'secret' } },
    body: {
      id: aChatCompletion,
      object: 'chat.completion',
      created: Math.floor(now.getTime() / 1000),
      model: 'service-1',
      persona_id: 'persona_saas_cfo',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Our secret launch date.', refusal: null }, finish_reason: 'stop', logprobs: null }],
      usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10, credits_used: 0 },
    },
    inputTokens: 5,
    outputTokens: 5,
    creditsUsed: 0,
    metadata: { topic: 'secret' },
    createdAt: now,
  });
  return { aChatCompletion };
};
