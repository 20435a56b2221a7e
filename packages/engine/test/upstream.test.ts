import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  basePersonas,
  countTokens,
  createOfflineEngine,
  createOpenAICompatibleEngine,
  enginePersonaFromBase,
  EngineError,
  parseArtifact,
  type Engine,
  type EngineStreamEvent,
  type GenerateRequest,
  type UpstreamConfig,
} from '../src/index.js';
import { startFakeUpstream, type FakeUpstream } from '../src/testing/index.js';
import { contractErrors } from './support/contract.js';

const API_KEY = 'sk-test-abcdefghijklmnop1234';
const cfo = enginePersonaFromBase(basePersonas.find((entry) => entry.id === 'persona_saas_cfo')!);
const weatherTool = {
  name: 'get_weather',
  description: 'Get the weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
};

let fake: FakeUpstream;
let config: UpstreamConfig;
let engine: Engine;

beforeAll(async () => {
  fake = await startFakeUpstream({ apiKey: API_KEY });
  config = { baseUrl: fake.baseUrl, apiKey: API_KEY, model: 'fake-model-1', timeoutMs: 2000, reasoning: false, contextWindow: 128000, maxOutputTokens: 32768 };
  engine = createOpenAICompatibleEngine(config);
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
  fake.setDefault(null);
});

const ask = (content: string, extra: Partial<GenerateRequest> = {}): GenerateRequest => ({
  persona: cfo,
  instructions: 'Keep it short.',
  messages: [{ role: 'user', content }],
  ...extra,
});

async function collect(stream: AsyncIterable<EngineStreamEvent>) {
  const events: EngineStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

async function caught(promise: Promise<unknown>): Promise<EngineError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof EngineError) return error;
    throw error;
  }
  throw new Error('expected an EngineError');
}

