// The shared Ajv of the contract (`@persona-api/openapi/ajv`), on tiny documents: what strict mode
// refuses, what both modes accept, how refs and locations resolve, and the error lines.
import { describe, expect, it } from 'vitest';
import { createContractAjv, extensionKeywords, formatErrors, validationErrors } from '@persona-api/openapi/ajv';

const withSchemas = (schemas: Record<string, unknown>, paths: Record<string, unknown> = {}) => ({
  openapi: '3.1.0',
  info: { title: 'probe', version: '1' },
  paths,
  components: { schemas },
});

describe('strict mode', () => {
  it('rejects the OpenAPI 3.0 `example` keyword', () => {
    const contractAjv = createContractAjv(withSchemas({ Probe: { type: 'string', maxLength: 5, example: 'abc' } }));
    expect(() => contractAjv.validatorForComponent('Probe')).toThrow(/example/);
  });

  it('rejects an unknown format', () => {
    const contractAjv = createContractAjv(withSchemas({ Probe: { type: 'string', format: 'not-a-format' } }));
    expect(() => contractAjv.validatorForComponent('Probe')).toThrow(/format/);
  });

  it('accepts union types with null, x- keywords and a discriminated oneOf', () => {
    const contractAjv = createContractAjv(
      withSchemas({
        Probe: {
          type: 'object',
          'x-free-form': false,
          discriminator: { propertyName: 'type' },
          oneOf: [
            { type: 'object', required: ['type'], properties: { type: { const: 'a' }, v: { type: ['string', 'null'], maxLength: 3 } } },
            { type: 'object', required: ['type'], properties: { type: { const: 'b' } } },
          ],
        },
      }),
    );
    const validate = contractAjv.validatorForComponent('Probe');
    expect(validate({ type: 'a', v: null })).toBe(true);
    expect(validate({ type: 'c' })).toBe(false);
  });

  it("reads a discriminator Ajv cannot handle as an annotation when ajvOptions turn Ajv's own off", () => {
    const doc = withSchemas({
      Probe: {
        type: 'object',
        discriminator: { propertyName: 'type', mapping: { a: '#/components/schemas/A' } },
        oneOf: [{ $ref: '#/components/schemas/A' }],
      },
      A: { type: 'object', required: ['type'], properties: { type: { const: 'a' } } },
    });
    expect(() => createContractAjv(doc).validatorForComponent('Probe')).toThrow(/mapping/);
    const validate = createContractAjv(doc, { ajvOptions: { discriminator: false } }).validatorForComponent('Probe');
    expect([validate({ type: 'a' }), validate({ type: 'b' })]).toEqual([true, false]);
  });
});

describe('lenient mode', () => {
  it('compiles what strict mode refuses and still validates the data', () => {
    const contractAjv = createContractAjv(withSchemas({ Probe: { type: 'string', maxLength: 5, example: 'abc' } }), { strict: false });
    expect(validationErrors(contractAjv.validatorForComponent('Probe'), 'abc')).toEqual([]);
    expect(validationErrors(contractAjv.validatorForComponent('Probe'), 'abcdef')).toEqual(['(root) must NOT have more than 5 characters']);
  });
});

describe('resolving schemas of the document', () => {
  const listSchema = { type: 'array', maxItems: 2, items: { $ref: '#/components/schemas/Thing' } };
  const doc = withSchemas(
    {
      Id: { type: 'string', pattern: '^[a-z]+$', maxLength: 8 },
      Thing: { type: 'object', additionalProperties: false, required: ['id'], properties: { id: { $ref: '#/components/schemas/Id' } } },
    },
    {
      '/things/{id}': {
        get: {
          responses: {
            '200': { description: 'ok', content: { 'application/json': { schema: listSchema } } },
          },
        },
      },
    },
  );
  const contractAjv = createContractAjv(doc);

  it('finds a component, a subschema of one, and an inline schema by pointer or path', () => {
    expect(contractAjv.validatorForComponent('Thing')({ id: 'abc' })).toBe(true);
    expect(contractAjv.validatorAt('#/components/schemas/Thing/properties/id')('ABC')).toBe(false);
    const pointer = '/paths/~1things~1{id}/get/responses/200/content/application~1json/schema';
    expect(validationErrors(contractAjv.validatorAt(pointer), [{ id: 'abc' }, { id: 'a1' }])).toEqual(['/1/id must match pattern "^[a-z]+$"']);
    expect(contractAjv.validatorAt(['paths', '/things/{id}', 'get', 'responses', '200', 'content', 'application/json', 'schema'])).toBe(
      contractAjv.validatorAt(pointer),
    );
  });

  it('compiles each schema once', () => {
    expect(contractAjv.validatorForSchema(listSchema)).toBe(
      contractAjv.validatorAt(['paths', '/things/{id}', 'get', 'responses', '200', 'content', 'application/json', 'schema']),
    );
    expect(contractAjv.validatorForSchema({ ...listSchema })).not.toBe(contractAjv.validatorForSchema(listSchema));
    expect(contractAjv.validatorForComponent('Thing')).toBe(contractAjv.validatorAt('#/components/schemas/Thing'));
  });

  it('says when there is no such schema', () => {
    expect(() => contractAjv.validatorForComponent('Missing')).toThrow(/No component schema Missing/);
    expect(() => contractAjv.validatorAt('/paths/~1nowhere/get')).toThrow(/No schema at #\/paths\/~1nowhere\/get/);
  });
});

describe('helpers', () => {
  it('lists the x- keywords used in schemas, and only there', () => {
    const doc = { ...withSchemas({ A: { type: 'object', 'x-b': 1, properties: { c: { type: 'string', 'x-a': true } } } }), 'x-top-level': 1 };
    expect(extensionKeywords(doc)).toEqual(['x-a', 'x-b']);
  });

  it('formats errors as lines, naming a forbidden property', () => {
    const validate = createContractAjv(
      withSchemas({ T: { type: 'object', additionalProperties: false, properties: { a: { type: 'integer' } } } }),
    ).validatorForComponent('T');
    expect(validate({ a: 'x', extra: 1 })).toBe(false);
    expect(formatErrors(validate.errors)).toEqual(['(root) must NOT have additional properties (extra)', '/a must be integer']);
    expect(formatErrors(null)).toEqual([]);
  });
});
