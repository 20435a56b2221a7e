import { newId } from '../../lib/ids.js';
import type { IsolationSeed } from '../module.js';
import { modelResponses } from './table.js';

/** A stored response of A's, written directly so that A's credits stay untouched. */
export const seedStoredResponse: IsolationSeed = async ({ db, a, now }) => {
  const aResponse = newId('resp');
  const output = [
    {
      id: newId('msg'),
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'Our secret launch date.', annotations: [] }],
    },
  ];
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
    body: {
      id: aResponse,
      object: 'response',
      created_at: Math.floor(now.getTime() / 1000),
      status: 'completed',
      error: null,
      incomplete_details: null,
      model: 'service-1',
      persona_id: 'persona_saas_cfo',
      instructions: null,
      output,
      tools: [],
      tool_choice: 'auto',
      text: { format: { type: 'text' }, verbosity: 'medium' },
      reasoning: { effort: 'medium' },
      temperature: 1,
      max_output_tokens: null,
      previous_response_id: null,
      store: true,
      metadata: {},
      analysis_mode: false,
      artifact_mode: false,
      usage: {
        input_tokens: 5,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 5,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 10,
        credits_used: 0,
      },
    },
    inputTokens: 5,
    outputTokens: 5,
    creditsUsed: 0,
    turnChars: 49,
    createdAt: now,
  });
  return { aResponse, aResponseMessage: output[0]!.id };
};