describe('openai-compatible engine: requests', () => {
  it('sends the persona prompt then the instructions as the system message, with the key and model', async () => {
    fake.enqueue({ content: 'Show me the payback.', usage: { prompt_tokens: 321, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 300 } } });
    const result = await engine.generate(ask('Would you buy our tool?', { temperature: 0.2, max_output_tokens: 100, verbosity: 'low' }));
    expect(result).toMatchObject({ text: 'Show me the payback.', finish_reason: 'stop', model: 'fake-model-1', tool_calls: [], parsed: null, analysis: null });
    expect(result.usage).toEqual({ input_tokens: 321, output_tokens: 5, cached_tokens: 300, reasoning_tokens: 0, source: 'upstream' });
    const [request] = fake.requests;
    expect(request!.path).toBe('/v1/chat/completions');
    expect(request!.headers.authorization).toBe(`Bearer ${API_KEY}`);
    const body = request!.body;
    expect(body).toMatchObject({ model: 'fake-model-1', stream: false, temperature: 0.2, max_tokens: 100 });
    expect(body.reasoning_effort).toBeUndefined();
    expect(body.messages[0].role).toBe('system');
    const system: string = body.messages[0].content;
    expect(system.startsWith(cfo.system_prompt)).toBe(true);
    expect(system.indexOf('Keep it short.')).toBeGreaterThan(cfo.system_prompt.length);
    expect(system).toMatch(/two or three sentences/);
    expect(body.messages[1]).toEqual({ role: 'user', content: 'Would you buy our tool?' });
  });

  it("passes the caller's sampling settings through, and parallel_tool_calls only with tools", async () => {
    fake.enqueue({ content: 'ok' }, { content: 'ok' });
    await engine.generate(ask('Hi', { top_p: 0.3, stop: ['END'], seed: 9, frequency_penalty: 0.5, presence_penalty: -0.5, parallel_tool_calls: false }));
    await engine.generate(ask('Weather in Boston?', { tools: [weatherTool], parallel_tool_calls: false }));
    const [plain, withTools] = fake.requests.map((request) => request.body);
    expect(plain).toMatchObject({ top_p: 0.3, stop: ['END'], seed: 9, frequency_penalty: 0.5, presence_penalty: -0.5 });
    expect(plain.parallel_tool_calls).toBeUndefined();
    expect(withTools.parallel_tool_calls).toBe(false);
  });

  it('drops tool calls beyond max_tool_calls, streamed and not', async () => {
    const calls = [1, 2, 3].map((n) => ({ id: `call_${n}`, name: 'get_weather', arguments: `{"city":"C${n}"}` }));
    fake.enqueue({ tool_calls: calls }, { tool_calls: calls });
    const result = await engine.generate(ask('Weather in three cities?', { tools: [weatherTool], max_tool_calls: 2 }));
    expect(result.tool_calls.map((call) => call.call_id)).toEqual(['call_1', 'call_2']);
    const events = await collect(engine.stream(ask('Weather in three cities?', { tools: [weatherTool], parallel_tool_calls: false })));
    expect(events.filter((event) => event.type === 'tool_call_start')).toHaveLength(1);
    const done = events.find((event) => event.type === 'done');
    expect(done?.type === 'done' && done.result.tool_calls.map((call) => call.call_id)).toEqual(['call_1']);
  });

  it('sends reasoning_effort and max_completion_tokens to a reasoning upstream', async () => {
    fake.enqueue({ content: 'ok' });
    await createOpenAICompatibleEngine({ ...config, reasoning: true }).generate(ask('hi', { reasoning_effort: 'high', max_output_tokens: 50 }));
    expect(fake.requests[0]!.body).toMatchObject({ reasoning_effort: 'high', max_completion_tokens: 50 });
    expect(fake.requests[0]!.body.max_tokens).toBeUndefined();
  });

  it('counts usage with the tokenizer when the upstream reports none', async () => {
    fake.enqueue({ content: 'Walk me through the math.', omitUsage: true });
    const result = await engine.generate(ask('Would you buy our tool?'));
    expect(result.usage.source).toBe('tokenizer');
    expect(result.usage.output_tokens).toBe(countTokens('Walk me through the math.'));
    expect(result.usage.input_tokens).toBeGreaterThan(countTokens(cfo.system_prompt));
  });

  it('sends through a given fetch instead: answers, streams and error statuses alike', async () => {
    const sent: string[] = [];
    const viaFetch = createOpenAICompatibleEngine(config, {
      fetch: (input, init) => {
        sent.push(String(input));
        return fetch(input, init);
      },
    });
    fake.enqueue({ content: 'Through the given fetch.' });
    expect((await viaFetch.generate(ask('Hello?'))).text).toBe('Through the given fetch.');
    fake.enqueue({ content: 'one two three', tokenDelayMs: 5 });
    const deltas = (await collect(viaFetch.stream(ask('Count')))).filter((event) => event.type === 'text_delta');
    expect(deltas.map((event) => (event as { delta: string }).delta).join('')).toBe('one two three');
    fake.enqueue({ status: 503 });
    expect(await caught(viaFetch.generate(ask('Again?')))).toMatchObject({ code: 'upstream_error', upstream_status: 503 });
    expect(sent).toEqual(Array(3).fill(`${fake.baseUrl}/chat/completions`));
  });

  it('describes itself with the upstream model', () => {
    expect(engine.describe()).toMatchObject({ engine: 'openai-compatible', upstream_model: 'fake-model-1' });
    expect(engine.describe().description).not.toMatch(/not a language model/);
  });
});

