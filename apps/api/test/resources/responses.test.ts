import { basePersonaSystemPrompt, creditsForTokens, parseArtifact } from '@persona-api/engine';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { creditReservations, personas, workspaceMembers } from '../../src/db/schema/index.js';
import { balanceOf, chargesOf, events, storedResponse, storedResponsesOf, typesOf } from '../support/ai.js';
import { errorOf, useHarness, useTenant } from '../support/harness.js';

// On the offline engine (the default without MODEL_BASE_URL): POST /responses with
// personas, instructions, tools, structured output, analysis and artifact modes, streaming, credits,
// 402 and idempotent replays. Every response and every streamed event is validated against the
// contract by the harness.

const h = useHarness();
const t = useTenant(h, { credits: 100_000 });

const CFO = 'persona_saas_cfo';
const base = (extra: Record<string, unknown> = {}) => ({
  model: 'service-1',
  persona_id: CFO,
  input: 'Would you pay $18 per seat for an AI forecasting add-on?',
  ...extra,
});
const outputText = (body: any): string =>
  body.output
    .filter((item: any) => item.type === 'message')
    .flatMap((item: any) => item.content.map((part: any) => part.text))
    .join('');

const quoteTool = {
  type: 'function',
  name: 'get_price_quote',
  description: 'Returns a price quote for a number of seats and a billing period.',
  parameters: {
    type: 'object',
    properties: { seats: { type: 'integer', minimum: 1, maximum: 100000 }, billing_period: { type: 'string', enum: ['monthly', 'annual'] } },
    required: ['seats', 'billing_period'],
    additionalProperties: false,
  },
};
const weatherTool = {
  type: 'function',
  name: 'get_weather',
  description: 'Current weather in a city.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

const ratingSchema = {
  type: 'object',
  properties: {
    score: { type: 'integer', minimum: 1, maximum: 10 },
    verdict: { type: 'string', maxLength: 200 },
    concerns: { type: 'array', items: { type: 'string' }, maxItems: 5 },
  },
  required: ['score', 'verdict', 'concerns'],
  additionalProperties: false,
};

describe('a text answer', () => {
  it('answers in the persona’s voice, echoes the settings with defaults, and charges its tokens', async () => {
    const before = await balanceOf(h, t.accountId);
    const res = await h.post('/responses', t.key, base({ instructions: 'Answer in two sentences.' }));
    expect(res.status).toBe(200);
    const body = res.body;
    expect(body).toMatchObject({
      object: 'response',
      status: 'completed',
      error: null,
      incomplete_details: null,
      model: 'service-1',
      persona_id: CFO,
      instructions: 'Answer in two sentences.',
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
    });
    expect(body.id).toMatch(/^resp_/);
    expect(body).not.toHaveProperty('parsed');
    expect(body).not.toHaveProperty('analysis');
    expect(body.output).toHaveLength(1);
    expect(body.output[0]).toMatchObject({ type: 'message', role: 'assistant', status: 'completed' });
    expect(outputText(body).length).toBeGreaterThan(20);
    // The curated system prompt shapes the answer but is never exposed.
    expect(res.text).not.toContain((basePersonaSystemPrompt(CFO) ?? '').slice(0, 60));

    const { usage } = body;
    expect(usage.total_tokens).toBe(usage.input_tokens + usage.output_tokens);
    expect(usage.input_tokens).toBeGreaterThan(200); // the persona's system prompt counts as input
    expect(usage.credits_used).toBe(creditsForTokens(usage.total_tokens));
    expect(await balanceOf(h, t.accountId)).toBe(before - usage.credits_used);

    const [charge] = (await chargesOf(h, t.accountId)).filter((row) => row.requestId === res.headers['x-request-id']);
    expect(charge).toMatchObject({ amount: -usage.credits_used, operationId: 'createResponse', workspaceId: t.workspaceId, apiKeyId: t.apiKeyId });
    const stored = await storedResponse(h, body.id);
    expect(stored).toMatchObject({
      object: 'response',
      status: 'completed',
      personaId: CFO,
      accountId: t.accountId,
      workspaceId: t.workspaceId,
      creditsUsed: usage.credits_used,
      engine: 'offline',
      stream: false,
    });
    expect(stored?.body).toEqual(body);
  });

  it('speaks differently as a different persona, and the same request gives the same answer', async () => {
    const cfo = await h.post('/responses', t.key, base());
    const again = await h.post('/responses', t.key, base());
    const parent = await h.post('/responses', t.key, base({ persona_id: 'persona_budget_parent_of_three' }));
    expect(outputText(again.body)).toBe(outputText(cfo.body));
    expect(outputText(parent.body)).not.toBe(outputText(cfo.body));
  });

  it('takes reasoning depth and response detail: low detail is shorter than high', async () => {
    const low = await h.post('/responses', t.key, base({ text: { verbosity: 'low' }, reasoning: { effort: 'low' } }));
    const high = await h.post('/responses', t.key, base({ text: { verbosity: 'high' }, reasoning: { effort: 'high' } }));
    expect(low.body.text.verbosity).toBe('low');
    expect(high.body.reasoning.effort).toBe('high');
    expect(outputText(high.body).length).toBeGreaterThan(outputText(low.body).length);
  });

  it('echoes store and metadata; previous_response_id restores the earlier turns, which the persona reads and counts as input', async () => {
    const first = await h.post(
      '/responses',
      t.key,
      base({ input: 'My accounting system is NetSuite and my team is 40 people.', store: true, metadata: { campaign: 'q3' }, temperature: 0.2 }),
    );
    expect(first.body).toMatchObject({ previous_response_id: null, store: true, metadata: { campaign: 'q3' }, temperature: 0.2 });
    const question = 'What is my accounting system?';
    const alone = await h.post('/responses', t.key, base({ input: question }));
    const chained = await h.post('/responses', t.key, base({ input: question, previous_response_id: first.body.id }));
    expect(chained.status).toBe(200);
    expect(chained.body.previous_response_id).toBe(first.body.id);
    expect(outputText(chained.body)).toBe('You said: “My accounting system is NetSuite and my team is 40 people.”');
    expect(outputText(alone.body)).not.toContain('NetSuite');
    // The restored turn (its input and the persona's answer) is part of what the call is charged for.
    expect(chained.body.usage.input_tokens).toBeGreaterThan(alone.body.usage.input_tokens + first.body.usage.output_tokens);
  });

  it('keeps nothing of a store: false response, streamed or not: no row, no read, no continuation or reference; its charge stays; an Idempotency-Key replay still answers', async () => {
    const tenant = await h.tenant({ credits: 10_000 });
    const ask = (extra: Record<string, unknown>, headers?: Record<string, string>) => h.post('/responses', tenant.key, base(extra), headers);
    const plain = await ask({ input: 'Our ERP is NetSuite.', store: false }, { 'idempotency-key': 'unkept-1' });
    expect([plain.status, plain.body.store, plain.body.status]).toEqual([200, false, 'completed']);
    const streamed = await ask({ input: 'And we have 40 seats.', store: false, stream: true });
    const finished = events(streamed.text).find((event) => event.event === 'response.completed')!.data.response;
    expect(await storedResponsesOf(h, tenant.accountId)).toEqual([]);
    const charges = await chargesOf(h, tenant.accountId);
    expect(charges.map((charge) => -charge.amount).sort()).toEqual([plain.body.usage.credits_used, finished.usage.credits_used].sort());

    for (const id of [plain.body.id, finished.id]) {
      expect((await h.get(`/responses/${id}`, tenant.key)).status).toBe(404);
      expect((await h.get(`/responses/${id}/input_items`, tenant.key)).status).toBe(404);
      const chained = await ask({ input: 'Go on.', previous_response_id: id });
      expect([chained.status, errorOf(chained).code]).toEqual([400, 'previous_response_not_found']);
    }
    const quoted = await ask({ input: [{ type: 'item_reference', id: plain.body.output[0].id }] });
    expect([quoted.status, errorOf(quoted).param]).toEqual([400, 'input.0.id']);
    const replayed = await ask({ input: 'Our ERP is NetSuite.', store: false }, { 'idempotency-key': 'unkept-1' });
    expect([replayed.headers['idempotent-replayed'], replayed.body]).toEqual(['true', plain.body]);

    const { id: conversation } = (await h.post('/conversations', tenant.key, {})).body;
    const conflict = await ask({ input: 'Hi.', store: false, conversation });
    expect([conflict.status, errorOf(conflict).code, errorOf(conflict).param]).toEqual([400, 'parameter_conflict', 'store']);
  });

  it('GET /responses/{id} returns a response as it was answered, streamed or not; another account’s is a 404', async () => {
    const plain = await h.post('/responses', t.key, base({ metadata: { run: 'read-back' } }));
    const read = await h.get(`/responses/${plain.body.id}`, t.key);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(plain.body);
    const streamed = await h.post('/responses', t.key, base({ stream: true }));
    const completed = events(streamed.text).find((event) => event.data.type === 'response.completed')!.data.response;
    expect((await h.get(`/responses/${completed.id}`, t.key)).body).toEqual(completed);
    const other = await h.tenant({ credits: 1_000 });
    const theirs = await h.get(`/responses/${plain.body.id}`, other.key);
    expect(theirs.status).toBe(404);
    expect(errorOf(theirs)).toEqual({ type: 'not_found', code: 'resource_not_found', param: 'id' });
  });

  it('DELETE /responses/{id} removes it from reads, chains and references; its charge stays, and a chain through it stops there', async () => {
    const first = await h.post('/responses', t.key, base({ input: 'My renewal date is March 3.' }));
    const second = await h.post('/responses', t.key, base({ input: 'My team has 40 people.', previous_response_id: first.body.id }));
    const third = await h.post('/responses', t.key, base({ input: 'Our accounting system is NetSuite.', previous_response_id: second.body.id }));
    const charges = (await chargesOf(h, t.accountId)).length;

    const deleted = await h.delete(`/responses/${second.body.id}`, t.key);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: second.body.id, object: 'response', deleted: true });
    expect(await storedResponse(h, second.body.id)).toBeUndefined();
    expect((await chargesOf(h, t.accountId)).length).toBe(charges);
    expect((await h.get(`/responses/${second.body.id}`, t.key)).status).toBe(404);
    expect((await h.delete(`/responses/${second.body.id}`, t.key)).status).toBe(404);
    const continued = await h.post('/responses', t.key, base({ input: 'Go on.', previous_response_id: second.body.id }));
    expect([continued.status, errorOf(continued).code]).toEqual([400, 'previous_response_not_found']);
    const quoted = await h.post(
      '/responses',
      t.key,
      base({
        input: [
          { type: 'item_reference', id: second.body.output[0].id },
          { role: 'user', content: 'Go on.' },
        ],
      }),
    );
    expect([quoted.status, errorOf(quoted).param]).toEqual([400, 'input.0.id']);
    // From the third turn, the chain now ends at the deleted one: the first turn is not restored.
    const recall = await h.post('/responses', t.key, base({ input: 'What is my renewal date?', previous_response_id: third.body.id }));
    expect(outputText(recall.body)).not.toContain('March 3');
    const recallSystem = await h.post('/responses', t.key, base({ input: 'What is my accounting system?', previous_response_id: third.body.id }));
    expect(outputText(recallSystem.body)).toBe('You said: “Our accounting system is NetSuite.”');
  });

  it('cuts the output at max_output_tokens: completed, incomplete_details set, the item incomplete', async () => {
    const res = await h.post('/responses', t.key, base({ max_output_tokens: 16, text: { verbosity: 'high' } }));
    expect(res.body.status).toBe('completed');
    expect(res.body.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(res.body.output[0].status).toBe('incomplete');
    expect(res.body.usage.output_tokens).toBeLessThanOrEqual(16);
  });

  it('takes a conversation as input items, system and developer messages included', async () => {
    const res = await h.post(
      '/responses',
      t.key,
      base({
        input: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: [{ type: 'input_text', text: 'What is your biggest challenge?' }] },
          { type: 'message', role: 'assistant', content: 'Forecast accuracy.' },
          { role: 'developer', content: 'Stay polite.' },
          { role: 'user', content: 'And how would you measure success?' },
        ],
      }),
    );
    expect(res.status).toBe(200);
    expect(outputText(res.body).length).toBeGreaterThan(0);
  });
});

