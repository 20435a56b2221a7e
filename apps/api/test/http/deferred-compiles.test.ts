import { describe, expect, it } from 'vitest';
import { DeferredCompiles } from '../../src/http/deferred-compiles.js';
import { errorOf, useHarness, useTenant } from '../support/harness.js';

// Validators and serializers compile at first use (src/http/deferred-compiles.ts); the server compiles the
// rest after it listens. Proven here: an app starts with nothing compiled, a request compiles only what it
// uses and is answered exactly as before (a 400 still names its parameter), and warming up compiles every
// validator and serializer of the contract, strict, without one failing.

const h = useHarness();
const owner = useTenant(h);

describe('deferred compiles', () => {
  it('start with every validator and serializer pending; a request compiles only its own', async () => {
    const compiles = h.app.deferredCompiles;
    // The tenant was made through the database, not the API: nothing has been compiled.
    const atStart = compiles.pending;
    expect(atStart).toBeGreaterThan(200);
    const list = await h.get('/workspaces?limit=1', owner.key);
    expect(list.status).toBe(200);
    expect(list.body.object).toBe('list');
    const afterOne = compiles.pending;
    expect(afterOne).toBeLessThan(atStart);
    expect(atStart - afterOne).toBeLessThan(10);
    // A refused query is answered by the compiled validator's errors, naming the parameter.
    const refused = await h.get('/workspaces?limit=0', owner.key);
    expect(refused.status).toBe(400);
    expect(errorOf(refused)).toMatchObject({ type: 'invalid_request_error', param: 'limit' });
    const created = await h.post('/workspaces', owner.key, { name: 'Deferred', type: 'user', unknown_field: 1 });
    expect(created.status).toBe(400);
    expect(errorOf(created).param).toBe('unknown_field');
  });

  it('warm up compiles every remaining one, strict, one per turn of the event loop', async () => {
    const compiles = h.app.deferredCompiles;
    const before = compiles.pending;
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    const compiled = await compiles.warmUp();
    clearInterval(ticker);
    expect(compiled).toBe(before);
    expect(compiles.pending).toBe(0);
    // Other work ran between the compiles.
    expect(turns).toBeGreaterThan(0);
    // Everything still answers once compiled.
    expect((await h.get('/workspaces?limit=1', owner.key)).status).toBe(200);
  });

  it('stop warming up when asked, and compile a deferred one once whether used or warmed first', async () => {
    const compiles = new DeferredCompiles();
    let runs = 0;
    const serializers = Array.from({ length: 5 }, (_, i) =>
      compiles.serializer(() => {
        runs += 1;
        return (data) => `${i}:${JSON.stringify(data)}`;
      }),
    );
    expect(serializers[3]!({ a: 1 })).toBe('3:{"a":1}');
    expect(runs).toBe(1);
    let asked = 0;
    expect(await compiles.warmUp(() => ++asked > 2)).toBe(2);
    expect(compiles.pending).toBe(2);
    expect(await compiles.warmUp()).toBe(2);
    expect(runs).toBe(5);
    expect(serializers.map((serialize) => serialize(null))).toEqual(['0:null', '1:null', '2:null', '3:null', '4:null']);
    expect(runs).toBe(5);
  });
});
