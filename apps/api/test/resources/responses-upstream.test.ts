import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { basePersonaSystemPrompt, countPromptTokens, countTokens, createOpenAICompatibleEngine, creditsForTokens } from '@persona-api/engine';
import type { FakeUpstream } from '@persona-api/engine/testing';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/admin/accounts.js';
import { accounts, creditReservations, idempotencyKeys } from '../../src/db/schema/index.js';
import { contract } from '../support/contract.js';
import {
  balanceOf,
  chargesOf,
  events,
  eventually,
  fakeUpstreamEngine,
  postAndDisconnect,
  postAndLeave,
  storedResponse,
  storedResponsesOf,
  SwitchableEngine,
  UPSTREAM_KEY,
} from '../support/ai.js';
import { errorOf, Harness, type Tenant } from '../support/harness.js';

// Responses and chat on the OpenAI-compatible engine, against a local fake upstream that streams like
// the real one: prompts and tools as sent upstream, token pass-through, upstream usage or the
// tokenizer's count, structured-output retries, failures before and after the stream started,
// timeouts, and a client that disconnects (the upstream request is aborted, what was sent is charged).

let h: Harness;
let t: Tenant;
let fake: FakeUpstream;
let upstream: SwitchableEngine;
let port: number;

beforeAll(async () => {
  const started = await fakeUpstreamEngine();
  fake = started.fake;
  upstream = new SwitchableEngine(started.engine);
  h = await Harness.create({ engine: upstream });
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  port = (h.app.server.address() as AddressInfo).port;
  t = await h.tenant({ credits: 100_000 });
});
afterAll(async () => {
  await h.close();
  await fake.close();
});
beforeEach(() => {
  fake.setDefault(null);
});

const CFO = 'persona_saas_cfo';
const base = (extra: Record<string, unknown> = {}) => ({ model: 'service-1', persona_id: CFO, input: 'Would you pay $18 per seat for this?', ...extra });
const lastRequest = () => fake.requests.at(-1)!;
const outputText = (body: any): string =>
  body.output
    .filter((item: any) => item.type === 'message')
    .map((item: any) => item.content[0]?.text ?? '')
    .join('');
const quoteTool = {
  type: 'function',
  name: 'get_price_quote',
  description: 'Returns a price quote.',
  parameters: { type: 'object', properties: { seats: { type: 'integer' } }, required: ['seats'], additionalProperties: false },
};