describe('tools', () => {
  it('calls a tool when the input asks for what it offers (auto), with arguments valid against its parameters', async () => {
    const res = await h.post(
      '/responses',
      t.key,
      base({ input: 'What would a price quote be for 240 seats on annual billing?', tools: [quoteTool, weatherTool] }),
    );
    expect(res.body.status).toBe('completed');
    const calls = res.body.output.filter((item: any) => item.type === 'function_call');
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ type: 'function_call', name: 'get_price_quote', status: 'completed' });
    expect(calls[0].id).toMatch(/^fc_/);
    expect(calls[0].call_id).toMatch(/^call_/);
    const validate = new Ajv2020().compile(quoteTool.parameters);
    expect(validate(JSON.parse(calls[0].arguments))).toBe(true);
    // A tool's `strict` defaults to true (a default inside a oneOf that the server applies itself).
    expect(res.body.tools[0]).toMatchObject({ name: 'get_price_quote', strict: true });
    expect(res.body.tools[0].parameters).toEqual(quoteTool.parameters);
  });

  it('follows tool_choice: none answers in text, required and a forced function call', async () => {
    const none = await h.post('/responses', t.key, base({ input: 'Price quote for 240 seats?', tools: [quoteTool], tool_choice: 'none' }));
    expect(none.body.output.map((item: any) => item.type)).toEqual(['message']);
    const required = await h.post('/responses', t.key, base({ input: 'Hello there.', tools: [quoteTool, weatherTool], tool_choice: 'required' }));
    expect(required.body.output.some((item: any) => item.type === 'function_call')).toBe(true);
    const forced = await h.post(
      '/responses',
      t.key,
      base({ input: 'Price quote for 240 seats?', tools: [quoteTool, weatherTool], tool_choice: { type: 'function', name: 'get_weather' } }),
    );
    expect(forced.body.output.map((item: any) => item.name)).toEqual(['get_weather']);
    expect(forced.body.tool_choice).toEqual({ type: 'function', name: 'get_weather' });
  });

  it('answers a function_call_output sent back with the history ([...input, ...output])', async () => {
    const input: any[] = [{ role: 'user', content: 'What would a price quote be for 240 seats on annual billing?' }];
    const first = await h.post('/responses', t.key, base({ input, tools: [quoteTool] }));
    const call = first.body.output.find((item: any) => item.type === 'function_call');
    const second = await h.post(
      '/responses',
      t.key,
      base({
        input: [...input, ...first.body.output, { type: 'function_call_output', call_id: call.call_id, output: '{"total_usd":46080,"discount_percent":11}' }],
        tools: [quoteTool],
      }),
    );
    expect(second.status).toBe(200);
    expect(second.body.output.map((item: any) => item.type)).toEqual(['message']);
    expect(outputText(second.body)).toMatch(/46,?080/);
  });

  it('refuses what cannot be run: unknown call_id, duplicate names, a choice without tools, a non-object schema', async () => {
    const orphan = await h.post(
      '/responses',
      t.key,
      base({
        input: [
          { role: 'user', content: 'Hi' },
          { type: 'function_call_output', call_id: 'call_nothing', output: '{}' },
        ],
      }),
    );
    expect(errorOf(orphan)).toEqual({ type: 'invalid_request_error', code: 'invalid_parameter', param: 'input.1.call_id' });
    const duplicate = await h.post('/responses', t.key, base({ tools: [quoteTool, quoteTool] }));
    expect(errorOf(duplicate)).toEqual({ type: 'invalid_request_error', code: 'invalid_parameter', param: 'tools.1.name' });
    const required = await h.post('/responses', t.key, base({ tool_choice: 'required' }));
    expect(errorOf(required)).toEqual({ type: 'invalid_request_error', code: 'parameter_conflict', param: 'tool_choice' });
    const unknown = await h.post('/responses', t.key, base({ tools: [quoteTool], tool_choice: { type: 'function', name: 'get_weather' } }));
    expect(errorOf(unknown).code).toBe('parameter_conflict');
    const arraySchema = await h.post('/responses', t.key, base({ tools: [{ ...quoteTool, parameters: { type: 'array' } }] }));
    expect(errorOf(arraySchema)).toEqual({ type: 'invalid_request_error', code: 'invalid_parameter', param: 'tools.0.parameters' });
    const tooMany = await h.post('/responses', t.key, base({ tools: Array.from({ length: 65 }, (_, i) => ({ ...weatherTool, name: `tool_${i}` })) }));
    expect(errorOf(tooMany)).toMatchObject({ code: 'invalid_parameter', param: 'tools' });
  });
});

