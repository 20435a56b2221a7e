// The client against this repo's mock (Prism on the bundled contract, behind its streaming front): every
// operation called with the contract's example request must succeed, which also checks that what the
// client sends (auth, body, query serialisation, headers) is what the contract accepts.
import { startMock, type RunningMock } from '@persona-api/mock';
import { exampleRequests, listOperations, listStreamingOperations, loadBundle, type ExampleRequest } from '@persona-api/openapi/document';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createClient, type PersonaClient } from '../src/index.js';

const document = loadBundle();
const requests = exampleRequests(document);
const streaming = new Set(listStreamingOperations(document).map(({ method, path }) => `${method} ${path}`));
const label = (request: ExampleRequest) => [`${request.method.toUpperCase()} ${request.path}`, request] as const;
// Operations whose success body is bytes, not JSON (the signed download of an upload).
const binary = new Set(
  listOperations(document)
    .filter(({ responses }) =>
      Object.keys((responses['200'] as { content?: object } | undefined)?.content ?? {}).every((type) => !/json|event-stream/.test(type)),
    )
    .map(({ method, path }) => `${method} ${path}`),
);

let mock: RunningMock;
let client: PersonaClient;

beforeAll(async () => {
  mock = await startMock({ port: 0, logLevel: 'silent', streamDelayMs: 0 });
  client = createClient({ apiKey: `svc_live_${'a'.repeat(40)}`, baseUrl: `${mock.url}/api/v1`, maxRetries: 0 });
}, 60_000);
afterAll(() => mock?.close());

type UntypedCall = (path: string, init?: object) => Promise<{ data: unknown; response: Response }>;

/** The example request as client options: typed values for params, and the body with its media type. */
function initFor(request: ExampleRequest, body: unknown = request.body?.value): Record<string, unknown> {
  const init: Record<string, unknown> = { params: { path: request.values.path, query: request.values.query, header: request.values.header } };
  if (request.body) init.body = body;
  if (request.body && !/json/.test(request.body.contentType)) init.headers = { 'Content-Type': request.body.contentType };
  if (binary.has(`${request.method} ${request.path}`)) Object.assign(init, { headers: { Accept: '*/*' }, parseAs: 'arrayBuffer' });
  // The console's session cookie and CSRF header, for the operations that take them instead of the key.
  if (Object.keys(request.credentials).length > 0) init.headers = { ...(init.headers as object), ...request.credentials };
  return init;
}

describe('against the mock server', () => {
  it('the mock serves the same contract', () => {
    expect(requests.length).toBeGreaterThan(0);
    expect(streaming.size).toBeGreaterThan(0);
  });

  it.each(requests.map(label))('%s succeeds with its example request', async (_name, request) => {
    const method = request.method.toUpperCase() as 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
    const { data, response } = await (client[method] as UntypedCall)(request.path, initFor(request));
    expect(response.status).toBe(200);
    expect(data).toBeTypeOf('object');
  });

  it.each(requests.filter((request) => streaming.has(`${request.method} ${request.path}`)).map(label))(
    '%s streams typed events and collects the final object',
    async (_name, request) => {
      const { stream: _stream, ...body } = (request.bodyExamples.find(({ value }) => (value as { stream?: boolean }).stream)?.value ??
        request.body?.value ??
        {}) as Record<string, unknown>;
      const stream = await (client.stream as unknown as UntypedCall)(request.path, initFor(request, body));
      const events: unknown[] = [];
      for await (const event of stream as unknown as AsyncIterable<unknown>) events.push(event);
      expect(events.length).toBeGreaterThan(1);
      const final = await (stream as unknown as { finalResponse(): Promise<{ object?: string }> }).finalResponse();
      expect(final.object).toMatch(/^[a-z_.]+$/);
    },
  );

  it('typed calls, pagination and streams work end to end', async () => {
    const { data: workspaces, requestId } = await client.GET('/workspaces', { params: { query: { limit: 2 } } });
    expect(workspaces.object).toBe('list');
    expect(requestId).toBeTypeOf('string');
    // Bounded: a mock may answer every page with the same example.
    const items = await client.paginate('/workspaces', { params: { query: { limit: 2 } } }).toArray(10);
    expect(items.slice(0, workspaces.data.length)).toEqual(workspaces.data);
    const stream = await client.stream('/responses', { body: { model: 'service-1', persona_id: 'persona_2Lq7Vd9XcM3a', input: 'Hello?' } });
    const response = await stream.finalResponse();
    expect(response.object).toBe('response');
    expect(response.status).toBe('completed');
  });

  it("maps the mock's errors to ApiError", async () => {
    const error = await client
      .GET('/workspaces/{id}', { params: { path: { id: 'ws_9Qx2LmTa7bV1' } }, headers: { Prefer: 'code=404' } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 404, type: 'not_found', code: 'resource_not_found' });
  });
});