/** A streamed POST over the real connection, with the time each chunk arrived. */
function streamOverHttp(path: string, body: unknown): Promise<{ status: number; text: string; arrivals: { at: number; text: string }[] }> {
  return new Promise((resolve, reject) => {
    const arrivals: { at: number; text: string }[] = [];
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `/api/v1${path}`,
        agent: false,
        headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
      },
      (res) => {
        res.on('data', (chunk: Buffer) => arrivals.push({ at: performance.now(), text: chunk.toString('utf8') }));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: arrivals.map((a) => a.text).join(''), arrivals }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('what goes upstream', () => {
  it('sends the persona’s system prompt first, then the instructions, then the input; charges the upstream’s token counts', async () => {
    fake.enqueue({ content: 'Walk me through the payback math first.', usage: { prompt_tokens: 1234, completion_tokens: 66 } });
    const res = await h.post('/responses', t.key, base({ instructions: 'Answer in one sentence.' }));
    expect(res.status).toBe(200);
    const sent = lastRequest();
    expect(sent.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    expect(sent.body.model).toBe('fake-gpt');
    const [system, user] = sent.body.messages;
    expect(system.role).toBe('system');
    const prompt = basePersonaSystemPrompt(CFO) ?? '';
    expect(system.content.startsWith(prompt)).toBe(true);
    expect(system.content.indexOf('Answer in one sentence.')).toBeGreaterThan(prompt.length - 1);
    expect(user).toEqual({ role: 'user', content: 'Would you pay $18 per seat for this?' });

    expect(outputText(res.body)).toBe('Walk me through the payback math first.');
    expect(res.body.usage).toMatchObject({ input_tokens: 1234, output_tokens: 66, total_tokens: 1300, credits_used: 13 });
    const charge = (await chargesOf(h, t.accountId)).find((row) => row.requestId === res.headers['x-request-id']);
    expect(charge?.amount).toBe(-13);
    expect(await storedResponse(h, res.body.id)).toMatchObject({ engine: 'openai-compatible', upstreamModel: 'fake-gpt', inputTokens: 1234, outputTokens: 66 });
  });

  it('counts tokens with the tokenizer when the upstream reports none', async () => {
    fake.enqueue({ content: 'I would need to see the numbers.', omitUsage: true });
    const res = await h.post('/responses', t.key, base());
    const sent = lastRequest().body.messages;
    const expectedInput = countPromptTokens([sent[0].content], [{ role: 'user', content: sent[1].content }]);
    expect(res.body.usage.input_tokens).toBe(expectedInput);
    expect(res.body.usage.output_tokens).toBe(countTokens('I would need to see the numbers.'));
    expect(res.body.usage.credits_used).toBe(creditsForTokens(res.body.usage.total_tokens));
  });

  it('forwards tools and the tool choice, and carries a function_call_output round trip', async () => {
    fake.enqueue({ tool_calls: [{ id: 'call_upstream1', name: 'get_price_quote', arguments: '{"seats":240}' }] });
    const input: any[] = [{ role: 'user', content: 'Quote for 240 seats?' }];
    const first = await h.post('/responses', t.key, base({ input, tools: [quoteTool], tool_choice: { type: 'function', name: 'get_price_quote' } }));
    expect(lastRequest().body.tools[0].function).toMatchObject({ name: 'get_price_quote', parameters: quoteTool.parameters });
    expect(lastRequest().body.tool_choice).toEqual({ type: 'function', function: { name: 'get_price_quote' } });
    expect(first.body.output).toEqual([
      expect.objectContaining({ type: 'function_call', call_id: 'call_upstream1', name: 'get_price_quote', arguments: '{"seats":240}' }),
    ]);

    fake.enqueue({ content: '$46,080 a year is within budget.' });
    const second = await h.post(
      '/responses',
      t.key,
      base({
        input: [...input, ...first.body.output, { type: 'function_call_output', call_id: 'call_upstream1', output: '{"total_usd":46080}' }],
        tools: [quoteTool],
      }),
    );
    const messages = lastRequest().body.messages;
    expect(messages.at(-2)).toMatchObject({
      role: 'assistant',
      tool_calls: [{ id: 'call_upstream1', function: { name: 'get_price_quote', arguments: '{"seats":240}' } }],
    });
    expect(messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_upstream1', content: '{"total_usd":46080}' });
    expect(outputText(second.body)).toBe('$46,080 a year is within budget.');
  });
});

describe('previous_response_id: the conversation restored', () => {
  /** The upstream messages after the system prompt, as role and text (tool calls by name and call id). */
  const turnsSent = () =>
    lastRequest()
      .body.messages.slice(1)
      .map((message: any) =>
        message.tool_calls
          ? `${message.role}: ${message.tool_calls.map((call: any) => `${call.function.name}(${call.id})`).join(', ')}`
          : `${message.role}${message.tool_call_id ? `(${message.tool_call_id})` : ''}: ${message.content}`,
      );

  it('sends each earlier turn, oldest first, before the new input; earlier instructions do not carry over; stores each turn’s size', async () => {
    fake.enqueue({ content: 'Payback under a year, or no.' });
    const first = await h.post('/responses', t.key, base({ input: 'I run finance at a 40-person agency.', instructions: 'Be terse.' }));
    expect(lastRequest().body.messages[0].content).toContain('Be terse.');
    fake.enqueue({ content: 'Then show me the numbers.' });
    const second = await h.post(
      '/responses',
      t.key,
      base({ input: [{ role: 'user', content: 'It saves 6 hours a week.' }], previous_response_id: first.body.id }),
    );
    fake.enqueue({ content: 'You run finance at a 40-person agency.' });
    const third = await h.post('/responses', t.key, base({ input: 'What do I do?', previous_response_id: second.body.id }));
    expect(third.status).toBe(200);
    expect(third.body.previous_response_id).toBe(second.body.id);
    expect(turnsSent()).toEqual([
      'user: I run finance at a 40-person agency.',
      'assistant: Payback under a year, or no.',
      'user: It saves 6 hours a week.',
      'assistant: Then show me the numbers.',
      'user: What do I do?',
    ]);
    expect(lastRequest().body.messages[0].content).not.toContain('Be terse.');
    expect((await storedResponse(h, second.body.id))!.turnChars).toBe('It saves 6 hours a week.'.length + 'Then show me the numbers.'.length);
  });

  it('takes a function_call_output for a call of the previous response (how the Agents SDK continues a tool call)', async () => {
    fake.enqueue({ tool_calls: [{ id: 'call_chain1', name: 'get_price_quote', arguments: '{"seats":12}' }] });
    const first = await h.post('/responses', t.key, base({ input: 'Quote for 12 seats?', tools: [quoteTool] }));
    expect(first.body.output[0].type).toBe('function_call');
    fake.enqueue({ content: '$2,592 a year is fine.' });
    const second = await h.post(
      '/responses',
      t.key,
      base({
        input: [{ type: 'function_call_output', call_id: 'call_chain1', output: '{"total_usd":2592}' }],
        previous_response_id: first.body.id,
        tools: [quoteTool],
      }),
    );
    expect(second.status).toBe(200);
    expect(turnsSent()).toEqual(['user: Quote for 12 seats?', 'assistant: get_price_quote(call_chain1)', 'tool(call_chain1): {"total_usd":2592}']);
    // Without the chain, the same output answers no call.
    const alone = await h.post('/responses', t.key, base({ input: [{ type: 'function_call_output', call_id: 'call_chain1', output: '{}' }] }));
    expect(alone.status).toBe(400);
    expect(errorOf(alone)).toMatchObject({ code: 'invalid_parameter', param: 'input.0.call_id' });
  });

  it('resolves the item_reference items of an earlier turn', async () => {
    fake.enqueue({ content: 'Start with the pilot.' });
    const first = await h.post('/responses', t.key, base({ input: 'Pilot or full rollout?' }));
    fake.enqueue({ content: 'Yes, a pilot of 10 seats.' });
    const second = await h.post(
      '/responses',
      t.key,
      base({
        input: [
          { role: 'user', content: 'Pilot or full rollout?' },
          { type: 'item_reference', id: first.body.output[0].id },
          { role: 'user', content: 'So a pilot?' },
        ],
      }),
    );
    fake.enqueue({ content: 'Ten.' });
    await h.post('/responses', t.key, base({ input: 'How many seats?', previous_response_id: second.body.id }));
    expect(turnsSent()).toEqual([
      'user: Pilot or full rollout?',
      'assistant: Start with the pilot.',
      'user: So a pilot?',
      'assistant: Yes, a pilot of 10 seats.',
      'user: How many seats?',
    ]);
  });

  it('answers 400 previous_response_not_found for an unknown id and for another account’s response alike', async () => {
    fake.enqueue({ content: 'Mine.' });
    const other = await h.tenant({ credits: 1_000 });
    const theirs = await h.post('/responses', other.key, base({ input: 'A private question.' }));
    expect(theirs.status).toBe(200);
    const before = fake.requests.length;
    for (const id of ['resp_doesnotexist1', theirs.body.id]) {
      const res = await h.post('/responses', t.key, base({ previous_response_id: id }));
      expect(res.status).toBe(400);
      expect(errorOf(res)).toEqual({ type: 'invalid_request_error', code: 'previous_response_not_found', param: 'previous_response_id' });
      expect(res.body.error.message).toBe(`Previous response with id '${id}' not found.`);
    }
    expect(fake.requests.length).toBe(before);
  });

  it('with truncation disabled a chain over the limit is a 400 context_length_exceeded; with auto the oldest turns are dropped whole', async () => {
    const long = (word: string) => `${word} `.repeat(8_000).trim(); // 47 999 characters
    fake.enqueue({ content: 'Noted one.' });
    const first = await h.post('/responses', t.key, base({ input: long('alpha') }));
    fake.enqueue({ content: 'Noted two.' });
    const second = await h.post('/responses', t.key, base({ input: long('bravo'), previous_response_id: first.body.id }));
    expect(second.status).toBe(200);
    const before = fake.requests.length;
    const refused = await h.post('/responses', t.key, base({ input: long('delta'), previous_response_id: second.body.id }));
    expect(refused.status).toBe(400);
    expect(errorOf(refused)).toMatchObject({ code: 'context_length_exceeded', param: 'input' });
    expect(fake.requests.length).toBe(before);
    fake.enqueue({ content: 'Noted three.' });
    const truncated = await h.post('/responses', t.key, base({ input: long('delta'), previous_response_id: second.body.id, truncation: 'auto' }));
    expect(truncated.status).toBe(200);
    expect(truncated.body.truncation).toBe('auto');
    expect(turnsSent()).toEqual([`user: ${long('bravo')}`, 'assistant: Noted two.', `user: ${long('delta')}`]);
  });
});

describe('structured output and analysis upstream', () => {
  const schema = { type: 'object', properties: { score: { type: 'integer', minimum: 1, maximum: 10 } }, required: ['score'], additionalProperties: false };

  it('returns parsed output that validates', async () => {
    fake.enqueue({ content: '{"score":7}' });
    const res = await h.post('/responses', t.key, base({ text: { format: { type: 'json_schema', name: 'rating', schema } } }));
    expect(lastRequest().body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'rating', schema } });
    expect(res.body).toMatchObject({ status: 'completed', parsed: { score: 7 } });
  });

  it('asks once more when the output does not validate, then fails with structured_output_invalid and charges nothing', async () => {
    const before = await balanceOf(h, t.accountId);
    const count = fake.requests.length;
    fake.enqueue({ content: 'Seven out of ten.' }, { content: '{"score":"seven"}' });
    const res = await h.post('/responses', t.key, base({ text: { format: { type: 'json_schema', name: 'rating', schema } } }));
    expect(fake.requests.length).toBe(count + 2);
    expect(lastRequest().body.messages.at(-1).content).toMatch(/not valid JSON/);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'failed', error: { code: 'structured_output_invalid' }, parsed: null });
    expect(outputText(res.body)).toBe('{"score":"seven"}'); // the raw text is kept
    expect(res.body.usage.credits_used).toBe(0);
    expect(await balanceOf(h, t.accountId)).toBe(before);
  });

  it('adds an analysis (the lexical one when the model cannot fill the schema) and its 5 credits', async () => {
    fake.enqueue(
      { content: 'This deal sounds risky.', usage: { prompt_tokens: 100, completion_tokens: 10 } },
      { content: 'no', usage: { prompt_tokens: 50, completion_tokens: 1 } },
      { content: 'still no', usage: { prompt_tokens: 60, completion_tokens: 2 } },
    );
    const res = await h.post('/responses', t.key, base({ analysis_mode: true, input: 'Limited offer: only today!' }));
    expect(res.body.analysis.sentiment).toBeDefined();
    expect(res.body.usage).toMatchObject({ input_tokens: 210, output_tokens: 13, credits_used: 3 + 5 });
  });
});