describe('openai-compatible engine: streaming', () => {
  it('passes each delta on as it arrives, before the upstream has finished', async () => {
    const content = 'one two three four five six seven eight';
    fake.enqueue({ content, tokenDelayMs: 25, usage: { prompt_tokens: 50, completion_tokens: 8 } });
    const received: number[] = [];
    const deltas: string[] = [];
    let done: EngineStreamEvent | undefined;
    for await (const event of engine.stream(ask('Count to eight'))) {
      if (event.type === 'text_delta') {
        received.push(performance.now());
        deltas.push(event.delta);
      }
      if (event.type === 'done') done = event;
    }
    const [request] = fake.requests;
    expect(request!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(deltas).toEqual(content.match(/\s*\S+\s*/g));
    // The first delta reached the consumer before the fake wrote its last chunk.
    expect(received[0]).toBeLessThan(request!.chunkTimes.at(-1)!);
    expect(received[0]).toBeLessThan(request!.finishedAt!);
    expect(done).toMatchObject({
      type: 'done',
      result: { text: content, finish_reason: 'stop', usage: { input_tokens: 50, output_tokens: 8, source: 'upstream' } },
    });
  });

  it('counts a stream without a usage chunk with the tokenizer', async () => {
    fake.enqueue({ content: 'alpha beta gamma', omitUsage: true });
    const events = await collect(engine.stream(ask('Say three words')));
    const usage = events.find((event) => event.type === 'usage') as { usage: { output_tokens: number; source: string } };
    expect(usage.usage).toMatchObject({ output_tokens: countTokens('alpha beta gamma'), source: 'tokenizer' });
  });

  it('reports a stream cut midway as upstream_error, counting what was sent', async () => {
    fake.enqueue({ content: 'one two three four five six', cutAfterChunks: 3, omitUsage: true });
    const deltas: string[] = [];
    const error = await caught(
      (async () => {
        for await (const event of engine.stream(ask('Count'))) if (event.type === 'text_delta') deltas.push(event.delta);
      })(),
    );
    expect(deltas.join('')).toBe('one two three ');
    expect(error.code).toBe('upstream_error');
    expect(error.status).toBe(502);
    expect(error.usage?.output_tokens).toBe(countTokens('one two three '));
    expect(error.usage?.source).toBe('tokenizer');
  });

  it('reports a stream that ends without finishing as upstream_error', async () => {
    fake.enqueue({ content: 'one two three', cutAfterChunks: 1, cutMode: 'end' });
    const error = await caught(collect(engine.stream(ask('Count'))));
    expect(error.code).toBe('upstream_error');
    expect(error.message).toMatch(/closed the stream/);
  });

  it('closes the upstream connection when the caller aborts, and ends the stream quietly', async () => {
    fake.enqueue({ content: 'a b c d e f g h i j k l m n o p', tokenDelayMs: 30 });
    const controller = new AbortController();
    const events: EngineStreamEvent[] = [];
    for await (const event of engine.stream(ask('Go slowly'), controller.signal)) {
      events.push(event);
      if (events.length === 2) controller.abort();
    }
    expect(events.length).toBe(2);
    const [request] = fake.requests;
    await request!.closed;
    expect(request!.closedEarly).toBe(true);
    expect(request!.finishedAt).toBeNull();
  });

  it('closes the upstream connection when the consumer stops reading', async () => {
    fake.enqueue({ content: 'a b c d e f g h i j k l m n o p', tokenDelayMs: 30 });
    for await (const event of engine.stream(ask('Go slowly'))) if (event.type === 'text_delta') break;
    await fake.requests[0]!.closed;
    expect(fake.requests[0]!.closedEarly).toBe(true);
  });

  it('wraps a streamed artifact in the grammar', async () => {
    fake.enqueue({ content: '# Q3 budget memo\n\nWe hold spend flat.\n\n- Cut two tools' });
    const events = await collect(engine.stream(ask('Write a memo about the Q3 budget', { artifact: true })));
    const text = events
      .filter((event) => event.type === 'text_delta')
      .map((event) => (event as { delta: string }).delta)
      .join('');
    const artifact = parseArtifact(text);
    expect(artifact).toMatchObject({
      identifier: 'q3-budget-memo',
      title: 'Q3 budget memo',
      content: '# Q3 budget memo\n\nWe hold spend flat.\n\n- Cut two tools',
    });
    expect(fake.requests[0]!.body.messages[0].content).toMatch(/standalone Markdown document/);
    expect((events.at(-1) as { result: { text: string } }).result.text).toBe(text);
  });
});

describe('openai-compatible engine: tools', () => {
  it('maps tools and tool_choice, and streams tool-call deltas back', async () => {
    fake.enqueue({ tool_calls: [{ id: 'call_abc123', name: 'get_weather', arguments: '{"city":"Boston"}' }] });
    const events = await collect(engine.stream(ask('Weather in Boston?', { tools: [weatherTool], tool_choice: { name: 'get_weather' } })));
    const body = fake.requests[0]!.body;
    expect(body.tools).toEqual([
      { type: 'function', function: { name: 'get_weather', description: 'Get the weather for a city', parameters: weatherTool.parameters, strict: true } },
    ]);
    expect(body.tool_choice).toEqual({ type: 'function', function: { name: 'get_weather' } });
    expect(events.find((event) => event.type === 'tool_call_start')).toEqual({
      type: 'tool_call_start',
      index: 0,
      call_id: 'call_abc123',
      name: 'get_weather',
    });
    const pieces = events.filter((event) => event.type === 'tool_call_arguments_delta').map((event) => (event as { delta: string }).delta);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe('{"city":"Boston"}');
    expect(events.at(-1)).toMatchObject({
      type: 'done',
      result: { finish_reason: 'tool_calls', tool_calls: [{ call_id: 'call_abc123', name: 'get_weather', arguments: '{"city":"Boston"}' }] },
    });
  });

  it('round-trips a tool result: assistant tool_calls and the tool message go back upstream', async () => {
    fake.enqueue({ tool_calls: [{ id: 'chatcmpl-tool-77', name: 'get_weather', arguments: '{"city":"Boston"}' }] });
    const first = await engine.generate(ask('Weather in Boston?', { tools: [weatherTool] }));
    expect(first.finish_reason).toBe('tool_calls');
    // A vLLM-style id becomes a contract-shaped call id.
    const call = first.tool_calls[0]!;
    expect(call.call_id).toMatch(/^call_[A-Za-z0-9_-]+$/);
    fake.enqueue({ content: 'Cold. I will stay in.' });
    const second = await engine.generate({
      ...ask('Weather in Boston?', { tools: [weatherTool] }),
      messages: [
        { role: 'user', content: 'Weather in Boston?' },
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', call_id: call.call_id, content: '{"temp_f": 20}' },
      ],
    });
    expect(second.text).toBe('Cold. I will stay in.');
    const messages = fake.requests[1]!.body.messages;
    expect(messages[2]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: call.call_id, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Boston"}' } }],
    });
    expect(messages[3]).toEqual({ role: 'tool', tool_call_id: call.call_id, content: '{"temp_f": 20}' });
  });

  it('does not claim strict mode for a schema OpenAI would refuse as strict', async () => {
    fake.enqueue({ content: 'ok' });
    const loose = { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' }, limit: { type: 'integer' } }, required: ['q'] } };
    await engine.generate(ask('hi', { tools: [loose] }));
    expect(fake.requests[0]!.body.tools[0].function.strict).toBeUndefined();
  });
});

describe('openai-compatible engine: structured output and analysis', () => {
  const schema = {
    type: 'object',
    properties: { verdict: { type: 'string', enum: ['buy', 'pass'] }, reason: { type: 'string' } },
    required: ['verdict', 'reason'],
    additionalProperties: false,
  };
  const format = { type: 'json_schema' as const, name: 'verdict', schema, strict: true };

  it('sends the schema as response_format and returns the parsed object', async () => {
    fake.enqueue({ content: '{"verdict":"pass","reason":"No payback data."}' });
    const result = await engine.generate(ask('Buy?', { response_format: format }));
    expect(fake.requests[0]!.body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'verdict', schema, strict: true } });
    expect(result.parsed).toEqual({ verdict: 'pass', reason: 'No payback data.' });
    expect(result.structured_output_error).toBeNull();
  });

  it('retries once with the validation errors, then reports structured_output_invalid', async () => {
    fake.enqueue(
      { content: '{"verdict":"maybe"}', usage: { prompt_tokens: 10, completion_tokens: 3 } },
      { content: '{"verdict":"buy","reason":"Fine."}', usage: { prompt_tokens: 20, completion_tokens: 4 } },
    );
    const fixed = await engine.generate(ask('Buy?', { response_format: format }));
    expect(fixed.parsed).toEqual({ verdict: 'buy', reason: 'Fine.' });
    expect(fixed.usage).toMatchObject({ input_tokens: 30, output_tokens: 7 });
    const retry = fake.requests[1]!.body.messages;
    expect(retry.at(-2)).toEqual({ role: 'assistant', content: '{"verdict":"maybe"}' });
    expect(retry.at(-1).content).toMatch(/does not match the schema/);

    fake.enqueue({ content: 'not json' }, { content: '{"verdict":"maybe"}' });
    const failed = await engine.generate(ask('Buy?', { response_format: format }));
    expect(failed.parsed).toBeNull();
    expect(failed.structured_output_error).toMatch(/does not match the schema/);
    expect(failed.text).toBe('{"verdict":"maybe"}');
  });

  it('validates a streamed json_schema answer at the end', async () => {
    fake.enqueue({ content: '{"verdict":"pass", "reason":"Too pricey."}' });
    const events = await collect(engine.stream(ask('Buy?', { response_format: format })));
    expect(events.at(-1)).toMatchObject({ type: 'done', result: { parsed: { verdict: 'pass', reason: 'Too pricey.' } } });
  });

  it('asks the upstream for a ResponseAnalysis in analysis mode', async () => {
    const offline = await createOfflineEngine().generate({ ...ask('Limited offer, trusted by thousands!'), analysis: true });
    fake.enqueue(
      { content: 'Not for me.', usage: { prompt_tokens: 100, completion_tokens: 4 } },
      { content: JSON.stringify(offline.analysis), usage: { prompt_tokens: 200, completion_tokens: 150 } },
    );
    const result = await engine.generate({ ...ask('Limited offer, trusted by thousands!'), analysis: true });
    expect(result.analysis).toEqual(offline.analysis);
    expect(contractErrors('ResponseAnalysis', result.analysis)).toEqual([]);
    expect(result.usage).toMatchObject({ input_tokens: 300, output_tokens: 154 });
    expect(fake.requests[1]!.body.response_format.json_schema.name).toBe('response_analysis');
  });

  it('falls back on the lexical analysis when the upstream cannot fill the schema', async () => {
    fake.enqueue({ content: 'Not for me.' }, { content: '{"summary": 5}' }, { content: 'still wrong' });
    const result = await engine.generate({ ...ask('I hate hidden fees.'), analysis: true });
    expect(contractErrors('ResponseAnalysis', result.analysis)).toEqual([]);
    expect(result.analysis!.sentiment.label).toBe('negative');
  });
});

