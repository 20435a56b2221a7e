import { afterEach, describe, expect, it } from 'vitest';
import { ApiConnectionError, ApiError, ApiTimeoutError, createClient, type RetryInfo } from '../src/index.js';
import { errorBody, sendJson, startServer, type Handler, type TestServer } from './helpers/server.js';

const WORKSPACE = { id: 'ws_1', object: 'workspace', name: 'Northwind' };
let server: TestServer | undefined;
afterEach(() => server?.close());

/** Answers each request with the next handler; the last one repeats. */
async function serve(...handlers: Handler[]) {
  let count = 0;
  server = await startServer((request, response) => handlers[Math.min(count++, handlers.length - 1)]!(request, response));
  return server;
}
const rateLimited =
  (retryAfter: string): Handler =>
  (_request, response) =>
    sendJson(response, 429, errorBody('rate_limit_error', 'rate_limit_exceeded', 'Slow down.'), { 'Retry-After': retryAfter });
const failing =
  (status: number): Handler =>
  (_request, response) =>
    sendJson(response, status, errorBody('api_error', 'internal_error', 'Boom.'));
const ok: Handler = (_request, response) => sendJson(response, 200, WORKSPACE, { 'X-Request-Id': 'req_ok' });

function clientFor(url: string, retries: RetryInfo[], extra: Partial<Parameters<typeof createClient>[0]> = {}) {
  return createClient({ apiKey: 'svc_live_test', baseUrl: url, onRetry: (info) => retries.push(info), ...extra });
}
const getWorkspace = (client: ReturnType<typeof createClient>) => client.GET('/workspaces/{id}', { params: { path: { id: 'ws_1' } } });

describe('retries', () => {
  it('waits out Retry-After on a 429, then returns the 200', async () => {
    const { url, requests } = await serve(rateLimited('1'), ok);
    const retries: RetryInfo[] = [];
    const { data, requestId } = await getWorkspace(clientFor(url, retries));
    expect(data.id).toBe('ws_1');
    expect(requestId).toBe('req_ok');
    expect(requests).toHaveLength(2);
    expect(retries).toMatchObject([{ attempt: 1, delayMs: 1000, method: 'GET' }]);
    expect(retries[0]?.response?.status).toBe(429);
  });

  it('retries a 429 on a POST too (the server did nothing)', async () => {
    const { url, requests } = await serve(rateLimited('0'), ok);
    const client = clientFor(url, [], { idempotencyKeys: 'off' });
    await client.POST('/workspaces', { body: { name: 'Northwind' } });
    expect(requests.map((request) => request.method)).toEqual(['POST', 'POST']);
  });

  it('throws the 429 once the retries are used up', async () => {
    const { url, requests } = await serve(rateLimited('0'));
    const error = await getWorkspace(clientFor(url, [], { maxRetries: 1 })).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 429, type: 'rate_limit_error', code: 'rate_limit_exceeded' });
    expect(requests).toHaveLength(2);
  });

  it('does not wait for a Retry-After longer than maxRetryAfter', async () => {
    const { url, requests } = await serve(rateLimited('3600'), ok);
    await expect(getWorkspace(clientFor(url, []))).rejects.toMatchObject({ status: 429 });
    expect(requests).toHaveLength(1);
  });

  it('retries a 5xx on a GET with exponential backoff', async () => {
    const { url, requests } = await serve(failing(503), failing(500), ok);
    const retries: RetryInfo[] = [];
    await getWorkspace(clientFor(url, retries));
    expect(requests).toHaveLength(3);
    // 0.5 s then 1 s, each less up to 25 % jitter
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(375);
    expect(retries[0]!.delayMs).toBeLessThanOrEqual(500);
    expect(retries[1]!.delayMs).toBeGreaterThanOrEqual(750);
    expect(retries[1]!.delayMs).toBeLessThanOrEqual(1000);
  });

  it('does not retry a 5xx on a POST without an Idempotency-Key', async () => {
    const { url, requests } = await serve(failing(500), ok);
    const client = clientFor(url, [], { idempotencyKeys: 'off' });
    await expect(client.POST('/workspaces', { body: { name: 'Northwind' } })).rejects.toMatchObject({ status: 500 });
    expect(requests).toHaveLength(1);
    expect(requests[0]!.headers['idempotency-key']).toBeUndefined();
  });

  it('retries a 5xx on a POST with an Idempotency-Key, sending the same key each time', async () => {
    const { url, requests } = await serve(failing(502), ok);
    await clientFor(url, []).POST('/workspaces', { body: { name: 'Northwind' } });
    expect(requests).toHaveLength(2);
    const [first, second] = requests.map((request) => request.headers['idempotency-key']);
    expect(first).toMatch(/^[\x21-\x7E]{1,255}$/);
    expect(second).toBe(first);
    expect(requests[1]!.body).toBe(JSON.stringify({ name: 'Northwind' }));
  });

  it('keeps an Idempotency-Key given by the caller', async () => {
    const { url, requests } = await serve(ok);
    await clientFor(url, []).POST('/workspaces', { body: { name: 'N' }, params: { header: { 'Idempotency-Key': 'my-key-1' } } });
    expect(requests[0]!.headers['idempotency-key']).toBe('my-key-1');
  });

  it('retries a network error on a GET', async () => {
    const { url, requests } = await serve((_request, response) => void response.socket?.destroy(), ok);
    const retries: RetryInfo[] = [];
    const { data } = await getWorkspace(clientFor(url, retries));
    expect(data.name).toBe('Northwind');
    expect(requests).toHaveLength(2);
    expect(retries[0]?.error).toBeInstanceOf(ApiConnectionError);
  });

  it('throws ApiConnectionError when the network error persists', async () => {
    const { url } = await serve((_request, response) => void response.socket?.destroy());
    await expect(getWorkspace(clientFor(url, [], { maxRetries: 0 }))).rejects.toBeInstanceOf(ApiConnectionError);
  });

  it('times out an attempt whose headers do not arrive', async () => {
    const { url, requests } = await serve(() => new Promise((resolve) => setTimeout(resolve, 5_000)));
    const error = await getWorkspace(clientFor(url, [], { timeout: 100, maxRetries: 1 })).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiTimeoutError);
    expect(requests).toHaveLength(2);
  });

  it('never retries a request the caller aborted', async () => {
    const { url, requests } = await serve(() => new Promise((resolve) => setTimeout(resolve, 5_000)));
    const controller = new AbortController();
    const pending = clientFor(url, []).GET('/workspaces/{id}', { params: { path: { id: 'ws_1' } }, signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(requests).toHaveLength(1);
  });
});
