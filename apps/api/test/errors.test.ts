import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMIT_BYTES } from '../src/app.js';
import { notImplemented } from '../src/resources/index.js';
import { errorOf, Harness, type Tenant } from './support/harness.js';

// Every failure answers the contract's envelope with the documented status, and no
// stack trace or SQL text reaches the client.

let h: Harness;
let alice: Tenant;
const sqlLeak = 'duplicate key value violates unique constraint "secret_idx" at SELECT * FROM accounts';

beforeAll(async () => {
  h = await Harness.create({
    handlers: {
      // Stands in for any bug deep in a handler: the message must stay in the log.
      getUsage: async () => {
        const err = new Error(sqlLeak);
        throw err;
      },
      // Stands in for an operation whose issue has not landed.
      listModels: notImplemented,
      // Stands in for a write racing a delete: the workspace it checked is gone when it inserts.
      getModel: async (_input, ctx) => {
        await ctx.db.execute(
          sql`insert into folders (id, workspace_id, name, created_at, updated_at) values ('fld_raced', 'ws_deletedmeanwhile', 'Raced', now(), now())`,
        );
        throw new Error('unreachable: the insert fails');
      },
    },
  });
  alice = await h.tenant();
});
afterAll(() => h.close());

describe('schema validation', () => {
  it('names a query parameter that is out of bounds', async () => {
    const res = await h.get('/workspaces?limit=101', alice.key);
    expect(res.status).toBe(400);
    expect(errorOf(res)).toEqual({ type: 'invalid_request_error', code: 'invalid_parameter', param: 'limit' });
    expect(res.body.error.message).toBe('limit must be <= 100');
  });

  it('rejects a non-integer limit instead of truncating it', async () => {
    const res = await h.get('/workspaces?limit=2.5', alice.key);
    expect(res.status).toBe(400);
    expect(errorOf(res).param).toBe('limit');
  });

  it('names a missing body field', async () => {
    const res = await h.post('/workspaces', alice.key, { type: 'user' });
    expect(res.status).toBe(400);
    expect(errorOf(res)).toEqual({ type: 'invalid_request_error', code: 'missing_parameter', param: 'name' });
  });

  it('names an unknown body field instead of dropping it', async () => {
    const res = await h.post('/workspaces', alice.key, { name: 'Ok', colour: 'blue' });
    expect(res.status).toBe(400);
    expect(errorOf(res)).toEqual({ type: 'invalid_request_error', code: 'unknown_parameter', param: 'colour' });
  });

  it('does not coerce JSON body types', async () => {
    const res = await h.post('/workspaces', alice.key, { name: 5 });
    expect(res.status).toBe(400);
    expect(errorOf(res)).toEqual({ type: 'invalid_request_error', code: 'invalid_parameter', param: 'name' });
  });

  it('names a bad value of an enum field', async () => {
    const res = await h.post('/workspaces', alice.key, { name: 'Ok', type: 'galaxy' });
    expect(res.status).toBe(400);
    expect(errorOf(res).param).toBe('type');
  });

  it('names a header parameter by the name the contract spells', async () => {
    const res = await h.post('/workspaces', alice.key, { name: 'Ok' }, { 'idempotency-key': 'has spaces' });
    expect(res.status).toBe(400);
    expect(errorOf(res)).toEqual({ type: 'invalid_request_error', code: 'invalid_parameter', param: 'Idempotency-Key' });
  });

  it('names a path parameter', async () => {
    const res = await h.get(`/workspaces/${'x'.repeat(65)}`, alice.key);
    expect(res.status).toBe(400);
    expect(errorOf(res).param).toBe('id');
  });

  it('refuses an empty PATCH', async () => {
    const res = await h.patch(`/workspaces/${alice.workspaceId}`, alice.key, {});
    expect(res.status).toBe(400);
    expect(errorOf(res).code).toBe('invalid_parameter');
  });

  it('asks for a JSON body when a required body is missing', async () => {
    const res = await h.request('POST', '/workspaces', { key: alice.key, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(errorOf(res)).toEqual({ type: 'invalid_request_error', code: 'invalid_json', param: null });
  });

  it('takes an empty JSON body as no body where the operation has none (a client that sets Content-Type on every call)', async () => {
    const json = { 'content-type': 'application/json' };
    expect((await h.request('GET', '/workspaces', { key: alice.key, headers: json })).status).toBe(200);
    const project = await h.post('/projects', alice.key, { workspace_id: alice.workspaceId, name: 'Short-lived' });
    const deleted = await h.request('DELETE', `/projects/${project.body.id}`, { key: alice.key, headers: json });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ id: project.body.id, deleted: true });
    // A body the operation does not take is still refused when it is not JSON.
    const broken = await h.request('DELETE', `/projects/${project.body.id}`, { key: alice.key, rawBody: '{', headers: json });
    expect(errorOf(broken).code).toBe('invalid_json');
  });
});

