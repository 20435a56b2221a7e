import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { deref } from '@persona-api/openapi/document';
import { describe, expect, it } from 'vitest';
import { loadSpec, withDiscriminatedUnions, withNullableScalars } from '../../src/contract/spec.js';
import { contractUnion } from '../support/contract.js';

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

describe('withDiscriminatedUnions (unions told apart by one constant, as the serializer is given them)', () => {
  const branch = (value: string, extra: Record<string, unknown> = {}) => ({
    type: 'object',
    required: ['type', 'name'],
    properties: { type: { type: 'string', const: value }, name: { type: 'string' } },
    ...extra,
  });

  it('turns a oneOf of objects with a distinct required constant into an if/then/else chain, the last branch at the end', () => {
    const [a, b, c] = [branch('a'), branch('b'), branch('c')];
    expect(withDiscriminatedUnions({ description: 'd', oneOf: [a, b, c] })).toEqual({
      description: 'd',
      if: { type: 'object', properties: { type: { const: 'a' } }, required: ['type'] },
      then: a,
      else: { if: { type: 'object', properties: { type: { const: 'b' } }, required: ['type'] }, then: b, else: c },
    });
  });

  it('leaves a union alone when a branch lacks the constant, does not require it, or repeats a value', () => {
    const notRequired = { ...branch('b'), required: ['name'] };
    const noConstant = { type: 'object', required: ['type'], properties: { type: { type: 'string' } } };
    for (const oneOf of [
      [branch('a'), notRequired],
      [branch('a'), noConstant],
      [branch('a'), branch('a', { description: 'same value' })],
      [branch('a'), { type: 'null' }],
    ]) {
      expect(withDiscriminatedUnions({ oneOf })).toEqual({ oneOf });
    }
  });

  it('tells apart branches sharing one constant by a second (a conversation item: its type, then a message’s role)', () => {
    const message = (roles: string[]) => ({
      type: 'object',
      required: ['type', 'role'],
      properties: { type: { type: 'string', const: 'message' }, role: { type: 'string', enum: roles } },
    });
    const [input, output, call] = [message(['user', 'system']), message(['assistant']), branch('function_call')];
    expect(withDiscriminatedUnions({ oneOf: [input, output, call] })).toEqual({
      if: { type: 'object', properties: { type: { const: 'message' } }, required: ['type'] },
      then: { if: { type: 'object', properties: { role: { enum: ['user', 'system'] } }, required: ['role'] }, then: input, else: output },
      else: call,
    });
    // Two messages whose roles overlap cannot be told apart by a constant: the union stays.
    const overlapping = { oneOf: [message(['user', 'system']), message(['system']), call] };
    expect(withDiscriminatedUnions(overlapping)).toEqual(overlapping);
  });

  it('rewrites the contract’s persona, output-item and conversation-item unions', () => {
    for (const name of ['Persona', 'ResponseOutputItem', 'ResponseItem']) {
      const rewritten = withDiscriminatedUnions(contractUnion(name)) as Record<string, unknown>;
      expect(rewritten.oneOf).toBeUndefined();
      expect(rewritten.if).toBeDefined();
    }
  });
});