describe('structured output', () => {
  it('returns `parsed`, valid against the schema, with the JSON text in the message', async () => {
    const res = await h.post(
      '/responses',
      t.key,
      base({ input: "Rate the tagline 'Close the books in five days'.", text: { format: { type: 'json_schema', name: 'rating', schema: ratingSchema } } }),
    );
    expect(res.body.status).toBe('completed');
    expect(new Ajv2020().compile(ratingSchema)(res.body.parsed)).toBe(true);
    expect(JSON.parse(outputText(res.body))).toEqual(res.body.parsed);
    expect(res.body.text.format).toEqual({ type: 'json_schema', name: 'rating', schema: ratingSchema, strict: false });
  });

  it('accepts the nested form {type, json_schema} and echoes the flat one', async () => {
    const res = await h.post(
      '/responses',
      t.key,
      base({ text: { format: { type: 'json_schema', json_schema: { name: 'rating', schema: ratingSchema, strict: true } } } }),
    );
    expect(res.body.text.format).toEqual({ type: 'json_schema', name: 'rating', schema: ratingSchema, strict: true });
    expect(new Ajv2020().compile(ratingSchema)(res.body.parsed)).toBe(true);
  });

  it('fails (HTTP 200, status failed, structured_output_invalid) when no valid output exists, and charges nothing', async () => {
    const before = await balanceOf(h, t.accountId);
    const impossible = { type: 'object', properties: { code: { type: 'string', minLength: 5, maxLength: 2 } }, required: ['code'] };
    const res = await h.post('/responses', t.key, base({ text: { format: { type: 'json_schema', name: 'impossible', schema: impossible } } }));
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('failed');
    expect(res.body.error.code).toBe('structured_output_invalid');
    expect(res.body.parsed).toBeNull();
    expect(res.body.usage.credits_used).toBe(0);
    expect(await balanceOf(h, t.accountId)).toBe(before);
    expect((await storedResponse(h, res.body.id))?.status).toBe('failed');
  });

  it('refuses json_schema with analysis_mode or artifact_mode, and a schema whose root is not an object', async () => {
    const format = { type: 'json_schema', name: 'rating', schema: ratingSchema };
    expect(errorOf(await h.post('/responses', t.key, base({ text: { format }, analysis_mode: true })))).toEqual({
      type: 'invalid_request_error',
      code: 'parameter_conflict',
      param: 'analysis_mode',
    });
    expect(errorOf(await h.post('/responses', t.key, base({ text: { format }, artifact_mode: true })))).toEqual({
      type: 'invalid_request_error',
      code: 'parameter_conflict',
      param: 'artifact_mode',
    });
    expect(errorOf(await h.post('/responses', t.key, base({ text: { format: { ...format, schema: { type: 'string' } } } })))).toMatchObject({
      code: 'invalid_parameter',
      param: 'text.format.schema',
    });
  });
});

