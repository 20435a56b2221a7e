import { creditsForTokens } from '@persona-api/engine';
import { describe, expect, it } from 'vitest';
import { balanceOf, storedResponsesOf } from '../../support/ai.js';
import { errorOf, useHarness, useTenant } from '../../support/harness.js';

// POST /responses/input_tokens (DECISIONS.md, Responses): the body of POST /responses read as the call
// reads it, counted without a model call, a hold, a charge or a stored row. On the offline engine the count
// is exactly the input tokens the call then charges.

const h = useHarness();
const t = useTenant(h, { credits: 100_000 });
const CFO = 'persona_saas_cfo';
const body = (extra: Record<string, unknown> = {}) => ({ model: 'service-1', persona_id: CFO, input: 'Would you pay $18 per seat?', ...extra });
const count = async (request: Record<string, unknown>, headers?: Record<string, string>) => {
  const counted = await h.post('/responses/input_tokens', t.key, request, headers);
  expect(counted.status).toBe(200);
  return counted.body as { object: string; input_tokens: number; credits: number };
};
const charged = async (request: Record<string, unknown>) => {
  const answered = await h.post('/responses', t.key, request);
  expect(answered.status).toBe(200);
  return answered.body;
};

describe('counting a response’s input tokens', () => {
  it('is what the same call is charged for as input: persona, instructions, tools, a restored chain and a conversation', async () => {
    const tool = {
      type: 'function',
      name: 'get_quote',
      description: 'A price quote.',
      parameters: { type: 'object', properties: { seats: { type: 'integer' } } },
    };
    const first = await charged(body({ input: 'Our renewal is on March 3 and we have 240 seats.' }));
    const { id: conversation } = (await h.post('/conversations', t.key, { items: [{ role: 'user', content: 'We run NetSuite for our books.' }] })).body;
    for (const request of [
      body(),
      body({ instructions: 'Answer in three bullet points, each under twenty words.' }),
      body({ tools: [tool] }),
      body({ input: 'When do we renew?', previous_response_id: first.id }),
      body({ input: 'Which ERP do we use?', conversation }),
      body({ persona_id: 'persona_restaurant_owner', input: [{ role: 'user', content: [{ type: 'input_text', text: 'A long question. '.repeat(200) }] }] }),
    ]) {
      const counted = await count(request);
      expect(counted.object).toBe('response.input_tokens');
      const answered = await charged(request);
      expect([counted.input_tokens, counted.credits]).toEqual([answered.usage.input_tokens, creditsForTokens(answered.usage.input_tokens)]);
    }
  });

  it('grows with what the input adds, takes the persona from the header, and costs, holds and stores nothing', async () => {
    const before = await balanceOf(h, t.accountId);
    const stored = (await storedResponsesOf(h, t.accountId)).length;
    const short = await count(body());
    const longer = await count(body({ instructions: 'Answer as the CFO would in a board meeting, with numbers.' }));
    expect(longer.input_tokens).toBeGreaterThan(short.input_tokens);
    const { persona_id: _persona, ...noPersona } = body();
    expect(await count(noPersona, { 'persona-id': CFO })).toEqual(short);
    expect(await balanceOf(h, t.accountId)).toBe(before);
    expect((await storedResponsesOf(h, t.accountId)).length).toBe(stored);
  });

  it('answers the call’s errors for the same body', async () => {
    const missing = await h.post('/responses/input_tokens', t.key, { model: 'service-1', input: 'Hi' });
    expect([missing.status, errorOf(missing).code, errorOf(missing).param]).toEqual([400, 'missing_parameter', 'persona_id']);
    const unknown = await h.post('/responses/input_tokens', t.key, body({ persona_id: 'persona_nobody' }));
    expect([unknown.status, errorOf(unknown).param]).toEqual([404, 'persona_id']);
    const chain = await h.post('/responses/input_tokens', t.key, body({ previous_response_id: 'resp_doesnotexist' }));
    expect([chain.status, errorOf(chain).code]).toEqual([400, 'previous_response_not_found']);
    const both = await h.post('/responses/input_tokens', t.key, body({ previous_response_id: 'resp_x1', conversation: 'conv_x1' }));
    expect([both.status, errorOf(both).code]).toEqual([400, 'parameter_conflict']);
    const tooLong = await h.post('/responses/input_tokens', t.key, body({ input: 'x'.repeat(100_001) }));
    expect(tooLong.status).toBe(400);
    const noKey = await h.post('/responses/input_tokens', undefined, body());
    expect(noKey.status).toBe(401);
  });
});
