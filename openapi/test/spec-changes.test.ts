// The diff engine on small bundles: which change is breaking in which direction, and what it says.
import { describe, expect, it } from 'vitest';
import { compareContracts, groupChanges, packageSurface } from '../lib/spec-changes.js';

type Doc = Record<string, any>;

/** A bundle with one POST whose body is `Create` and whose 200 returns `Thing` (via refs, as Redocly bundles). */
function bundle({ create = {}, thing = {}, parameters = [] as object[], responses = {} as Record<string, object>, schemas = {} } = {}): Doc {
  return {
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    servers: [{ url: 'https://api.example.com/v1' }],
    paths: {
      '/things': {
        post: {
          operationId: 'createThing',
          parameters,
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Create' } } } },
          responses: {
            '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
            ...responses,
          },
        },
      },
    },
    components: {
      schemas: {
        Create: { type: 'object', additionalProperties: false, required: ['name'], properties: { name: { type: 'string', maxLength: 100 } }, ...create },
        Thing: { type: 'object', required: ['id'], properties: { id: { type: 'string' }, kind: { $ref: '#/components/schemas/Kind' } }, ...thing },
        Kind: { type: 'string', enum: ['a', 'b'] },
        ...schemas,
      },
    },
  };
}

const summary = (base: Doc, head: Doc) => compareContracts(base, head).map((c) => `${c.breaking ? 'BREAKING ' : ''}${c.where}: ${c.message}`);

