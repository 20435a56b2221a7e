// The reproductions of issue 17, each an assertion: hostile input is a 400 naming the field, never a
// 500, and nothing stored can break a later read. (Every response is also checked against the contract
// by the harness.)
import { describe, expect, it } from 'vitest';
import { errorOf, useHarness, useTenant } from '../support/harness.js';

const h = useHarness();
const t = useTenant(h);

describe('issue 17 defects', () => {
  it('a 600-character description creates a persona that every read still serves', async () => {
    const created = await h.post('/personas', t.key, { description: 'x'.repeat(600) });
    expect(created.status).toBe(200);
    for (const type of ['B2B', 'B2C']) expect((await h.post('/personas', t.key, { description: `${'y'.repeat(900)} team`, type })).status).toBe(200);
    expect((await h.get(`/personas/${created.body.id}`, t.key)).status).toBe(200);
    expect((await h.get('/personas?is_custom=true', t.key)).status).toBe(200);
  });

  it('refuses NUL and unpaired surrogates in bodies, queries and keys with a 400 naming the field', async () => {
    const cases = [
      await h.post('/workspaces', t.key, { name: 'a\u0000b' }),
      await h.request('POST', '/workspaces', { key: t.key, rawBody: '{"name":"x\\ud800y"}', headers: { 'content-type': 'application/json' } }),
      await h.get('/workspaces?search=%00', t.key),
      await h.post('/personas', t.key, { description: 'A buyer of software for fleets.', hints: { role_title: 'x\ud800y' } }),
      await h.post('/responses', t.key, { model: 'service-1', persona_id: 'persona_saas_cfo', input: 'x\ud800y' }),
    ];
    expect(cases.map((r) => [r.status, errorOf(r).code, errorOf(r).param])).toEqual([
      [400, 'invalid_parameter', 'name'],
      [400, 'invalid_parameter', 'name'],
      [400, 'invalid_parameter', 'search'],
      [400, 'invalid_parameter', 'hints.role_title'],
      [400, 'invalid_parameter', 'input'],
    ]);
    const key = await h.request('POST', '/workspaces', { key: t.key, rawBody: '{"name":"ok","k\\u0000":1}', headers: { 'content-type': 'application/json' } });
    expect(key.status).toBe(400);
    const deep = await h.request('POST', '/workspaces', {
      key: t.key,
      rawBody: `{"name":${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(errorOf(deep)).toMatchObject({ code: 'invalid_parameter' });
  });

  it('refuses limit=Infinity and other non-finite numbers', async () => {
    for (const value of ['Infinity', '-Infinity', '1e400']) {
      const res = await h.get(`/workspaces?limit=${value}`, t.key);
      expect(res.status).toBe(400);
      expect(errorOf(res)).toEqual({ type: 'invalid_request_error', code: 'invalid_parameter', param: 'limit' });
    }
  });

  it('answers router errors in the envelope with the request id and rate-limit headers', async () => {
    const badUrl = await h.get('/workspaces/%ZZ', t.key);
    const longParam = await h.get(`/workspaces/${'a'.repeat(201)}`, t.key);
    for (const res of [badUrl, longParam]) {
      expect(res.status).toBe(400);
      expect(res.headers['x-request-id']).toMatch(/^req_/);
      expect(res.headers['ratelimit-limit']).toBeDefined();
    }
    expect(errorOf(longParam).param).toBe('id');
    expect((await h.get('/workspaces/%ZZ')).status).toBe(401);
  });

  it('bounds an unknown field name in the message and param', async () => {
    const res = await h.post('/workspaces', t.key, { name: 'x', ['k'.repeat(500)]: 1 });
    expect(errorOf(res).code).toBe('unknown_parameter');
    expect(res.body.error.message.length).toBeLessThan(120);
    expect(errorOf(res).param?.length).toBeLessThanOrEqual(64);
  });
});