describe('analysis and artifact modes', () => {
  it('adds the analysis object and 5 credits with analysis_mode', async () => {
    const res = await h.post(
      '/responses',
      t.key,
      base({ input: 'Only 3 seats left at this price, the offer ends tonight! Everyone in finance is switching.', analysis_mode: true }),
    );
    const { analysis, usage } = res.body;
    expect(analysis.sentiment.score).toBeGreaterThanOrEqual(-1);
    expect(analysis.biases.map((bias: any) => bias.name).join(' ')).toMatch(/scarcity|social proof/i);
    expect(usage.credits_used).toBe(creditsForTokens(usage.total_tokens) + 5);
    expect(res.body.analysis_mode).toBe(true);
  });

  it('wraps the answer in exactly one artifact element with artifact_mode', async () => {
    const res = await h.post('/responses', t.key, base({ input: 'Write a short e-mail to my team about the new expense policy.', artifact_mode: true }));
    const artifact = parseArtifact(outputText(res.body));
    expect(artifact).not.toBeNull();
    expect(artifact?.identifier).toMatch(/^[a-z0-9-]+$/);
    expect(artifact?.content.length).toBeGreaterThan(20);
  });
});

describe('checks before generating', () => {
  it('answers 400 invalid_model for another model, and 404 naming persona_id for an unknown persona', async () => {
    expect(errorOf(await h.post('/responses', t.key, base({ model: 'gpt-4o' })))).toEqual({
      type: 'invalid_request_error',
      code: 'invalid_model',
      param: 'model',
    });
    expect(errorOf(await h.post('/responses', t.key, base({ persona_id: 'persona_nobody' })))).toEqual({
      type: 'not_found',
      code: 'resource_not_found',
      param: 'persona_id',
    });
  });

  it('bounds the input: 100 000 characters as a string or across items', async () => {
    expect(errorOf(await h.post('/responses', t.key, base({ input: 'x'.repeat(100_001) })))).toMatchObject({ code: 'invalid_parameter', param: 'input' });
    const items = [
      { role: 'user', content: 'a'.repeat(60_000) },
      { role: 'user', content: 'b'.repeat(40_001) },
    ];
    expect(errorOf(await h.post('/responses', t.key, base({ input: items })))).toEqual({
      type: 'invalid_request_error',
      code: 'invalid_parameter',
      param: 'input',
    });
    expect((await h.post('/responses', t.key, base({ input: 'y'.repeat(100_000), text: { verbosity: 'low' } }))).status).toBe(200);
  });

  it('does not let a caller use another account’s custom persona (404)', async () => {
    const other = await h.tenant();
    const id = newId('cp');
    const now = h.clock.now();
    const [cfo] = await h.db.select().from(personas).where(eq(personas.id, CFO));
    await h.db.insert(personas).values({
      ...cfo!,
      id,
      isCustom: true,
      accountId: other.accountId,
      workspaceId: other.workspaceId,
      name: 'Private persona',
      aiGenerated: { confidence: 0.5, rationale: 'test' },
      createdAt: now,
      updatedAt: now,
    });
    expect((await h.post('/responses', other.key, base({ persona_id: id }))).status).toBe(200);
    expect(errorOf(await h.post('/responses', t.key, base({ persona_id: id })))).toEqual({
      type: 'not_found',
      code: 'resource_not_found',
      param: 'persona_id',
    });
  });

  it('answers 403 before 402 when the caller’s role in their default workspace may not make paid calls, holding nothing', async () => {
    // The hold resolves the default workspace and checks the role in its own statement (hold_credits).
    const viewer = await h.tenant({ credits: 2 });
    await h.db.update(workspaceMembers).set({ role: 'viewer' }).where(eq(workspaceMembers.userId, viewer.userId));
    const res = await h.post('/responses', viewer.key, base({ input: 'word '.repeat(2_000) }));
    expect(res.status).toBe(403);
    expect(errorOf(res)).toMatchObject({ code: 'permission_denied', param: null });
    expect(res.body.error.message).toBe('Your role (viewer) cannot make paid AI calls in this workspace.');
    expect(await h.db.select().from(creditReservations).where(eq(creditReservations.accountId, viewer.accountId))).toEqual([]);
    expect(await storedResponsesOf(h, viewer.accountId)).toHaveLength(0);
  });

  it('answers 402 before generating when the balance is below the input’s cost, storing and charging nothing', async () => {
    const poor = await h.tenant({ credits: 2 });
    const res = await h.post('/responses', poor.key, base({ input: 'word '.repeat(2_000) }));
    expect(res.status).toBe(402);
    expect(errorOf(res)).toEqual({ type: 'insufficient_credits', code: 'insufficient_credits', param: null });
    expect(await storedResponsesOf(h, poor.accountId)).toHaveLength(0);
    expect(await chargesOf(h, poor.accountId)).toHaveLength(0);
    expect(await balanceOf(h, poor.accountId)).toBe(2);
  });

  it('takes the balance at most to zero when the output costs more than the balance left', async () => {
    const nearlyEmpty = await h.tenant({ credits: 5 });
    const res = await h.post('/responses', nearlyEmpty.key, base({ text: { verbosity: 'high' } }));
    expect(res.status).toBe(200);
    expect(res.body.usage.credits_used).toBe(5);
    expect(await balanceOf(h, nearlyEmpty.accountId)).toBe(0);
    // The answer cost more than the 5 taken: the body built for the full price is stored with what was taken.
    expect(creditsForTokens(res.body.usage.total_tokens)).toBeGreaterThan(5);
    const stored = await storedResponse(h, res.body.id);
    expect(stored?.creditsUsed).toBe(5);
    expect(stored?.body).toEqual(res.body);
  });
});

