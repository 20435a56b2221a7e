import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../src/index.js';
import { errorBody, sendJson, startServer, type TestServer } from './helpers/server.js';

let server: TestServer | undefined;
afterEach(() => server?.close());

const member = (n: number) => ({
  object: 'workspace.member',
  user_id: `usr_${n}`,
  email: `u${n}@example.com`,
  role: 'viewer',
  status: 'active',
  joined_at: '2026-01-01T00:00:00Z',
});

/** A list of `total` members served in pages of `limit`, with opaque cursors `c<offset>`. */
async function listServer(total: number) {
  server = await startServer((request, response) => {
    const url = new URL(request.url, 'http://x');
    const limit = Number(url.searchParams.get('limit') ?? '50');
    const offset = Number(url.searchParams.get('cursor')?.slice(1) ?? '0');
    const end = Math.min(offset + limit, total);
    const data = Array.from({ length: end - offset }, (_, i) => member(offset + i));
    sendJson(response, 200, { object: 'list', data, has_more: end < total, next_cursor: end < total ? `c${end}` : null }, { 'X-Request-Id': `req_${offset}` });
  });
  return createClient({ apiKey: 'svc_live_test', baseUrl: server.url, maxRetries: 0 });
}

describe('paginate', () => {
  it('follows next_cursor across pages until has_more is false', async () => {
    const client = await listServer(5);
    const items = [];
    for await (const item of client.paginate('/workspaces/{id}/members', { params: { path: { id: 'ws_1' }, query: { limit: 2 } } })) {
      items.push(item.user_id);
    }
    expect(items).toEqual(['usr_0', 'usr_1', 'usr_2', 'usr_3', 'usr_4']);
    expect(server!.requests.map((request) => request.url)).toEqual([
      '/workspaces/ws_1/members?limit=2',
      '/workspaces/ws_1/members?limit=2&cursor=c2',
      '/workspaces/ws_1/members?limit=2&cursor=c4',
    ]);
  });

  it('yields pages with their request id', async () => {
    const client = await listServer(3);
    const pages = [];
    for await (const page of client.paginate('/workspaces/{id}/members', { params: { path: { id: 'ws_1' }, query: { limit: 2 } } }).pages()) {
      pages.push([page.requestId, page.data.data.length, page.data.has_more]);
    }
    expect(pages).toEqual([
      ['req_0', 2, true],
      ['req_2', 1, false],
    ]);
  });

  it('fetches no further page than needed', async () => {
    const client = await listServer(10);
    const firstThree = await client.paginate('/workspaces/{id}/members', { params: { path: { id: 'ws_1' }, query: { limit: 2 } } }).toArray(3);
    expect(firstThree.map((item) => item.user_id)).toEqual(['usr_0', 'usr_1', 'usr_2']);
    expect(server!.requests).toHaveLength(2);
  });

  it('stops after one page when the first says has_more: false', async () => {
    const client = await listServer(1);
    expect(await client.paginate('/workspaces/{id}/members', { params: { path: { id: 'ws_1' } } }).toArray()).toHaveLength(1);
    expect(server!.requests).toHaveLength(1);
  });

  it('pages through a list carried inside the response (a folder and its files)', async () => {
    server = await startServer((request, response) => {
      const cursor = new URL(request.url, 'http://x').searchParams.get('cursor');
      const files = cursor
        ? { object: 'list', data: [{ id: 'file_3' }], has_more: false, next_cursor: null }
        : { object: 'list', data: [{ id: 'file_1' }, { id: 'file_2' }], has_more: true, next_cursor: 'c2' };
      sendJson(response, 200, { id: 'fld_1', object: 'folder', file_count: 3, files });
    });
    const client = createClient({ apiKey: 'svc_live_test', baseUrl: server.url, maxRetries: 0 });
    const files = await client.paginate('/folders/{id}', { params: { path: { id: 'fld_1' }, query: { limit: 2 } } }).toArray();
    expect(files.map((file) => file.id)).toEqual(['file_1', 'file_2', 'file_3']);
    expect(server.requests.map((request) => request.url)).toEqual(['/folders/fld_1?limit=2', '/folders/fld_1?limit=2&cursor=c2']);
  });

  it('throws the ApiError of a failing page', async () => {
    server = await startServer((request, response) =>
      request.url.includes('cursor')
        ? sendJson(response, 400, errorBody('invalid_request_error', 'invalid_cursor', 'Bad cursor.', 'cursor'))
        : sendJson(response, 200, { object: 'list', data: [{ id: 'ws_1' }], has_more: true, next_cursor: 'zz' }),
    );
    const client = createClient({ apiKey: 'svc_live_test', baseUrl: server.url, maxRetries: 0 });
    const seen: string[] = [];
    const iterate = async () => {
      for await (const workspace of client.paginate('/workspaces')) seen.push(workspace.id);
    };
    await expect(iterate()).rejects.toMatchObject({ status: 400, code: 'invalid_cursor' });
    expect(seen).toEqual(['ws_1']);
  });
});
