import { createOfflineEngine, creditsForTokens, type Engine } from '@persona-api/engine';
import type { FakeUpstream } from '@persona-api/engine/testing';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balanceOf, chargesOf, events, fakeUpstreamEngine, storedResponse, SwitchableEngine } from '../support/ai.js';
import { errorOf, Harness, type Tenant } from '../support/harness.js';

// The legacy POST /chat/completions on the same engines: messages, nested tools and
// tool_calls, response_format, prompt/completion token names, finish_reason, streaming as unnamed
// chunks (choices[0].delta.content) ending with [DONE], failures as an error line.

let h: Harness;
let t: Tenant;
let fake: FakeUpstream;
let upstreamEngine: Engine;
const engine = new SwitchableEngine(createOfflineEngine());

beforeAll(async () => {
  const started = await fakeUpstreamEngine();
  fake = started.fake;
  upstreamEngine = started.engine;
  h = await Harness.create({ engine });
  t = await h.tenant({ credits: 100_000 });
});
afterAll(async () => {
  await h.close();
  await fake.close();
});

const onUpstream = <T>(run: () => Promise<T>): Promise<T> => engine.using(upstreamEngine, run);

const base = (extra: Record<string, unknown> = {}) => ({
  model: 'service-1',
  persona_id: 'persona_restaurant_owner',
  messages: [
    { role: 'system', content: 'Keep it short.' },
    { role: 'user', content: 'Would you switch to a booking app that charges 2% per cover?' },
  ],
  ...extra,
});
const quoteTool = {
  type: 'function',
  function: {
    name: 'get_price_quote',
    description: 'Returns a price quote for a number of covers.',
    parameters: { type: 'object', properties: { covers: { type: 'integer', minimum: 1 } }, required: ['covers'], additionalProperties: false },
  },
};

