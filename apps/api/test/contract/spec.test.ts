import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { deref } from '@persona-api/openapi/document';
import { describe, expect, it } from 'vitest';
import { loadSpec, withNullableScalars } from '../../src/contract/spec.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const spec = loadSpec() as unknown as { components: { schemas: Record<string, Record<string, unknown>> } };

/** Every `oneOf: [X, {type: 'null'}]` of the contract, with X resolved, as the serializer sees it after glue dereferences. */
function nullableOneOfs(): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (!node || typeof node !== 'object') return;
    const record = node as Record<string, unknown>;
    const branches = record.oneOf;
    if (Array.isArray(branches) && branches.length === 2 && branches.some((branch) => (branch as { type?: unknown }).type === 'null')) {
      found.push({ ...record, oneOf: branches.map((branch) => deref(spec, branch)) });
    }
    for (const value of Object.values(record)) visit(value);
  };
  visit(spec);
  return found;
}

const SAMPLES: unknown[] = [
  null,
  '',
  'abc',
  'ws_0123456789abcdefghij',
  '2026-11-28T08:50:34.123Z',
  'not a date',
  0,
  1,
  -1,
  1.5,
  2 ** 53,
  true,
  false,
  {},
  [],
  ['a'],
  { id: 'x' },
];

describe('withNullableScalars (the response schemas the serializer is given)', () => {
  const cases = nullableOneOfs();

  it('finds the contract’s nullable scalars (ids, timestamps, counts) and leaves its nullable objects', () => {
    const collapsed = cases.filter((schema) => !('oneOf' in (withNullableScalars(schema) as object)));
    expect(cases.length).toBeGreaterThan(collapsed.length);
    expect(collapsed.length).toBeGreaterThanOrEqual(10);
  });

  it('accepts exactly the values the oneOf accepts, for every nullable of the contract', () => {
    const ajv = addFormats(new Ajv2020({ strict: false, allowUnionTypes: true }));
    let compared = 0;
    for (const schema of cases) {
      const rewritten = withNullableScalars(schema) as Record<string, unknown>;
      if ('oneOf' in rewritten) continue;
      expect(rewritten.type).toEqual([expect.any(String), 'null']);
      const before = ajv.compile(schema);
      const after = ajv.compile(rewritten);
      for (const value of SAMPLES) {
        expect({ schema, value, accepted: after(value) }).toEqual({ schema, value, accepted: before(value) });
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(100);
  });

  it('leaves a nullable object or a union of objects alone', () => {
    const object = { oneOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { type: 'null' }] };
    const union = { oneOf: [{ type: 'string' }, { type: 'integer' }] };
    expect(withNullableScalars(object)).toEqual(object);
    expect(withNullableScalars(union)).toEqual(union);
    expect(withNullableScalars({ oneOf: [{ type: 'null' }, { type: 'string', format: 'date-time', description: 'inner' }], description: 'outer' })).toEqual({
      type: ['string', 'null'],
      format: 'date-time',
      description: 'outer',
    });
  });
});
