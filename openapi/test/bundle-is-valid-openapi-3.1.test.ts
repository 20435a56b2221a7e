import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { loadBundle } from './support/bundle.js';

describe('the bundle (dist/openapi.yaml)', () => {
  it('validates against the OpenAPI 3.1 schema', async () => {
    const validator = new Validator();
    const result = await validator.validate(loadBundle());
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('declares OpenAPI 3.1 and the JSON Schema 2020-12 dialect (the default one, not another)', () => {
    const doc = loadBundle();
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    // A custom dialect would change how every schema is read; the server compiles them as 2020-12.
    expect(doc.jsonSchemaDialect ?? 'https://spec.openapis.org/oas/3.1/dialect/base').toBe('https://spec.openapis.org/oas/3.1/dialect/base');
  });

  it('rejects a document that breaks the 3.1 schema (the validator is not vacuous)', async () => {
    const doc = loadBundle();
    const broken = { ...doc, paths: { '/broken': { get: { responses: { '200': { content: {} } } } } } };
    const result = await new Validator().validate(broken);
    expect(result.valid).toBe(false);
  });
});
