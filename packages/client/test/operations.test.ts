// Every operation of the contract is reachable through the typed client: at compile time (a typed call per
// operation, generated from the bundle and compiled) and at run time (each call arrives at a recording
// server with the right method and path).
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type PersonaClient } from '../src/index.js';
import { startServer, type TestServer } from './helpers/server.js';
import { listOperations, operations, samplePath, streamingOperations, type SpecOperation } from './helpers/spec.js';

let server: TestServer;
let client: PersonaClient;

beforeAll(async () => {
  server = await startServer((request, response) => {
    if (request.headers.accept === 'text/event-stream') {
      response.writeHead(200, { 'Content-Type': 'text/event-stream' });
      response.end('data: [DONE]\n\n');
      return;
    }
    response.writeHead(200, { 'Content-Type': 'application/json' });
    response.end(JSON.stringify({ object: 'list', data: [], has_more: false, next_cursor: null }));
  });
  client = createClient({ apiKey: 'svc_live_test', baseUrl: server.url, maxRetries: 0 });
});
afterAll(() => server.close());

type UntypedCall = (path: string, init?: object) => Promise<unknown>;

/** Sample values for the operation's path, required query parameters, and body. */
function sampleInit(operation: SpecOperation) {
  const { params: path, url } = samplePath(operation);
  const query = Object.fromEntries(
    operation.parameters
      .filter((parameter) => parameter.in === 'query' && parameter.required)
      .map((parameter) => [parameter.name, parameter.schema?.type === 'integer' ? 1 : 'x']),
  );
  const init: Record<string, unknown> = { params: { path, query } };
  const contentTypes = Object.keys(operation.requestBody?.content ?? {});
  if (contentTypes.includes('application/json')) init.body = {};
  else if (contentTypes.length > 0) {
    init.body = new Uint8Array([1, 2, 3]);
    init.headers = { 'Content-Type': 'application/octet-stream' };
  }
  const search = new URLSearchParams(Object.entries(query).map(([key, value]) => [key, String(value)])).toString();
  return { init, url: search ? `${url}?${search}` : url };
}

function lastRequest() {
  return server.requests[server.requests.length - 1]!;
}

describe('every operation of the contract', () => {
  it('the bundle has operations, lists and streams', () => {
    expect(operations.length).toBeGreaterThan(0);
    expect(listOperations.length).toBeGreaterThan(0);
    expect(streamingOperations.length).toBeGreaterThan(0);
  });

  it.each(operations.map((operation) => [`${operation.method.toUpperCase()} ${operation.path}`, operation] as const))(
    '%s is reachable through the client',
    async (_label, operation) => {
      const { init, url } = sampleInit(operation);
      const method = operation.method.toUpperCase() as 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
      await (client[method] as UntypedCall)(operation.path, init);
      expect(lastRequest()).toMatchObject({ method, url });
    },
  );

  it.each(listOperations.map((operation) => [operation.path, operation] as const))('%s pages through client.paginate', async (_label, operation) => {
    const { init, url } = sampleInit(operation);
    await (client.paginate as unknown as (path: string, init?: object) => { toArray(): Promise<unknown[]> })(operation.path, init).toArray();
    expect(lastRequest()).toMatchObject({ method: 'GET', url });
  });

  it.each(streamingOperations.map((operation) => [operation.path, operation] as const))('%s streams through client.stream', async (_label, operation) => {
    const { init, url } = sampleInit(operation);
    const stream = await (client.stream as unknown as UntypedCall)(operation.path, init);
    for await (const _event of stream as AsyncIterable<unknown>) {
      // the server sends only [DONE]
    }
    expect(lastRequest()).toMatchObject({ method: 'POST', url });
    expect(JSON.parse(lastRequest().body)).toMatchObject({ stream: true });
  });

  it('each has a typed method, and each list and stream its typed helper (compiled)', () => {
    const calls = [
      ...operations.map((operation) => `client.${operation.method.toUpperCase()}(${JSON.stringify(operation.path)}, init());`),
      ...listOperations.map((operation) => `client.paginate(${JSON.stringify(operation.path)}, init());`),
      ...streamingOperations.map((operation) => `void client.stream(${JSON.stringify(operation.path)}, init());`),
    ];
    const fileName = new URL('./__every-operation.ts', import.meta.url).pathname;
    const source = [
      `import type { PersonaClient } from '../src/index.js';`,
      `declare const client: PersonaClient;`,
      // Any options: this checks that each path exists for its method, and is a list or a stream where it should be.
      `declare function init(): any;`,
      ...calls,
    ].join('\n');
    const configPath = new URL('../tsconfig.json', import.meta.url).pathname;
    const { options } = ts.parseJsonConfigFileContent(ts.readConfigFile(configPath, ts.sys.readFile).config, ts.sys, new URL('..', import.meta.url).pathname);
    const host = ts.createCompilerHost(options);
    const readFile = host.readFile.bind(host);
    const fileExists = host.fileExists.bind(host);
    host.readFile = (file) => (file === fileName ? source : readFile(file));
    host.fileExists = (file) => file === fileName || fileExists(file);
    const program = ts.createProgram([fileName], options, host);
    const errors = ts
      .getPreEmitDiagnostics(program, program.getSourceFile(fileName))
      .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    expect(calls).toHaveLength(operations.length + listOperations.length + streamingOperations.length);
    expect(errors).toEqual([]);
  }, 60_000);
});