describe('idempotency and budget alerts', () => {
  it('replays a response for the same Idempotency-Key without generating or charging again', async () => {
    const before = await balanceOf(h, t.accountId);
    const headers = { 'idempotency-key': `resp-${process.pid}-1` };
    const first = await h.post('/responses', t.key, base(), headers);
    const replay = await h.post('/responses', t.key, base(), headers);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(await balanceOf(h, t.accountId)).toBe(before - first.body.usage.credits_used);
    expect((await storedResponsesOf(h, t.accountId)).filter((row) => row.id === first.body.id)).toHaveLength(1);
  });

  it('replays a stream’s recorded events, charging once', async () => {
    const before = await balanceOf(h, t.accountId);
    const headers = { 'idempotency-key': `resp-${process.pid}-2` };
    const first = await h.post('/responses', t.key, base({ stream: true }), headers);
    const replay = await h.post('/responses', t.key, base({ stream: true }), headers);
    expect(replay.text).toBe(first.text);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const completed = events(first.text).at(-1)?.data;
    expect(await balanceOf(h, t.accountId)).toBe(before - completed.response.usage.credits_used);
  });

  it('sends Budget-Alert once the workspace’s alert threshold is reached, streams included', async () => {
    const spender = await h.tenant({ credits: 10_000 });
    await h.patch(`/workspaces/${spender.workspaceId}`, spender.key, { budget_alert: 1 });
    const first = await h.post('/responses', spender.key, base());
    expect(first.headers['budget-alert']).toBe('workspace');
    const streamed = await h.post('/responses', spender.key, base({ stream: true }));
    expect(streamed.headers['budget-alert']).toBe('workspace');
  });
});

