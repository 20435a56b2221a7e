// Every example of the bundle validates against its schema with Ajv 2020 strict: request and response
// media-type examples (component examples included), parameter and header examples, schema-level
// `examples`, and SSE transcripts event by event.
import { describe, expect, it } from 'vitest';
import { createContractAjv } from '@persona-api/openapi/ajv';
import { loadBundle, type OpenApiDocument } from './support/bundle.js';
import { checkExample, collectExamples, parseSse } from './support/examples.js';

const doc = loadBundle();
const cases = collectExamples(doc);

const compilersFor = (d: OpenApiDocument) => ({ strict: createContractAjv(d), lenient: createContractAjv(d, { strict: false }) });

describe('examples of the bundle', () => {
  const compilers = compilersFor(doc);

  it('has examples to check, streams included', () => {
    expect(cases.length).toBeGreaterThan(0);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, example) => {
    expect(checkExample(compilers, example), `${example.at}`).toEqual([]);
  });
});

// The checker run on a tiny document, so that a green run above means something.
const miniDoc = (): OpenApiDocument => ({
  openapi: '3.1.0',
  info: { title: 'mini', version: '1' },
  paths: {
    '/things': {
      post: {
        parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer', maximum: 10 }, example: 50 }],
        requestBody: {
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' }, examples: { bad: { $ref: '#/components/examples/BadThing' } } } },
        },
        responses: {
          '200': {
            description: 'ok',
            content: {
              'application/json': { schema: { $ref: '#/components/schemas/Thing' }, example: { id: 'a' } },
              'text/event-stream': {
                schema: { $ref: '#/components/schemas/Event' },
                examples: {
                  good: { value: 'event: thing.created\ndata: {"type":"thing.created"}\n\ndata: [DONE]\n\n' },
                  no_done: { value: 'event: thing.created\ndata: {"type":"thing.created"}\n\n' },
                  wrong_name: { value: 'event: thing.deleted\ndata: {"type":"thing.created"}\n\ndata: [DONE]\n\n' },
                  bad_payload: { value: 'data: {"type":"other"}\n\ndata: not json\n\ndata: [DONE]\n\n' },
                },
              },
            },
          },
        },
      },
    },
  },
  components: {
    schemas: {
      Thing: { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 3, examples: ['toolong'] } } },
      Event: { type: 'object', required: ['type'], properties: { type: { const: 'thing.created' } } },
    },
    examples: { BadThing: { value: { id: 5 } } },
  },
});

describe('the example checker', () => {
  const doc = miniDoc();
  const compilers = compilersFor(doc);
  const byName = new Map(collectExamples(doc).map((c) => [c.name, c]));
  const problems = (name: string) => {
    const example = byName.get(name);
    if (!example) throw new Error(`no example case "${name}" among: ${[...byName.keys()].join(', ')}`);
    return checkExample(compilers, example);
  };

  it('finds parameter, request (via $ref), response, stream and schema examples', () => {
    expect([...byName.keys()].sort()).toEqual(
      [
        'POST /things parameter limit example',
        'POST /things request application/json example "bad"',
        'POST /things 200 application/json example',
        'POST /things 200 text/event-stream example "good"',
        'POST /things 200 text/event-stream example "no_done"',
        'POST /things 200 text/event-stream example "wrong_name"',
        'POST /things 200 text/event-stream example "bad_payload"',
        'schema #/components/schemas/Thing/properties/id examples[0]',
      ].sort(),
    );
  });

  it('accepts a valid JSON example and a valid stream', () => {
    expect(problems('POST /things 200 application/json example')).toEqual([]);
    expect(problems('POST /things 200 text/event-stream example "good"')).toEqual([]);
  });

  it('rejects invalid parameter, request and schema examples', () => {
    expect(problems('POST /things parameter limit example')).toEqual(['(root) must be <= 10']);
    expect(problems('POST /things request application/json example "bad"')).toEqual(['/id must be string']);
    expect(problems('schema #/components/schemas/Thing/properties/id examples[0]')).toEqual(['(root) must NOT have more than 3 characters']);
  });

  it('rejects a stream without [DONE], with a mismatched event name, or with a bad payload', () => {
    expect(problems('POST /things 200 text/event-stream example "no_done"')).toEqual([
      'the transcript must end with the event `data: [DONE]` (followed by a blank line)',
    ]);
    expect(problems('POST /things 200 text/event-stream example "wrong_name"')).toEqual([
      'event 1 (thing.deleted): the SSE event name must equal the payload\'s type ("thing.created")',
    ]);
    expect(problems('POST /things 200 text/event-stream example "bad_payload"')).toEqual([
      'event 1: /type must be equal to constant',
      'event 2: data is not JSON',
    ]);
  });

  it('parses SSE the way a client does: multi-line data, comments, and only terminated events', () => {
    const events = parseSse(': keep-alive\n\nevent: a\ndata: {"x":\ndata: 1}\n\ndata: [DONE]');
    expect(events).toEqual([{ event: 'a', id: undefined, data: '{"x":\n1}' }]);
  });
});