describe('streaming through the server', () => {
  it('passes each upstream token on as it arrives, before the upstream has finished', async () => {
    const words = 'one two three four five six seven eight';
    fake.enqueue({ content: words, tokenDelayMs: 40 });
    const res = await streamOverHttp('/responses', base({ stream: true }));
    const upstreamDone = lastRequest().finishedAt ?? Number.POSITIVE_INFINITY;
    const firstDelta = res.arrivals.find((arrival) => arrival.text.includes('response.output_text.delta'));
    expect(firstDelta?.at).toBeLessThan(upstreamDone);
    const deltas = events(res.text)
      .filter((e) => e.data.type === 'response.output_text.delta')
      .map((e) => e.data.delta);
    expect(deltas).toEqual(words.match(/\S+\s*/g)); // one event per upstream chunk: no buffering
    expect(contract().checkEventStream('/components/schemas/ResponseStreamEvent', res.text)).toEqual([]);
  });

  it('streams several tool calls from upstream as function_call items, one after the other', async () => {
    fake.enqueue({
      tool_calls: [
        { id: 'call_streamed1', name: 'get_price_quote', arguments: '{"seats":240}' },
        { id: 'call_streamed2', name: 'get_price_quote', arguments: '{"seats":1000}' },
      ],
    });
    const res = await h.post('/responses', t.key, base({ stream: true, tools: [quoteTool] }));
    const all = events(res.text);
    const final = all.at(-1)?.data.response;
    expect(final.output).toEqual([
      expect.objectContaining({ type: 'function_call', call_id: 'call_streamed1', arguments: '{"seats":240}', status: 'completed' }),
      expect.objectContaining({ type: 'function_call', call_id: 'call_streamed2', arguments: '{"seats":1000}', status: 'completed' }),
    ]);
    const done = all.filter((e) => e.data.type === 'response.function_call_arguments.done').map((e) => [e.data.output_index, e.data.arguments]);
    expect(done).toEqual([
      [0, '{"seats":240}'],
      [1, '{"seats":1000}'],
    ]);
    for (const index of [0, 1]) {
      const pieces = all.filter((e) => e.data.type === 'response.function_call_arguments.delta' && e.data.output_index === index).map((e) => e.data.delta);
      expect(pieces.join('')).toBe(final.output[index].arguments);
    }
  });
});