describe('streaming', () => {
  it('sends the full event sequence, then [DONE]; the deltas add up to the final text', async () => {
    const before = await balanceOf(h, t.accountId);
    const res = await h.post('/responses', t.key, base({ stream: true }));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    const types = typesOf(res.text);
    const deltas = types.filter((type) => type === 'response.output_text.delta').length;
    expect(deltas).toBeGreaterThan(3);
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      ...Array(deltas).fill('response.output_text.delta'),
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const all = events(res.text);
    expect(all[0]?.data.response).toMatchObject({ status: 'in_progress', output: [], usage: null });
    const streamed = all
      .filter((e) => e.data.type === 'response.output_text.delta')
      .map((e) => e.data.delta)
      .join('');
    const final = all.at(-1)?.data.response;
    expect(final.status).toBe('completed');
    expect(outputText(final)).toBe(streamed);
    expect(final.id).toBe(all[0]?.data.response.id);
    expect(await balanceOf(h, t.accountId)).toBe(before - final.usage.credits_used);
    expect(await storedResponse(h, final.id)).toMatchObject({ status: 'completed', stream: true, creditsUsed: final.usage.credits_used });
  });

  it('streams a function call: item added, argument deltas, arguments done, item done', async () => {
    const res = await h.post('/responses', t.key, base({ input: 'Hi', tools: [quoteTool], tool_choice: 'required', stream: true }));
    const types = typesOf(res.text).filter((type) => type !== 'response.function_call_arguments.delta');
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const all = events(res.text);
    const args = all
      .filter((e) => e.data.type === 'response.function_call_arguments.delta')
      .map((e) => e.data.delta)
      .join('');
    const final = all.at(-1)?.data.response;
    expect(final.output[0]).toMatchObject({ type: 'function_call', name: 'get_price_quote', arguments: args, status: 'completed' });
  });

  it('ends a stream whose output fails its schema with response.failed and charges nothing', async () => {
    const before = await balanceOf(h, t.accountId);
    const impossible = { type: 'object', properties: { n: { type: 'integer', minimum: 5, maximum: 1 } }, required: ['n'] };
    const res = await h.post('/responses', t.key, base({ stream: true, text: { format: { type: 'json_schema', name: 'impossible', schema: impossible } } }));
    const final = events(res.text).at(-1)?.data;
    expect(final.type).toBe('response.failed');
    expect(final.response).toMatchObject({ status: 'failed', error: { code: 'structured_output_invalid' }, parsed: null });
    expect(await balanceOf(h, t.accountId)).toBe(before);
  });

  it('puts parsed and analysis only on the final response of a stream', async () => {
    const res = await h.post('/responses', t.key, base({ stream: true, analysis_mode: true }));
    const all = events(res.text);
    expect(all[0]?.data.response.analysis).toBeNull();
    expect(all.at(-1)?.data.response.analysis.sentiment).toBeDefined();
  });
});
