// The server compiles the bundle's schemas with Ajv 2020 in strict mode; anything Ajv refuses there (the
// 3.0 `example` keyword, an undeclared extension keyword, `required` naming an undefined property, a
// discriminator Ajv cannot handle, an unknown format) fails here first. The strict compiler itself is
// tested in contract-ajv.test.ts.
import { describe, expect, it } from 'vitest';
import { createContractAjv } from '@persona-api/openapi/ajv';
import { loadBundle } from './support/bundle.js';

const doc = loadBundle();
const names = Object.keys(doc.components?.schemas ?? {});

describe('component schemas under Ajv 2020 strict', () => {
  const contractAjv = createContractAjv(doc);

  it('the bundle has component schemas', () => {
    expect(names.length).toBeGreaterThan(0);
  });

  // The error names the component at fault (`urn:persona-api:schemas:X`), which may be one this one uses.
  const compileError = (name: string) => {
    try {
      contractAjv.validatorForComponent(name);
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  };

  it.each(names)('%s compiles', (name) => {
    expect(compileError(name)).toBeUndefined();
  });
});