describe('openai-compatible engine: failures', () => {
  it('maps an upstream 500 to upstream_error with the upstream status', async () => {
    fake.enqueue({ status: 500 });
    const error = await caught(engine.generate(ask('hi')));
    expect(error).toMatchObject({ code: 'upstream_error', status: 502, upstream_status: 500 });
    fake.enqueue({ status: 503 });
    const streamed = await caught(collect(engine.stream(ask('hi'))));
    expect(streamed).toMatchObject({ code: 'upstream_error', upstream_status: 503 });
  });

  it('never leaks the API key, even when the upstream quotes it', async () => {
    const wrong = createOpenAICompatibleEngine({ ...config, apiKey: 'sk-wrong-key-0123456789' });
    const error = await caught(wrong.generate(ask('hi')));
    expect(error).toMatchObject({ code: 'upstream_error', upstream_status: 401 });
    const everything = `${error.message} ${error.detail} ${JSON.stringify(error)}`;
    expect(everything).not.toContain('sk-wrong-key-0123456789');
    expect(everything).not.toContain('6789');
    expect(everything).not.toContain(API_KEY);
  });

  it('maps a hanging upstream to upstream_timeout, streamed or not', async () => {
    const impatient = createOpenAICompatibleEngine({ ...config, timeoutMs: 150 });
    fake.enqueue({ hang: true });
    expect(await caught(impatient.generate(ask('hi')))).toMatchObject({ code: 'upstream_timeout', status: 504 });
    fake.enqueue({ hang: true });
    expect(await caught(collect(impatient.stream(ask('hi'))))).toMatchObject({ code: 'upstream_timeout' });
    await Promise.all(fake.requests.map((request) => request.closed));
    expect(fake.requests.every((request) => request.closedEarly)).toBe(true);
  });

  it('maps a stall between chunks to upstream_timeout', async () => {
    const impatient = createOpenAICompatibleEngine({ ...config, timeoutMs: 150 });
    fake.enqueue({ content: 'slow words here', tokenDelayMs: 600 });
    const error = await caught(collect(impatient.stream(ask('hi'))));
    expect(error.code).toBe('upstream_timeout');
    expect(error.usage?.output_tokens).toBe(countTokens('slow '));
  });

  it('maps malformed bodies and unreachable servers to upstream_error', async () => {
    fake.enqueue({ rawBody: '<html>gateway</html>' });
    expect(await caught(engine.generate(ask('hi')))).toMatchObject({ code: 'upstream_error', message: expect.stringMatching(/not JSON/) });
    fake.enqueue({ rawBody: '{"choices": []}' });
    expect(await caught(engine.generate(ask('hi')))).toMatchObject({ code: 'upstream_error', message: expect.stringMatching(/without a message/) });
    fake.enqueue({ rawFirstEvent: '{oops' });
    expect(await caught(collect(engine.stream(ask('hi'))))).toMatchObject({ code: 'upstream_error', message: expect.stringMatching(/not JSON/) });
    const nowhere = createOpenAICompatibleEngine({ ...config, baseUrl: 'http://127.0.0.1:1/v1' });
    expect(await caught(nowhere.generate(ask('hi')))).toMatchObject({ code: 'upstream_error', message: expect.stringMatching(/could not be reached/) });
  });

  it('rejects generate with aborted when the caller aborts mid-request', async () => {
    fake.enqueue({ hang: true });
    const controller = new AbortController();
    const pending = caught(engine.generate(ask('hi'), controller.signal));
    while (fake.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    expect(await pending).toMatchObject({ code: 'aborted' });
    await fake.requests[0]!.closed;
    expect(fake.requests[0]!.closedEarly).toBe(true);
  });
});
