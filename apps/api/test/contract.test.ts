import { exampleRequests } from '@persona-api/mock';
import { describe, expect, it } from 'vitest';
import { listOperations, loadSpec } from '../src/contract/spec.js';
import { handlers, notImplemented } from '../src/resources/index.js';
import { errorOf, useHarness, useTenant } from './support/harness.js';

// The server answers every operation of the contract; those whose issue has not
// landed answer 501 with the error envelope. (Every response of every test is also validated
// against the contract by the harness; the run ends with a report of implemented operations.)

const spec = loadSpec();
const operations = listOperations(spec);
const table = handlers as Record<string, unknown>;
const pending = operations.filter((op) => table[op.operationId] === notImplemented);

// One valid request per operation, built from the contract's examples by the same helper the mock
// test, the client's mock run and the docs' code samples use.
const requests = new Map(exampleRequests(spec as Parameters<typeof exampleRequests>[0]).map((request) => [request.operationId, request]));

const h = useHarness();
const t = useTenant(h);

describe('the contract', () => {
  it('has a handler entry for every operation, implemented or pending', () => {
    const missing = operations.filter((op) => typeof table[op.operationId] !== 'function').map((op) => op.operationId);
    expect(missing).toEqual([]);
    expect(Object.keys(table).sort()).toEqual(operations.map((op) => op.operationId).sort());
  });

  it.each(pending.map((op) => [op.operationId, op] as const))('%s answers 501 not_implemented to a valid request', async (_id, op) => {
    const request = requests.get(op.operationId);
    if (!request) throw new Error(`no example request for ${op.operationId}`);
    const body = request.body;
    const res = await h.request(op.method, request.url, {
      key: op.requiresAuth ? t.key : undefined,
      ...(body
        ? {
            rawBody: typeof body.value === 'string' ? body.value : JSON.stringify(body.value),
            headers: { ...request.headers, 'content-type': body.contentType },
          }
        : { headers: request.headers }),
    });
    expect(res.status, res.text).toBe(501);
    expect(errorOf(res)).toEqual({ type: 'api_error', code: 'not_implemented', param: null });
  });
});