describe('on the offline engine', () => {
  it('answers with OpenAI’s chat.completion shape, token names and credits', async () => {
    const before = await balanceOf(h, t.accountId);
    const res = await h.post('/chat/completions', t.key, base());
    expect(res.status).toBe(200);
    const body = res.body;
    expect(body.id).toMatch(/^chatcmpl_/);
    expect(body).toMatchObject({ object: 'chat.completion', model: 'service-1', persona_id: 'persona_restaurant_owner' });
    expect(body.choices).toHaveLength(1);
    expect(body.choices[0]).toMatchObject({ index: 0, finish_reason: 'stop', logprobs: null, message: { role: 'assistant', refusal: null } });
    expect(body.choices[0].message.content.length).toBeGreaterThan(10);
    const { usage } = body;
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
    expect(usage.credits_used).toBe(creditsForTokens(usage.total_tokens));
    expect(await balanceOf(h, t.accountId)).toBe(before - usage.credits_used);
    expect(await storedResponse(h, body.id)).toMatchObject({ object: 'chat.completion', status: 'completed', creditsUsed: usage.credits_used });
  });

  it('calls nested tools (finish_reason tool_calls, content null) and answers a tool message', async () => {
    const first = await h.post(
      '/chat/completions',
      t.key,
      base({ tools: [quoteTool], tool_choice: { type: 'function', function: { name: 'get_price_quote' } } }),
    );
    const message = first.body.choices[0].message;
    expect(first.body.choices[0].finish_reason).toBe('tool_calls');
    expect(message.content).toBeNull();
    expect(message.tool_calls).toEqual([
      { id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'get_price_quote', arguments: expect.any(String) } },
    ]);
    expect(new Ajv2020().compile(quoteTool.function.parameters)(JSON.parse(message.tool_calls[0].function.arguments))).toBe(true);

    const second = await h.post(
      '/chat/completions',
      t.key,
      base({
        messages: [...base().messages, message, { role: 'tool', tool_call_id: message.tool_calls[0].id, content: '{"monthly_fee_eur":1840}' }],
        tools: [quoteTool],
      }),
    );
    expect(second.body.choices[0].finish_reason).toBe('stop');
    expect(second.body.choices[0].message.content).toMatch(/1,?840/);
  });

  it('returns message.parsed with a json_schema response_format', async () => {
    const schema = {
      type: 'object',
      properties: { verdict: { type: 'string', enum: ['yes', 'no', 'maybe'] }, reason: { type: 'string' } },
      required: ['verdict', 'reason'],
      additionalProperties: false,
    };
    const res = await h.post('/chat/completions', t.key, base({ response_format: { type: 'json_schema', json_schema: { name: 'decision', schema } } }));
    const message = res.body.choices[0].message;
    expect(new Ajv2020().compile(schema)(message.parsed)).toBe(true);
    expect(JSON.parse(message.content)).toEqual(message.parsed);
  });

  it('answers 502 structured_output_invalid, charging nothing, when no valid output exists', async () => {
    const before = await balanceOf(h, t.accountId);
    const impossible = { type: 'object', properties: { n: { type: 'integer', minimum: 3, maximum: 1 } }, required: ['n'] };
    const res = await h.post(
      '/chat/completions',
      t.key,
      base({ response_format: { type: 'json_schema', json_schema: { name: 'impossible', schema: impossible } } }),
    );
    expect(res.status).toBe(502);
    expect(errorOf(res)).toEqual({ type: 'api_error', code: 'structured_output_invalid', param: null });
    expect(await balanceOf(h, t.accountId)).toBe(before);
  });

  it('honours max_completion_tokens with finish_reason length', async () => {
    const res = await h.post('/chat/completions', t.key, base({ max_completion_tokens: 16 }));
    expect(res.body.choices[0].finish_reason).toBe('length');
    expect(res.body.usage.completion_tokens).toBeLessThanOrEqual(16);
  });

  it('refuses requests that cannot be answered', async () => {
    expect(errorOf(await h.post('/chat/completions', t.key, base({ max_tokens: 100, max_completion_tokens: 100 })))).toEqual({
      type: 'invalid_request_error',
      code: 'parameter_conflict',
      param: 'max_tokens',
    });
    expect(errorOf(await h.post('/chat/completions', t.key, base({ stream_options: { include_usage: true } })))).toMatchObject({
      code: 'parameter_conflict',
      param: 'stream_options',
    });
    expect(
      errorOf(
        await h.post(
          '/chat/completions',
          t.key,
          base({
            messages: [
              { role: 'user', content: 'Hi' },
              { role: 'assistant', content: 'Hello' },
            ],
          }),
        ),
      ),
    ).toMatchObject({ code: 'invalid_parameter', param: 'messages.1.role' });
    expect(
      errorOf(
        await h.post(
          '/chat/completions',
          t.key,
          base({
            messages: [
              { role: 'user', content: 'Hi' },
              { role: 'tool', tool_call_id: 'call_nowhere', content: '{}' },
            ],
          }),
        ),
      ),
    ).toMatchObject({ code: 'invalid_parameter', param: 'messages.1.tool_call_id' });
    expect(errorOf(await h.post('/chat/completions', t.key, base({ tool_choice: 'required' })))).toMatchObject({
      code: 'parameter_conflict',
      param: 'tool_choice',
    });
    expect(errorOf(await h.post('/chat/completions', t.key, base({ model: 'gpt-3.5-turbo' })))).toMatchObject({ code: 'invalid_model', param: 'model' });
    expect(errorOf(await h.post('/chat/completions', t.key, base({ persona_id: 'cp_missing' })))).toEqual({
      type: 'not_found',
      code: 'resource_not_found',
      param: 'persona_id',
    });
  });

  it('streams unnamed chunks: the role first, text in choices[0].delta.content, finish_reason, the usage chunk, [DONE]', async () => {
    const before = await balanceOf(h, t.accountId);
    const res = await h.post('/chat/completions', t.key, base({ stream: true, stream_options: { include_usage: true } }));
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    const all = events(res.text);
    expect(all.every((e) => e.event === null)).toBe(true);
    expect(new Set(all.map((e) => e.data.id)).size).toBe(1);
    expect(all[0]?.data.choices[0].delta).toEqual({ role: 'assistant', content: '' });
    const text = all.map((e) => e.data.choices[0]?.delta.content ?? '').join('');
    expect(text.length).toBeGreaterThan(10);
    const finish = all.at(-2)?.data;
    expect(finish.choices[0]).toMatchObject({ delta: {}, finish_reason: 'stop' });
    const usageChunk = all.at(-1)?.data;
    expect(usageChunk.choices).toEqual([]);
    expect(usageChunk.usage.credits_used).toBe(creditsForTokens(usageChunk.usage.total_tokens));
    expect(await balanceOf(h, t.accountId)).toBe(before - usageChunk.usage.credits_used);
    // The same request without streaming gives the same text (the offline engine is deterministic).
    const plain = await h.post('/chat/completions', t.key, base());
    expect(plain.body.choices[0].message.content).toBe(text);
  });

  it('streams tool calls: id, type and name first, then argument pieces matched by index', async () => {
    const res = await h.post('/chat/completions', t.key, base({ stream: true, tools: [quoteTool], tool_choice: 'required' }));
    const deltas = events(res.text).flatMap((e) => e.data.choices[0]?.delta.tool_calls ?? []);
    expect(deltas[0]).toMatchObject({ index: 0, id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'get_price_quote' } });
    const args = deltas.map((delta: any) => delta.function?.arguments ?? '').join('');
    expect(() => JSON.parse(args)).not.toThrow();
    expect(events(res.text).at(-1)?.data.choices[0].finish_reason).toBe('tool_calls');
  });
});

