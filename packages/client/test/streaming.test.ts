import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, StreamError, createClient, type ChatCompletion, type ResponseObject } from '../src/index.js';
import { errorBody, sendJson, startServer, type TestServer } from './helpers/server.js';
import { samplePath, streamingOperations, type SpecOperation } from './helpers/spec.js';

const RESPONSE_BODY = { model: 'service-1', persona_id: 'persona_1', input: 'Hello' } as const;
const encoder = new TextEncoder();

/** A client whose fetch answers with `transcript` cut into `chunkBytes`-byte pieces (mid-line, mid-UTF-8). */
function clientStreaming(transcript: string, chunkBytes = 7) {
  const requests: Request[] = [];
  const client = createClient({
    apiKey: 'svc_live_test',
    baseUrl: 'http://stream.test',
    maxRetries: 0,
    fetch: async (request) => {
      requests.push(request);
      const bytes = encoder.encode(transcript);
      let offset = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (offset >= bytes.length) return controller.close();
          controller.enqueue(bytes.slice(offset, (offset += chunkBytes)));
        },
      });
      return new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream', 'X-Request-Id': 'req_stream' } });
    },
  });
  return { client, requests };
}

/** The JSON payloads of the transcript's `data:` lines, up to `[DONE]`. */
function payloads(transcript: string): Array<Record<string, unknown>> {
  return transcript
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
    .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
}

