import { createRequire } from 'node:module';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSpec, serializerSchema } from '../../src/contract/spec.js';
import { contractUnion } from '../support/contract.js';
import { useHarness, useTenant } from '../support/harness.js';

// Responses are written one byte per character (patches/fast-json-stringify@7.3.6.patch; DECISIONS.md,
// "Responses written one byte per character"): a character above U+00FF in a string is written as a
// \uXXXX escape, so the serializer's output never becomes a two-byte string, which V8 flattens and
// encodes several times slower. The value every client parses is unchanged.

const WIDE = /[\u0100-\uffff]/;

const responseSchema = {
  type: 'object',
  properties: {
    short: { type: 'string' },
    medium: { type: 'string' },
    long: { type: 'string' },
    huge: { type: 'string' },
    list: { type: 'array', items: { type: 'string' } },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    latin1: { type: 'string' },
    plain: { type: 'string' },
  },
} as const;

const wide = 'Pricing — Q3 review’s “notes” 東京 😀';
const payload = {
  short: wide,
  medium: `${wide} with a "quote", a back\\slash and a tab\t, past the 42-character loop`,
  long: `${wide} `.repeat(40),
  huge: `${wide} `.repeat(200),
  list: Array.from({ length: 12 }, (_, i) => `${i} ${wide}`),
  labels: { 'région—clé': 'valeur — 値' },
  latin1: 'Café à la crème, naïve façade',
  plain: 'nothing to escape',
};

describe('the response serializer', () => {
  const app = Fastify();
  app.get('/sample', { schema: { response: { 200: responseSchema } } }, async () => payload);
  app.get('/lone-surrogate', { schema: { response: { 200: responseSchema } } }, async () => ({ short: 'a\ud800b', long: `${'x'.repeat(50)}\udfff` }));
  afterAll(() => app.close());

  it('writes every character above U+00FF as an escape, and the same value parses back', async () => {
    const res = await app.inject({ method: 'GET', url: '/sample' });
    expect(res.statusCode).toBe(200);
    expect(WIDE.test(res.body)).toBe(false);
    expect(JSON.parse(res.body)).toEqual(payload);
    expect(res.body).toContain('Pricing \\u2014 Q3 review\\u2019s \\u201cnotes\\u201d \\u6771\\u4eac \\ud83d\\ude00');
    // The object key goes through the same escape.
    expect(res.body).toContain('"r\u00e9gion\\u2014cl\u00e9"');
  });

  it('leaves Latin-1 and ASCII as they were: raw UTF-8 bytes, no escapes', async () => {
    const res = await app.inject({ method: 'GET', url: '/sample' });
    expect(res.rawPayload.includes(Buffer.from('"Café à la crème, naïve façade"', 'utf8'))).toBe(true);
    expect(res.body).toContain('"plain":"nothing to escape"');
    expect(Number(res.headers['content-length'])).toBe(res.rawPayload.length);
  });

  it('still escapes lone surrogates (well-formed JSON)', async () => {
    const res = await app.inject({ method: 'GET', url: '/lone-surrogate' });
    expect(res.body).toContain('"a\\ud800b"');
    expect(JSON.parse(res.body).long).toBe(`${'x'.repeat(50)}\udfff`);
  });
});

// One harness for the API's own responses below; its tenant has room for a custom persona (300 credits).
const h = useHarness();
const t = useTenant(h, { credits: 1_000 });

describe('the API’s responses', () => {
  it('a base persona with typographic quotes and dashes is written in escapes and reads back the same', async () => {
    const res = await h.get('/personas?limit=50', t.key);
    expect(res.status).toBe(200);
    const stored = JSON.stringify(res.body);
    // The catalog itself has characters above U+00FF (’, –): the test would prove nothing without them.
    expect(WIDE.test(stored)).toBe(true);
    expect(WIDE.test(res.text)).toBe(false);
  });
});

describe('tagged unions in the serializer (serializerSchema)', () => {
  // The serializer Fastify uses, given the contract's union and its rewrite: the same bytes for both kinds.
  const require = createRequire(createRequire(import.meta.url).resolve('fastify'));
  const fastJsonStringify = require('fast-json-stringify') as (schema: object) => (value: unknown) => string;
  const { components } = loadSpec() as unknown as { components: object };

  it('writes a base and a custom persona exactly as the contract’s oneOf does', async () => {
    const custom = await h.post('/personas', t.key, { description: 'Head of people operations at a 300-person logistics company.' });
    expect(custom.status).toBe(200);
    const base = await h.get('/personas/persona_saas_cfo', t.key);
    const original = fastJsonStringify({ ...contractUnion('Persona'), components });
    const rewritten = fastJsonStringify({ ...serializerSchema(contractUnion('Persona')), components });
    for (const persona of [base.body, custom.body]) expect(rewritten(persona)).toBe(original(persona));
    expect(JSON.parse(rewritten(custom.body))).toEqual(custom.body);
    expect(JSON.parse(rewritten(base.body))).toEqual(base.body);
  });

  it('writes a conversation’s user and assistant messages, function calls and their outputs as the contract’s oneOf does', async () => {
    const created = await h.post('/conversations', t.key, {
      items: [
        { role: 'user', content: 'Weather in Paris — and Zürich?' },
        { role: 'system', content: 'Answer briefly.' },
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call_output', call_id: 'call_1', output: '{"temperature":21}' },
        { role: 'assistant', content: 'It is 21 °C in Paris.' },
      ],
    });
    expect(created.status).toBe(200);
    const items = (await h.get(`/conversations/${created.body.id}/items?order=asc`, t.key)).body.data;
    expect(items.map((item: { type: string; role?: string }) => item.role ?? item.type)).toEqual([
      'user',
      'system',
      'function_call',
      'function_call_output',
      'assistant',
    ]);
    const original = fastJsonStringify({ ...contractUnion('ResponseItem'), components });
    const rewritten = fastJsonStringify({ ...serializerSchema(contractUnion('ResponseItem')), components });
    for (const item of items) {
      expect(rewritten(item)).toBe(original(item));
      expect(JSON.parse(rewritten(item))).toEqual(item);
    }
  });

  it('writes a response’s message and function call items as the contract’s oneOf does', async () => {
    const res = await h.post('/responses', t.key, {
      model: 'service-1',
      persona_id: 'persona_saas_cfo',
      input: 'What is the weather in Paris?',
      tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }],
      tool_choice: 'required',
    });
    expect(res.status).toBe(200);
    const original = fastJsonStringify({ ...contractUnion('ResponseOutputItem'), components });
    const rewritten = fastJsonStringify({ ...serializerSchema(contractUnion('ResponseOutputItem')), components });
    const message = {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'Hi — there', annotations: [] }],
    };
    const items = [...res.body.output, message];
    expect(items.map((item: { type: string }) => item.type)).toContain('function_call');
    for (const item of items) {
      expect(rewritten(item)).toBe(original(item));
      expect(JSON.parse(rewritten(item))).toEqual(item);
    }
  });
});