describe('compareContracts', () => {
  it('finds nothing between a bundle and itself', () => {
    expect(compareContracts(bundle(), bundle())).toEqual([]);
  });

  it('marks a required request field as breaking and an optional one as not, with a reason', () => {
    const head = bundle({
      create: { required: ['name', 'size'], properties: { name: { type: 'string', maxLength: 100 }, size: { type: 'integer' }, note: { type: 'string' } } },
    });
    const changes = compareContracts(bundle(), head);
    expect(changes).toContainEqual({
      operation: 'POST /things',
      where: 'request body',
      field: 'size',
      message: 'required field `size` added',
      breaking: true,
      why: 'Existing clients do not send it, so their requests are refused with a 400.',
    });
    expect(changes).toContainEqual(expect.objectContaining({ field: 'note', message: 'optional field `note` added', breaking: false }));
  });

  it('judges required/optional by direction', () => {
    const base = bundle({ create: { required: [], properties: { name: { type: 'string', maxLength: 100 } } } });
    expect(summary(base, bundle())).toEqual(['BREAKING request body: field `name` made required']);
    const optionalId = bundle({ thing: { required: [] } });
    expect(summary(bundle(), optionalId)).toEqual(['BREAKING response 200: field `id` made optional']);
    expect(summary(optionalId, bundle())).toEqual(['response 200: field `id` made required']);
  });

  it('breaks on a removed response field and on a removed field of a closed request body', () => {
    const head = bundle({ thing: { properties: { id: { type: 'string' } } }, create: { required: [], properties: {} } });
    expect(summary(bundle(), head)).toEqual(
      expect.arrayContaining(['BREAKING request body: field `name` removed', 'BREAKING response 200: field `kind` removed']),
    );
  });

  it('breaks on an enum value removed from a request, not from a response; added values break no one', () => {
    const shared = { Create: { type: 'object', properties: { kind: { $ref: '#/components/schemas/Kind' } } } };
    const base = bundle({ schemas: shared });
    const head = bundle({ schemas: { ...shared, Kind: { type: 'string', enum: ['a', 'c'] } } });
    expect(summary(base, head)).toEqual([
      'BREAKING request body: enum value `b` removed from `kind`',
      'request body: enum value `c` added to `kind`',
      'response 200: enum value `b` removed from `kind`',
      'response 200: enum value `c` added to `kind`',
    ]);
  });

  it('breaks when a request bound tightens or a response bound loosens', () => {
    const head = bundle({
      create: { properties: { name: { type: 'string', maxLength: 50 } } },
      thing: { properties: { id: { type: 'string', maxLength: 64 }, kind: { $ref: '#/components/schemas/Kind' } } },
    });
    expect(summary(bundle(), head)).toEqual(['BREAKING request body: maxLength of `name` changed from 100 to 50', 'response 200: maxLength 64 added to `id`']);
    expect(summary(head, bundle())).toEqual([
      'request body: maxLength of `name` changed from 50 to 100',
      'BREAKING response 200: maxLength 64 removed from `id`',
    ]);
  });

  it('breaks when a response may now be null', () => {
    const head = bundle({ thing: { properties: { id: { type: ['string', 'null'] }, kind: { $ref: '#/components/schemas/Kind' } } } });
    expect(summary(bundle(), head)).toEqual(['BREAKING response 200: type of `id` changed from `string` to `string | null`']);
  });

  it('reports error statuses, parameters, examples and removed operations', () => {
    const limit = { name: 'limit', in: 'query', schema: { type: 'integer' } };
    const head = bundle({
      parameters: [{ ...limit, required: true }],
      responses: { '409': { description: 'conflict' } },
    });
    head.paths['/things'].post.requestBody.content['application/json'].examples = { one: { value: { name: 'x' } } };
    head.paths['/other'] = { get: { operationId: 'getOther', responses: {} } };
    expect(summary(bundle({ parameters: [limit] }), head)).toEqual([
      'BREAKING query parameter limit: query parameter limit made required',
      'request body: examples changed (application/json)',
      'response 409: error response 409 added',
      'operation: operation added',
    ]);
    const removed = bundle();
    delete removed.paths['/things'];
    expect(compareContracts(bundle(), removed)).toEqual([
      { operation: 'POST /things', where: 'operation', field: '', message: 'operation removed', breaking: true, why: 'Clients calling it now get a 404.' },
    ]);
  });

  it('matches union variants by their const tag; a new response variant breaks, a dropped one does not', () => {
    const event = (type: string, extra = {}) => ({ type: 'object', properties: { type: { type: 'string', const: type }, ...extra } });
    const base = bundle({ thing: { oneOf: [event('started'), event('done')] } });
    const head = bundle({ thing: { oneOf: [event('done', { at: { type: 'integer' } }), event('failed')] } });
    expect(summary(base, head)).toEqual([
      'response 200: variant `type: started` removed from the body', // clients never receive it again: harmless
      'response 200: optional field `at` added',
      'BREAKING response 200: variant `type: failed` added to the body',
    ]);
  });

  it('follows self-referencing schemas without looping', () => {
    const tree = { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/components/schemas/Thing' } }, id: { type: 'string' } } };
    const head = bundle({ thing: { ...tree, properties: { ...tree.properties, label: { type: 'string' } } } });
    expect(summary(bundle({ thing: tree }), head)).toEqual(['response 200: optional field `label` added']);
  });
});

describe('response headers and grouping', () => {
  it('compares a shared header once per operation and groups it into one entry', () => {
    const withHeader = (maxLength?: number) => {
      const doc = bundle();
      doc.components.headers = { RequestId: { schema: { type: 'string', ...(maxLength ? { maxLength } : {}) } } };
      doc.paths['/things'].get = { operationId: 'listThings', responses: { '200': { description: 'ok' } } };
      for (const op of [doc.paths['/things'].post, doc.paths['/things'].get]) {
        op.responses['200'].headers = { 'X-Request-Id': { $ref: '#/components/headers/RequestId' } };
      }
      return doc;
    };
    const changes = compareContracts(withHeader(128), withHeader());
    expect(changes.map((c) => `${c.operation} ${c.where}: ${c.message}`)).toEqual([
      'GET /things response header X-Request-Id: maxLength 128 removed from the value',
      'POST /things response header X-Request-Id: maxLength 128 removed from the value',
    ]);
    expect(groupChanges(changes)).toEqual([
      expect.objectContaining({
        operations: ['GET /things', 'POST /things'],
        breaking: true,
        why: 'Clients may now receive values outside the bound they rely on.',
      }),
    ]);
  });
});

describe('packageSurface', () => {
  it('names the exported types and operations that change, and leaves the packages alone for examples only', () => {
    const head = bundle({
      schemas: { Extra: { type: 'string' } },
      create: { properties: { name: { type: 'string', maxLength: 100 }, note: { type: 'string' } } },
    });
    const surface = packageSurface(bundle(), head, compareContracts(bundle(), head));
    expect(surface.types).toMatchObject({ changes: true, exportsAdded: ['Extra'], exportsRemoved: [], changedTypes: ['Create'] });
    expect(surface.client).toEqual({ changes: true, own: [] });

    const examplesOnly = bundle();
    examplesOnly.paths['/things'].post.requestBody.content['application/json'].examples = { one: { value: { name: 'x' } } };
    const unchanged = packageSurface(bundle(), examplesOnly, compareContracts(bundle(), examplesOnly));
    expect(unchanged.types.changes).toBe(false);
    expect(unchanged.client.changes).toBe(false);
  });

  it('notices the client-only inputs: the default server and the operations without an API key', () => {
    const head = bundle();
    head.servers = [{ url: 'https://api.example.com/v2' }];
    head.paths['/things'].post.security = [];
    const surface = packageSurface(bundle(), head, compareContracts(bundle(), head));
    expect(surface.client.own).toEqual(['its default base URL', 'the operations it calls without an API key']);
  });
});
