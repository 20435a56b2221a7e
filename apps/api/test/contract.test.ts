import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listOperations, loadSpec, type OpenApiDocument } from '../src/contract/spec.js';
import { handlers, notImplemented } from '../src/handlers/index.js';
import { errorOf, Harness, type Tenant } from './support/harness.js';

// Issue point 11: the server answers every operation of the contract; those whose issue has not
// landed answer 501 with the error envelope. (Every response of every test is also validated
// against the contract by the harness; the run ends with a report of implemented operations.)

const spec = loadSpec();
const operations = listOperations(spec);
const table = handlers as Record<string, unknown>;
const pending = operations.filter((op) => table[op.operationId] === notImplemented);

type Json = Record<string, unknown>;

function resolve(value: unknown, document: OpenApiDocument = spec): Json {
  let current = value as Json;
  while (current && typeof current.$ref === 'string') {
    let target: unknown = document;
    for (const part of (current.$ref as string).slice(2).split('/')) target = (target as Json)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    current = target as Json;
  }
  return current;
}

// Every string the contract's examples contain (ids, keys, URLs…): a pool of realistic values.
const exampleStrings = new Set<string>();
(function collect(node: unknown) {
  if (typeof node === 'string') {
    exampleStrings.add(node);
    // URLs carry ids and signatures in their path and query.
    if (/^https?:\/\//.test(node)) {
      const url = new URL(node);
      for (const part of url.pathname.split('/')) exampleStrings.add(decodeURIComponent(part));
      for (const value of url.searchParams.values()) exampleStrings.add(value);
    }
  }
  else if (Array.isArray(node)) node.forEach(collect);
  else if (node && typeof node === 'object') for (const value of Object.values(node)) collect(value);
})(spec.components?.examples);
const ajv = new Ajv2020({ strict: false });

/** A value the parameter's schema accepts: its example or default, else a string from the contract's examples that fits. */
function sample(parameter: Json): unknown {
  const schema = resolve(parameter.schema);
  const examples = (parameter.examples ?? {}) as Record<string, Json>;
  const first = Object.values(examples)[0];
  if (first) return resolve(first).value;
  if (parameter.example !== undefined) return parameter.example;
  if (Array.isArray(schema.examples)) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.type === 'integer' || schema.type === 'number') return schema.minimum ?? 1;
  const fits = ajv.compile({ ...schema, $schema: undefined });
  return [...exampleStrings].find((value) => fits(value)) ?? 'x_1';
}

/** A request the contract accepts, from its parameter and body examples. */
function exampleRequest(op: (typeof operations)[number]) {
  const item = spec.paths?.[op.path] as Json;
  const operation = item[op.method.toLowerCase()] as Json;
  const parameters = [...((item.parameters as unknown[]) ?? []), ...((operation.parameters as unknown[]) ?? [])].map((p) => resolve(p));
  let path = op.path;
  const query = new URLSearchParams();
  for (const parameter of parameters) {
    if (parameter.in === 'path') path = path.replace(`{${parameter.name}}`, encodeURIComponent(String(sample(parameter))));
    else if (parameter.in === 'query' && parameter.required) query.set(String(parameter.name), String(sample(parameter)));
  }
  const body = operation.requestBody ? resolve(operation.requestBody) : undefined;
  const [mediaType, content] = Object.entries((body?.content ?? {}) as Record<string, Json>)[0] ?? [];
  const example = content ? resolve(Object.values((content.examples ?? {}) as Record<string, Json>)[0]).value : undefined;
  return {
    url: `${path}${query.size ? `?${query}` : ''}`,
    mediaType,
    payload: example === undefined ? undefined : typeof example === 'string' ? example : JSON.stringify(example),
  };
}

let h: Harness;
let t: Tenant;

beforeAll(async () => {
  h = await Harness.create();
  t = await h.tenant();
});
afterAll(() => h.close());

describe('the contract', () => {
  it('has a handler entry for every operation, implemented or pending', () => {
    const missing = operations.filter((op) => typeof table[op.operationId] !== 'function').map((op) => op.operationId);
    expect(missing).toEqual([]);
    expect(Object.keys(table).sort()).toEqual(operations.map((op) => op.operationId).sort());
  });

  it.each(pending.map((op) => [op.operationId, op] as const))('%s answers 501 not_implemented to a valid request', async (_id, op) => {
    const request = exampleRequest(op);
    const res = await h.request(op.method, request.url, {
      key: op.requiresAuth ? t.key : undefined,
      ...(request.payload !== undefined ? { rawBody: request.payload, headers: { 'content-type': request.mediaType ?? 'application/json' } } : {}),
    });
    expect(res.status, res.text).toBe(501);
    expect(errorOf(res)).toEqual({ type: 'api_error', code: 'not_implemented', param: null });
  });
});