/** The Idempotency-Key of a failed or abandoned request was not kept: a retry runs (and is answered) rather than replaying it. */
async function expectKeyReleased(tenant: Tenant, key: string): Promise<void> {
  fake.enqueue({ content: 'Here now.' });
  const retry = await h.post('/responses', tenant.key, base(), { 'idempotency-key': key });
  expect(retry.status).toBe(200);
  expect(retry.headers['idempotent-replayed']).toBeUndefined();
}

describe('the credit hold beside the model call', () => {
  it("starts the model while an account in good standing is held; a refused hold still answers 402 and drops the answer, and the account's next call waits for its hold", async () => {
    const tenant = await h.tenant({ credits: 1_000 });
    for (const path of ['/responses', '/chat/completions']) {
      const body =
        path === '/responses' ? base() : { model: 'service-1', persona_id: CFO, messages: [{ role: 'user', content: 'Would you pay $18 per seat?' }] };
      await h.db.update(accounts).set({ creditBalance: 1_000 }).where(eq(accounts.id, tenant.accountId));
      // A granted hold: the account is in good standing on this instance.
      expect((await h.post(path, tenant.key, body)).status).toBe(200);
      const stored = (await storedResponsesOf(h, tenant.accountId)).length;

      // The next hold waits on the account row, locked here; the model is called meanwhile. The lock's
      // holder then empties the balance, so the hold is refused when it runs.
      const before = fake.requests.length;
      let answered: Promise<Awaited<ReturnType<Harness['post']>>> | undefined;
      await h.db.transaction(async (tx) => {
        await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, tenant.accountId)).for('update');
        answered = h.post(path, tenant.key, body);
        await eventually(async () => fake.requests.length > before);
        await tx.update(accounts).set({ creditBalance: 0 }).where(eq(accounts.id, tenant.accountId));
      });
      const refused = await answered!;
      expect(refused.status).toBe(402);
      expect(errorOf(refused).code).toBe('insufficient_credits');
      expect(await storedResponsesOf(h, tenant.accountId)).toHaveLength(stored);
      expect(await chargesOf(h, tenant.accountId)).toHaveLength(stored);
      expect(await h.db.select().from(creditReservations).where(eq(creditReservations.accountId, tenant.accountId))).toEqual([]);

      // Refused once, the account waits for its hold again: the model is not called for a refused call.
      const after = fake.requests.length;
      const again = await h.post(path, tenant.key, body);
      expect(again.status).toBe(402);
      expect(fake.requests.length).toBe(after);
    }
  });
});