describe('on the OpenAI-compatible engine', () => {
  it('sends system text after the persona’s prompt and maps the upstream’s usage', async () => {
    fake.enqueue({ content: 'Two percent per cover is too much for me.', usage: { prompt_tokens: 900, completion_tokens: 20 } });
    const res = await onUpstream(() => h.post('/chat/completions', t.key, base({ reasoning_effort: 'high', temperature: 0.3 })));
    const sent = fake.requests.at(-1)!.body;
    expect(sent.messages[0].role).toBe('system');
    expect(
      sent.messages
        .filter((m: any) => m.role === 'system')
        .map((m: any) => m.content)
        .join('\n'),
    ).toContain('Keep it short.');
    expect(sent.temperature).toBe(0.3);
    expect(res.body.choices[0].message.content).toBe('Two percent per cover is too much for me.');
    expect(res.body.usage).toEqual({ prompt_tokens: 900, completion_tokens: 20, total_tokens: 920, credits_used: 10 });
  });

  it('passes the upstream’s chunks through and ends with [DONE]', async () => {
    fake.enqueue({ content: 'No way, not at two percent.' });
    const res = await onUpstream(() => h.post('/chat/completions', t.key, base({ stream: true })));
    const text = events(res.text)
      .map((e) => e.data.choices[0]?.delta.content ?? '')
      .join('');
    expect(text).toBe('No way, not at two percent.');
    expect(res.text.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });

  it('reports a failure after the stream started as one error line, charging nothing', async () => {
    const before = await balanceOf(h, t.accountId);
    fake.enqueue({ content: 'one two three four', cutAfterChunks: 1 });
    const res = await onUpstream(() => h.post('/chat/completions', t.key, base({ stream: true })));
    const last = events(res.text).at(-1)?.data;
    expect(last).toEqual({ object: 'error', error: { type: 'api_error', code: 'upstream_error', message: expect.any(String), param: null } });
    expect(await balanceOf(h, t.accountId)).toBe(before);
    expect((await chargesOf(h, t.accountId)).some((row) => row.requestId === res.headers['x-request-id'])).toBe(false);
  });

  it('maps an upstream failure before the stream to 502 upstream_error', async () => {
    fake.enqueue({ status: 503 });
    const res = await onUpstream(() => h.post('/chat/completions', t.key, base({ stream: true })));
    expect(res.status).toBe(502);
    expect(errorOf(res).code).toBe('upstream_error');
  });
});
