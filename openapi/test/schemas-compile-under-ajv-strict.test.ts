// The server compiles the bundle's schemas with Ajv 2020 in strict mode; anything Ajv refuses there (the
// 3.0 `example` keyword, an undeclared extension keyword, `required` naming an undefined property, a
// discriminator Ajv cannot handle, an unknown format) fails here first.
import { describe, expect, it } from 'vitest';
import { createSchemaCompiler } from './support/ajv.js';
import { loadBundle } from './support/bundle.js';

const doc = loadBundle();
const names = Object.keys(doc.components?.schemas ?? {});

describe('component schemas under Ajv 2020 strict', () => {
  const compiler = createSchemaCompiler(doc);

  it('the bundle has component schemas', () => {
    expect(names.length).toBeGreaterThan(0);
  });

  // The error names the component at fault (`urn:persona-api:schemas:X`), which may be one this one uses.
  const compileError = (name: string) => {
    try {
      compiler.compileAt(['components', 'schemas', name]);
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  };

  it.each(names)('%s compiles', (name) => {
    expect(compileError(name)).toBeUndefined();
  });
});

describe('the strict compiler itself', () => {
  const withSchema = (schema: object) => ({ ...doc, components: { ...doc.components, schemas: { Probe: schema } } });

  it('rejects the OpenAPI 3.0 `example` keyword', () => {
    const compiler = createSchemaCompiler(withSchema({ type: 'string', maxLength: 5, example: 'abc' }));
    expect(() => compiler.compileAt(['components', 'schemas', 'Probe'])).toThrow(/example/);
  });

  it('rejects an unknown format', () => {
    const compiler = createSchemaCompiler(withSchema({ type: 'string', format: 'not-a-format' }));
    expect(() => compiler.compileAt(['components', 'schemas', 'Probe'])).toThrow(/format/);
  });

  it('accepts union types with null, x- keywords and a discriminated oneOf', () => {
    const compiler = createSchemaCompiler(
      withSchema({
        type: 'object',
        'x-free-form': false,
        discriminator: { propertyName: 'type' },
        oneOf: [
          { type: 'object', required: ['type'], properties: { type: { const: 'a' }, v: { type: ['string', 'null'], maxLength: 3 } } },
          { type: 'object', required: ['type'], properties: { type: { const: 'b' } } },
        ],
      }),
    );
    const validate = compiler.compileAt(['components', 'schemas', 'Probe']);
    expect(validate({ type: 'a', v: null })).toBe(true);
    expect(validate({ type: 'c' })).toBe(false);
  });
});