describe('a workspace deleted while the model answers', () => {
  it('still completes the stream, charges the account with the workspace cleared and stores the response (was an error event, nothing charged)', async () => {
    const tenant = await h.tenant({ credits: 10_000 });
    fake.enqueue({ content: Array.from({ length: 20 }, (_, i) => `word${i}`).join(' '), tokenDelayMs: 20 });
    const before = fake.requests.length;
    const call = h.post('/responses', tenant.key, base({ stream: true }));
    // Deleted once the model has started answering.
    await eventually(async () => fake.requests.length > before && lastRequest().chunkTimes.length > 2);
    expect((await h.delete(`/workspaces/${tenant.workspaceId}`, tenant.key)).status).toBe(200);
    const streamed = await call;
    const completed = events(streamed.text).find((event) => event.data.type === 'response.completed')!.data.response;
    expect(completed.usage.credits_used).toBeGreaterThan(0);
    const charges = await chargesOf(h, tenant.accountId);
    expect(charges.map((row) => [row.amount, row.workspaceId])).toEqual([[-completed.usage.credits_used, null]]);
    expect(await balanceOf(h, tenant.accountId)).toBe(10_000 - completed.usage.credits_used);
    expect(await storedResponse(h, completed.id)).toMatchObject({ workspaceId: null, creditsUsed: completed.usage.credits_used });
  });
});

