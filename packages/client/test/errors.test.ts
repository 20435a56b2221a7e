import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, PersonaApiError, createClient } from '../src/index.js';
import { errorBody, sendJson, startServer, type Handler, type TestServer } from './helpers/server.js';

let server: TestServer | undefined;
afterEach(() => server?.close());

async function clientAnswering(handler: Handler) {
  server = await startServer(handler);
  return createClient({ apiKey: 'svc_live_secret', baseUrl: server.url, maxRetries: 0 });
}

describe('requests', () => {
  it('sends the bearer key, a User-Agent and JSON, and exposes the request id', async () => {
    const client = await clientAnswering((_request, response) =>
      sendJson(response, 200, { id: 'ws_1', object: 'workspace', name: 'N' }, { 'X-Request-Id': 'req_abc123' }),
    );
    const { data, requestId, response } = await client.POST('/workspaces', { body: { name: 'N' } });
    expect(data.object).toBe('workspace');
    expect(requestId).toBe('req_abc123');
    expect(response.status).toBe(200);
    const [request] = server!.requests;
    expect(request).toMatchObject({ method: 'POST', url: '/workspaces', body: '{"name":"N"}' });
    expect(request!.headers.authorization).toBe('Bearer svc_live_secret');
    expect(request!.headers['user-agent']).toMatch(/^persona-api-client\/\d+\.\d+\.\d+/);
    expect(request!.headers['content-type']).toBe('application/json');
  });

  it('serialises path and query parameters', async () => {
    const client = await clientAnswering((_request, response) => sendJson(response, 200, { object: 'list', data: [], has_more: false, next_cursor: null }));
    await client.GET('/workspaces/{id}/members', { params: { path: { id: 'ws 1/x' }, query: { limit: 5 } } });
    expect(server!.requests[0]!.url).toBe('/workspaces/ws%201%2Fx/members?limit=5');
  });

  it('sends binary bodies as they are, with the given Content-Type, and no API key to the upload target', async () => {
    const client = await clientAnswering((_request, response) => sendJson(response, 200, {}));
    await client.PUT('/uploads/{key}', {
      params: { path: { key: 'upl_abcdefghijklmnop.csv' }, query: { expires: 1795019197, signature: 'a'.repeat(64) } },
      body: new Blob(['account,arr\nNorthwind,184000\n']),
      headers: { 'Content-Type': 'text/csv' },
    });
    expect(server!.requests[0]).toMatchObject({ method: 'PUT', body: 'account,arr\nNorthwind,184000\n' });
    expect(server!.requests[0]!.headers['content-type']).toBe('text/csv');
    expect(server!.requests[0]!.headers.authorization).toBeUndefined(); // `security: [{}]`: the signed URL authorises it
    await client.PUT('/uploads/{key}', {
      params: { path: { key: 'upl_abcdefghijklmnop.csv' }, query: { expires: 1795019197, signature: 'a'.repeat(64) } },
      body: 'a,b\n',
      headers: { 'Content-Type': 'text/csv' },
    });
    expect(server!.requests[1]!.body).toBe('a,b\n');
  });
});

describe('error mapping', () => {
  it('throws ApiError with the envelope fields, status and request id', async () => {
    const client = await clientAnswering((_request, response) =>
      sendJson(response, 404, errorBody('not_found', 'resource_not_found', 'No workspace ws_9.', 'id'), { 'X-Request-Id': 'req_404' }),
    );
    const error = await client.GET('/workspaces/{id}', { params: { path: { id: 'ws_9' } } }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toBeInstanceOf(PersonaApiError);
    expect(error).toMatchObject({
      name: 'ApiError',
      status: 404,
      type: 'not_found',
      code: 'resource_not_found',
      param: 'id',
      message: 'No workspace ws_9.',
      requestId: 'req_404',
    });
    expect((error as ApiError).body).toEqual(errorBody('not_found', 'resource_not_found', 'No workspace ws_9.', 'id'));
  });

  it('maps validation errors with their param', async () => {
    const client = await clientAnswering((_request, response) =>
      sendJson(response, 400, errorBody('invalid_request_error', 'invalid_parameter', 'limit must be <= 100', 'limit')),
    );
    await expect(client.GET('/workspaces', { params: { query: { limit: 100 } } })).rejects.toMatchObject({
      status: 400,
      type: 'invalid_request_error',
      code: 'invalid_parameter',
      param: 'limit',
    });
  });

  it('keeps a body that is not the envelope (a proxy error page) as the message', async () => {
    const client = await clientAnswering((_request, response) => {
      response.writeHead(502, { 'Content-Type': 'text/html' });
      response.end('<h1>Bad gateway</h1>');
    });
    const error = (await client.GET('/workspaces').catch((caught: unknown) => caught)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 502, type: null, code: null, param: null, message: '<h1>Bad gateway</h1>' });
  });

  it('reports an empty error body by its status', async () => {
    const client = await clientAnswering((_request, response) => {
      response.writeHead(503, { 'Content-Length': '0' });
      response.end();
    });
    await expect(client.GET('/workspaces')).rejects.toMatchObject({ status: 503, message: 'HTTP 503 Service Unavailable' });
  });

  it('requires an API key', () => {
    expect(() => createClient({ apiKey: '' })).toThrow(TypeError);
  });
});