function sse(...events: Array<[name: string | undefined, data: unknown]>): string {
  return events.map(([name, data]) => `${name ? `event: ${name}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`).join('');
}

const examples = streamingOperations.flatMap((operation) =>
  Object.entries(operation.successContent['text/event-stream']?.examples ?? {}).map(([name, example]) => ({
    operation,
    name,
    transcript: example.value as string,
  })),
);

/** An untyped call of any streaming operation of the contract (the typed ones are in the type tests). */
function streamOperation(client: ReturnType<typeof createClient>, operation: SpecOperation) {
  const stream = client.stream as (path: string, init: object) => ReturnType<typeof client.stream<'/responses'>>;
  return stream(operation.path, { params: { path: samplePath(operation).params }, body: {} });
}

describe('stream parsing', () => {
  it('covers every streaming operation with at least one example transcript', () => {
    expect(streamingOperations.length).toBeGreaterThan(0);
    const withExamples = new Set(examples.map((example) => example.operation.operationId));
    expect(streamingOperations.filter((operation) => !withExamples.has(operation.operationId))).toEqual([]);
  });

  it.each(examples.map((example) => [`${example.operation.operationId} ${example.name}`, example] as const))(
    'yields the events of %s, split across chunks, and collects the final object',
    async (_label, { operation, transcript }) => {
      const { client } = clientStreaming(transcript);
      const expected = payloads(transcript);
      const failure = expected.find((payload) => payload.type === 'error' || (payload.error && !payload.object));
      const stream = await streamOperation(client, operation);
      const seen: unknown[] = [];
      const consume = async () => {
        for await (const event of stream) seen.push(event);
        return stream.finalResponse();
      };
      if (failure) {
        const error = await consume().catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(ApiError);
        expect((error as ApiError).code).toBe((failure.error as { code?: string } | undefined)?.code ?? failure.code);
        expect(seen).toEqual(expected.slice(0, expected.indexOf(failure)));
        return;
      }
      const final = (await consume()) as Record<string, unknown>;
      expect(seen).toEqual(expected);
      const terminal = expected.findLast((payload) => /\.(completed|failed)$/.test(String(payload.type)));
      if (terminal) {
        const carried = Object.values(terminal).find((value) => typeof value === 'object' && value !== null);
        expect(final).toEqual(carried);
      } else {
        expect(final.object).toBe('chat.completion');
      }
    },
  );

  it('collects a chat.completion from unnamed chunks', async () => {
    const chunk = (delta: object, finish: string | null = null, usage: object | null = null, choices = true) => ({
      id: 'chatcmpl_abcdefghij',
      object: 'chat.completion.chunk',
      created: 1795019197,
      model: 'service-1',
      choices: choices ? [{ index: 0, delta, finish_reason: finish, logprobs: null }] : [],
      usage,
    });
    const transcript = sse(
      [undefined, chunk({ role: 'assistant', content: '' })],
      [undefined, chunk({ content: 'Hel' })],
      [undefined, chunk({ tool_calls: [{ index: 0, id: 'call_1abc', type: 'function', function: { name: 'quote', arguments: '{"se' } }] })],
      [undefined, chunk({ content: 'lo', tool_calls: [{ index: 0, function: { arguments: 'ats":2}' } }] })],
      [undefined, chunk({}, 'tool_calls')],
      [undefined, chunk({}, null, { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5, credits_used: 1 }, false)],
      [undefined, '[DONE]'],
    );
    const { client, requests } = clientStreaming(transcript, 5);
    const stream = await client.stream('/chat/completions', {
      body: { model: 'service-1', persona_id: 'persona_1', messages: [{ role: 'user', content: 'Hi' }] },
    });
    const completion: ChatCompletion = await stream.finalResponse();
    expect(completion).toEqual({
      id: 'chatcmpl_abcdefghij',
      object: 'chat.completion',
      created: 1795019197,
      model: 'service-1',
      persona_id: 'persona_1',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Hello',
            refusal: null,
            tool_calls: [{ id: 'call_1abc', type: 'function', function: { name: 'quote', arguments: '{"seats":2}' } }],
          },
          finish_reason: 'tool_calls',
          logprobs: null,
        },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5, credits_used: 1 },
    });
    // The client asks for the usage chunk so that the collected completion is complete.
    expect(await requests[0]!.json()).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('sends stream: true and Accept: text/event-stream, and exposes the request id', async () => {
    const { client, requests } = clientStreaming(
      sse(['response.created', { type: 'response.created', sequence_number: 0, response: {} }], [undefined, '[DONE]']),
    );
    const stream = await client.stream('/responses', { body: RESPONSE_BODY });
    expect(stream.requestId).toBe('req_stream');
    for await (const event of stream) expect(event.type).toBe('response.created');
    expect(requests[0]!.headers.get('accept')).toBe('text/event-stream');
    expect(await requests[0]!.json()).toEqual({ ...RESPONSE_BODY, stream: true });
  });

  it('rejects a stream that ends without [DONE]', async () => {
    const { client } = clientStreaming(sse(['response.created', { type: 'response.created', sequence_number: 0, response: {} }]));
    const stream = await client.stream('/responses', { body: RESPONSE_BODY });
    await expect(stream.finalResponse()).rejects.toBeInstanceOf(StreamError);
  });

  it('rejects an event whose data is not JSON', async () => {
    const { client } = clientStreaming('event: response.created\ndata: {not json\n\ndata: [DONE]\n\n');
    const stream = await client.stream('/responses', { body: RESPONSE_BODY });
    await expect(stream.finalResponse()).rejects.toThrow(StreamError);
  });

  it('rejects finalResponse() when no terminal event arrived', async () => {
    const { client } = clientStreaming(sse(['response.created', { type: 'response.created', sequence_number: 0, response: {} }], [undefined, '[DONE]']));
    const stream = await client.stream('/responses', { body: RESPONSE_BODY });
    await expect(stream.finalResponse()).rejects.toThrow(/final object/);
  });

  it('can be iterated once only', async () => {
    const { client } = clientStreaming(sse([undefined, '[DONE]']));
    const stream = await client.stream('/responses', { body: RESPONSE_BODY });
    for await (const _event of stream) break;
    expect(() => stream[Symbol.asyncIterator]()).toThrow(StreamError);
  });
});

describe('streams over HTTP', () => {
  let server: TestServer | undefined;
  afterEach(() => server?.close());

  it('ends at [DONE] even when the server keeps the connection open', async () => {
    server = await startServer((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/event-stream' });
      response.write(sse(['response.created', { type: 'response.created', sequence_number: 0, response: { id: 'resp_1' } }]));
      response.write(sse(['response.completed', { type: 'response.completed', sequence_number: 1, response: { id: 'resp_1', status: 'completed' } }]));
      response.write('data: [DONE]\n\n'); // and never end()
    });
    const client = createClient({ apiKey: 'svc_live_test', baseUrl: server.url });
    const stream = await client.stream('/responses', { body: RESPONSE_BODY });
    const final: ResponseObject = await stream.finalResponse();
    expect(final).toEqual({ id: 'resp_1', status: 'completed' });
    await server.closed; // the client released the connection
  });

  it('is cancelled by the AbortSignal: the loop rejects with AbortError and the connection closes', async () => {
    server = await startServer((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/event-stream' });
      response.write(sse(['response.created', { type: 'response.created', sequence_number: 0, response: {} }]));
    });
    const client = createClient({ apiKey: 'svc_live_test', baseUrl: server.url });
    const controller = new AbortController();
    const stream = await client.stream('/responses', { body: RESPONSE_BODY, signal: controller.signal });
    const seen: string[] = [];
    const consume = async () => {
      for await (const event of stream) {
        seen.push(event.type);
        controller.abort();
      }
    };
    await expect(consume()).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen).toEqual(['response.created']);
    await server.closed;
  });

  it('is cancelled by abort() and by leaving the loop', async () => {
    server = await startServer((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/event-stream' });
      response.write(sse(['response.created', { type: 'response.created', sequence_number: 0, response: {} }]));
    });
    const client = createClient({ apiKey: 'svc_live_test', baseUrl: server.url });
    const stream = await client.stream('/responses', { body: RESPONSE_BODY });
    for await (const _event of stream) break;
    await server.closed;
    const second = await client.stream('/responses', { body: RESPONSE_BODY });
    second.abort();
    await expect(second.finalResponse()).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('throws ApiError when the server refuses the streamed request', async () => {
    server = await startServer((_request, response) =>
      sendJson(response, 402, errorBody('insufficient_credits', 'insufficient_credits', 'Top up.'), { 'X-Request-Id': 'req_402' }),
    );
    const client = createClient({ apiKey: 'svc_live_test', baseUrl: server.url });
    await expect(client.stream('/responses', { body: RESPONSE_BODY })).rejects.toMatchObject({
      status: 402,
      code: 'insufficient_credits',
      requestId: 'req_402',
    });
  });
});