describe('upstream failures', () => {
  it('maps an upstream error before any output to 502 upstream_error, streamed or not, with nothing stored or charged', async () => {
    const tenant = await h.tenant({ credits: 1_000 });
    fake.enqueue({ status: 500 }, { status: 500 });
    const plain = await h.post('/responses', tenant.key, base(), { 'idempotency-key': `failed-${process.pid}` });
    expect(plain.status).toBe(502);
    expect(errorOf(plain)).toEqual({ type: 'api_error', code: 'upstream_error', param: null });
    const streamed = await h.post('/responses', tenant.key, base({ stream: true }));
    expect(streamed.status).toBe(502);
    expect(streamed.headers['content-type']).toMatch(/^application\/json/);
    expect(await storedResponsesOf(h, tenant.accountId)).toHaveLength(0);
    expect(await balanceOf(h, tenant.accountId)).toBe(1_000);
    await expectKeyReleased(tenant, `failed-${process.pid}`);
  });

  it('never passes on the upstream key, even when the upstream quotes it', async () => {
    fake.enqueue({
      status: 401,
      errorBody: { error: { message: `Incorrect API key provided: ${UPSTREAM_KEY}`, type: 'invalid_request_error', code: 'invalid_api_key' } },
    });
    const res = await h.post('/responses', t.key, base());
    expect(res.status).toBe(502);
    expect(res.text).not.toContain(UPSTREAM_KEY);
  });

  it('maps an upstream that does not answer in time to 504 upstream_timeout and closes the upstream request', async () => {
    const previous = upstream.current;
    upstream.current = createOpenAICompatibleEngine({
      baseUrl: fake.baseUrl,
      apiKey: UPSTREAM_KEY,
      model: 'fake-gpt',
      timeoutMs: 200,
      reasoning: false,
      contextWindow: 128_000,
      maxOutputTokens: 32_768,
    });
    try {
      fake.enqueue({ hang: true });
      const res = await h.post('/responses', t.key, base({ stream: true }));
      expect(res.status).toBe(504);
      expect(errorOf(res)).toEqual({ type: 'api_error', code: 'upstream_timeout', param: null });
      await lastRequest().closed;
      expect(lastRequest().closedEarly).toBe(true);
    } finally {
      upstream.current = previous;
    }
  });

  it('ends a stream the upstream breaks off with response.failed (output so far, incomplete) and charges nothing', async () => {
    const before = await balanceOf(h, t.accountId);
    fake.enqueue({ content: 'alpha beta gamma delta epsilon', cutAfterChunks: 2 });
    const res = await h.post('/responses', t.key, base({ stream: true }));
    expect(res.status).toBe(200);
    const all = events(res.text);
    expect(all.map((e) => e.data.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.failed',
    ]);
    const failed = all.at(-1)?.data.response;
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'upstream_error' }, usage: { credits_used: 0 } });
    expect(failed.output[0]).toMatchObject({ status: 'incomplete', content: [{ text: 'alpha beta ' }] });
    expect(await balanceOf(h, t.accountId)).toBe(before);
    expect((await storedResponse(h, failed.id))?.status).toBe('failed');
  });
});

