// The structured-output primitive on both engines: the offline engine calls the feature's offline
// implementation; the OpenAI-compatible engine (against the fake upstream) sends the prompt with the
// schema as json_schema response_format, validates, retries once, then fails with a typed error.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createOfflineEngine, createOpenAICompatibleEngine, defineFeature, EngineError, type Engine } from '../../src/index.js';
import { startFakeUpstream, type FakeUpstream } from '../../src/testing/index.js';

const API_KEY = 'sk-test-abcdefghijklmnop1234';

interface PitchInput {
  pitch: string;
}

// A feature whose schema is zod: the reply is parsed by it, so `output` is typed.
const verdict = defineFeature({
  name: 'pitch_verdict',
  schema: z.object({ verdict: z.enum(['buy', 'pass']), reason: z.string().min(1) }),
  prompt: ({ pitch }: PitchInput) => [
    { role: 'system', content: 'Decide whether you would buy.' },
    { role: 'user', content: pitch },
  ],
  offline: ({ pitch }: PitchInput, { seed }) => ({ verdict: pitch.includes('free') ? ('buy' as const) : ('pass' as const), reason: `offline, seed ${seed}` }),
});

// A feature with a plain JSON Schema and a mapping that enforces a rule the model cannot be trusted with.
const shout = defineFeature<PitchInput, { text: string }>({
  name: 'shout',
  schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
  prompt: ({ pitch }) => [{ role: 'user', content: pitch }],
  fromReply: (reply) => {
    const text = String(reply.text);
    if (text !== text.toUpperCase()) throw new EngineError('structured_output_invalid', 'The text is not in capitals.');
    return { text };
  },
  offline: ({ pitch }) => ({ text: pitch.toUpperCase() }),
});

async function caught(promise: Promise<unknown>): Promise<EngineError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof EngineError) return error;
    throw error;
  }
  throw new Error('expected an EngineError');
}

describe('engine.run on the offline engine', () => {
  const engine = createOfflineEngine({ seed: 7 });

  it("returns the feature's offline output with the seed, and tokenizer usage", async () => {
    const { output, usage } = await engine.run(verdict, { pitch: 'Try it free for a month.' });
    expect(output).toEqual({ verdict: 'buy', reason: 'offline, seed 7' });
    expect(usage.source).toBe('tokenizer');
    expect(usage.input_tokens).toBeGreaterThan(0);
    expect(usage.output_tokens).toBeGreaterThan(0);
  });

  it('rejects with aborted when the signal has fired', async () => {
    const controller = new AbortController();
    controller.abort();
    expect((await caught(engine.run(verdict, { pitch: 'x' }, { signal: controller.signal }))).code).toBe('aborted');
  });
});

describe('engine.run on the OpenAI-compatible engine', () => {
  let fake: FakeUpstream;
  let engine: Engine;

  beforeAll(async () => {
    fake = await startFakeUpstream({ apiKey: API_KEY });
    engine = createOpenAICompatibleEngine({
      baseUrl: fake.baseUrl,
      apiKey: API_KEY,
      model: 'fake-model-1',
      timeoutMs: 2000,
      reasoning: false,
      contextWindow: 128000,
      maxOutputTokens: 32768,
    });
  });
  afterAll(() => fake.close());
  beforeEach(() => {
    fake.requests.length = 0;
    fake.setDefault(null);
  });

  it('sends the prompt with the schema as json_schema response_format and returns the parsed reply', async () => {
    fake.enqueue({ content: '{"verdict":"pass","reason":"No payback data."}', usage: { prompt_tokens: 12, completion_tokens: 5 } });
    const { output, usage } = await engine.run(verdict, { pitch: 'Our tool saves time.' });
    expect(output).toEqual({ verdict: 'pass', reason: 'No payback data.' });
    expect(usage).toMatchObject({ input_tokens: 12, output_tokens: 5, source: 'upstream' });
    const body = fake.requests[0]!.body;
    expect(body.messages).toEqual([
      { role: 'system', content: 'Decide whether you would buy.' },
      { role: 'user', content: 'Our tool saves time.' },
    ]);
    expect(body.response_format.type).toBe('json_schema');
    expect(body.response_format.json_schema.name).toBe('pitch_verdict');
    expect(body.response_format.json_schema.schema).toMatchObject({
      type: 'object',
      required: ['verdict', 'reason'],
      properties: { verdict: { enum: ['buy', 'pass'] } },
    });
  });

  it('asks again once with the validation errors when the reply is invalid, and sums the usage', async () => {
    fake.enqueue(
      { content: '{"verdict":"maybe"}', usage: { prompt_tokens: 10, completion_tokens: 3 } },
      { content: '{"verdict":"buy","reason":"Fine."}', usage: { prompt_tokens: 20, completion_tokens: 4 } },
    );
    const { output, usage } = await engine.run(verdict, { pitch: 'Buy?' });
    expect(output).toEqual({ verdict: 'buy', reason: 'Fine.' });
    expect(usage).toMatchObject({ input_tokens: 30, output_tokens: 7 });
    expect(fake.requests).toHaveLength(2);
    const retry = fake.requests[1]!.body.messages;
    expect(retry.at(-2)).toEqual({ role: 'assistant', content: '{"verdict":"maybe"}' });
    expect(retry.at(-1).content).toMatch(/does not match the schema/);
  });

  it('fails with structured_output_invalid, carrying the usage, when the retry is invalid too', async () => {
    fake.enqueue(
      { content: 'not json', usage: { prompt_tokens: 10, completion_tokens: 2 } },
      { content: '{"verdict":"maybe"}', usage: { prompt_tokens: 15, completion_tokens: 3 } },
    );
    const error = await caught(engine.run(verdict, { pitch: 'Buy?' }));
    expect(error.code).toBe('structured_output_invalid');
    expect(error.status).toBe(502);
    expect(error.message).toMatch(/pitch_verdict/);
    expect(error.usage).toMatchObject({ input_tokens: 25, output_tokens: 5 });
    expect(fake.requests).toHaveLength(2);
  });

  it("reports an error of the feature's own mapping with the call's usage", async () => {
    fake.enqueue({ content: '{"text":"quiet"}', usage: { prompt_tokens: 8, completion_tokens: 2 } });
    const error = await caught(engine.run(shout, { pitch: 'hello' }));
    expect(error.code).toBe('structured_output_invalid');
    expect(error.message).toBe('The text is not in capitals.');
    expect(error.usage).toMatchObject({ input_tokens: 8, output_tokens: 2 });
  });

  it('rejects with aborted when the signal fires during the call, or has fired before it', async () => {
    fake.enqueue({ hang: true });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    expect((await caught(engine.run(verdict, { pitch: 'Buy?' }, { signal: controller.signal }))).code).toBe('aborted');

    fake.requests.length = 0;
    expect((await caught(engine.run(verdict, { pitch: 'Buy?' }, { signal: AbortSignal.abort() }))).code).toBe('aborted');
    expect(fake.requests).toHaveLength(0);
  });
});