describe('a write racing a delete', () => {
  it('answers the 404 the request would have got a moment later, naming the parameter, not a 500', async () => {
    const res = await h.get('/models/service-1', alice.key);
    expect(res.status).toBe(404);
    expect(errorOf(res)).toEqual({ type: 'not_found', code: 'resource_not_found', param: 'workspace_id' });
    expect(res.body.error.message).toBe('The resource named by workspace_id was deleted while the request ran.');
  });
});

describe('transport errors', () => {
  it('answers an unknown route with 404 route_not_found', async () => {
    const res = await h.get('/no-such-thing', alice.key);
    expect(res.status).toBe(404);
    expect(errorOf(res)).toEqual({ type: 'not_found', code: 'route_not_found', param: null });
  });

  it('answers a known path with a wrong method with 405 and Allow', async () => {
    const res = await h.request('PUT', '/workspaces', { key: alice.key, body: {} });
    expect(res.status).toBe(405);
    expect(errorOf(res)).toEqual({ type: 'invalid_request_error', code: 'method_not_allowed', param: null });
    expect(res.headers.allow).toBe('GET, POST');
  });

  it('answers malformed JSON with 400 invalid_json', async () => {
    const res = await h.request('POST', '/workspaces', {
      key: alice.key,
      rawBody: '{"name": "unterminated',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(errorOf(res)).toEqual({ type: 'invalid_request_error', code: 'invalid_json', param: null });
  });

  it('answers a body over 1 MiB with 413 request_too_large', async () => {
    const rawBody = JSON.stringify({ name: 'x'.repeat(BODY_LIMIT_BYTES) });
    const res = await h.request('POST', '/workspaces', { key: alice.key, rawBody, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(413);
    expect(errorOf(res)).toEqual({ type: 'invalid_request_error', code: 'request_too_large', param: null });
  });

  it('answers a non-JSON content type with 415 unsupported_media_type', async () => {
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded']) {
      const res = await h.request('POST', '/workspaces', { key: alice.key, rawBody: 'name=x', headers: { 'content-type': contentType } });
      expect(res.status).toBe(415);
      expect(errorOf(res)).toEqual({ type: 'invalid_request_error', code: 'unsupported_media_type', param: null });
    }
  });
});

describe('resource and server errors', () => {
  it('answers an unknown id with 404 resource_not_found naming the parameter', async () => {
    const res = await h.get('/workspaces/ws_doesnotexist', alice.key);
    expect(res.status).toBe(404);
    expect(errorOf(res)).toEqual({ type: 'not_found', code: 'resource_not_found', param: 'id' });
  });

  it('hides internal errors behind 500 internal_error with the request id', async () => {
    const res = await h.get('/usage', alice.key);
    expect(res.status).toBe(500);
    expect(errorOf(res)).toEqual({ type: 'api_error', code: 'internal_error', param: null });
    expect(res.body.error.message).toContain(String(res.headers['x-request-id']));
    expect(res.text).not.toContain('SELECT');
    expect(res.text).not.toContain('secret_idx');
    expect(res.text).not.toMatch(/at \S+ \(/); // no stack frames
  });

  it('answers an operation that is not implemented yet with 501 not_implemented', async () => {
    const res = await h.get('/models', alice.key);
    expect(res.status).toBe(501);
    expect(errorOf(res)).toEqual({ type: 'api_error', code: 'not_implemented', param: null });
  });
});