describe('a client that disconnects', () => {
  it('before the first token, streamed or not: the upstream request is aborted and nothing is charged or stored', async () => {
    const tenant = await h.tenant({ credits: 1_000 });
    for (const stream of [false, true]) {
      fake.enqueue({ hang: true });
      const count = fake.requests.length;
      await postAndLeave(
        h,
        '/responses',
        tenant.key,
        base({ stream }),
        eventually(async () => fake.requests.length > count),
        { 'idempotency-key': `left-${stream}-${process.pid}` },
      );
      const upstreamRequest = fake.requests[count]!;
      await upstreamRequest.closed;
      expect(upstreamRequest.closedEarly).toBe(true);
    }
    // Once the server has finished (and counted) both requests, nothing may have been kept. A second
    // key reads the usage, so that only the two abandoned requests count for the first.
    const reader = await createApiKey(h.db, { accountId: tenant.accountId, name: 'Reader', now: h.clock.now() });
    await eventually(async () => {
      await h.app.usageRecorder.flush();
      const usage = (await h.get('/usage', reader.key)).body;
      return usage.api_requests.by_key.find((entry: { api_key_id: string }) => entry.api_key_id === tenant.apiKeyId)?.requests === 2;
    });
    expect(await storedResponsesOf(h, tenant.accountId)).toHaveLength(0);
    expect(await balanceOf(h, tenant.accountId)).toBe(1_000);
    await expectKeyReleased(tenant, `left-false-${process.pid}`);
  });

  it('mid-stream: aborts the upstream request, charges for what was sent, and releases its Idempotency-Key', async () => {
    const tenant = await h.tenant({ credits: 10_000 });
    const content = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
    fake.enqueue({ content, tokenDelayMs: 25 });
    const key = `cut-${process.pid}`;
    const received = await postAndDisconnect(
      h,
      '/responses',
      tenant.key,
      base({ stream: true }),
      (text) => (text.match(/output_text\.delta/g)?.length ?? 0) >= 6,
      { 'idempotency-key': key },
    );
    expect(received).toContain('response.created');
    const upstreamRequest = lastRequest();
    await upstreamRequest.closed;
    expect(upstreamRequest.closedEarly).toBe(true);
    expect(upstreamRequest.chunkTimes.length).toBeLessThan(60);

    const [stored] = await eventually(async () => {
      const rows = await storedResponsesOf(h, tenant.accountId);
      return rows.length > 0 ? rows : null;
    });
    expect(stored).toMatchObject({ status: 'cancelled', stream: true });
    expect(stored!.outputTokens).toBeGreaterThan(0);
    expect(stored!.outputTokens).toBeLessThan(countTokens(content));
    expect(stored!.creditsUsed).toBe(creditsForTokens(stored!.inputTokens + stored!.outputTokens));
    const charges = await chargesOf(h, tenant.accountId);
    expect(charges.map((row) => row.amount)).toEqual([-stored!.creditsUsed]);
    expect(await balanceOf(h, tenant.accountId)).toBe(10_000 - stored!.creditsUsed);
    // Read back, it is cancelled: the output that was sent, the usage that was charged.
    const readBack = await h.get(`/responses/${stored!.id}`, tenant.key);
    expect(readBack.status).toBe(200);
    expect(readBack.body).toMatchObject({
      id: stored!.id,
      status: 'cancelled',
      usage: { output_tokens: stored!.outputTokens, credits_used: stored!.creditsUsed },
    });
    const sentText: string = readBack.body.output[0].content[0].text;
    expect(sentText.length).toBeGreaterThan(0);
    expect(content.startsWith(sentText.trim())).toBe(true);

    // The truncated stream is not replayed: once the first request has finished, its key is released
    // and a retry with the same key runs again.
    await eventually(async () => (await h.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, key))).length === 0);
    fake.enqueue({ content: 'Second try.' });
    const retry = await h.post('/responses', tenant.key, base({ stream: true }), { 'idempotency-key': key });
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(retry.text).toContain('Second try.');
  });
});
