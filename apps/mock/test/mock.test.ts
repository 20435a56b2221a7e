// Starts the mock once (Prism on the bundle behind the streaming front) and calls every operation of the
// spec with its example request, through the real base path `/api/v1`.
import { createParser } from 'eventsource-parser';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  exampleRequests,
  listStreamingOperations,
  loadBundle,
  splitSseTranscript,
  startMock,
  streamTranscripts,
  type ExampleRequest,
  type RunningMock,
} from '../src/index.js';
import { basePath } from '@persona-api/openapi/document';
import { API_KEY, findOperation, rawSuccessExample, responseSchema, send } from './support/requests.js';
import { createValidator } from './support/validator.js';

const document = loadBundle();
const validator = createValidator(document);
const requests = exampleRequests(document);
const byName = (request: ExampleRequest) => [`${request.method.toUpperCase()} ${request.path}`, request] as const;

const streamingPaths = new Set(listStreamingOperations(document).map(({ method, path }) => `${method} ${path}`));
const streamingRequests = requests.filter(({ method, path }) => streamingPaths.has(`${method} ${path}`));
const withJsonBody = requests.filter((request) => request.body && typeof request.body.value === 'object');

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The body a streaming operation is called with: its streamed example, or its plain one with `stream: true`. */
function streamedBody(request: ExampleRequest): Record<string, unknown> {
  const streamed = request.bodyExamples.find(({ value }) => isRecord(value) && value.stream === true)?.value;
  return isRecord(streamed) ? streamed : { ...(request.body?.value as object), stream: true };
}

/** The `data:` payloads of one of the spec's transcript examples for a streaming operation. */
function transcriptData(request: ExampleRequest, exampleName?: string): string[] {
  const transcripts = streamTranscripts(document, findOperation(document, request).operation);
  const transcript = exampleName === undefined ? [...transcripts.values()][0] : transcripts.get(exampleName);
  return splitSseTranscript(transcript ?? '').flatMap((event) =>
    event
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trimStart()),
  );
}

interface ReceivedStream {
  contentType: string | null;
  status: number;
  data: string[];
  /** Index of the network chunk each event completed in: more than one distinct value = incremental. */
  chunkOfEvent: number[];
  chunks: number;
}

async function readStream(response: Response): Promise<ReceivedStream> {
  const received: ReceivedStream = {
    contentType: response.headers.get('content-type'),
    status: response.status,
    data: [],
    chunkOfEvent: [],
    chunks: 0,
  };
  const parser = createParser({
    onEvent: (event) => {
      received.data.push(event.data);
      received.chunkOfEvent.push(received.chunks);
    },
  });
  const decoder = new TextDecoder();
  const reader = response.body!.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    received.chunks += 1;
    parser.feed(decoder.decode(read.value, { stream: true }));
  }
  return received;
}

let mock: RunningMock;
let baseUrl: string;

beforeAll(async () => {
  mock = await startMock({ port: 0, logLevel: 'silent', streamDelayMs: 15 });
  baseUrl = `${mock.url}${basePath(document)}`;
});

afterAll(async () => {
  await mock?.close();
});

describe('the mock serves the bundle', () => {
  it('finds the operations and streaming operations of the spec', () => {
    expect(requests.length).toBeGreaterThan(0);
    expect(streamingRequests.map(({ path }) => path)).toContain('/responses');
    expect(basePath(document)).toBe('/api/v1');
  });

  it.each(requests.map(byName))('%s answers its example request with a 2xx that matches the spec', async (_name, request) => {
    const { operation } = findOperation(document, request);
    const response = await send(baseUrl, request);
    const text = await response.text();
    expect(response.status, text).toBeGreaterThanOrEqual(200);
    expect(response.status, text).toBeLessThan(300);
    const schema = responseSchema(document, operation, String(response.status));
    const raw = rawSuccessExample(document, operation, String(response.status));
    if (schema !== undefined) {
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(validator.check(schema, JSON.parse(text))).toEqual([]);
    } else if (raw !== undefined) {
      // Bytes (a download): the spec's example, under its media type; a `*/*` range is any concrete type.
      if (raw.mediaType === '*/*') expect(response.headers.get('content-type')).toMatch(/^[\w.+-]+\/[\w.+-]+/);
      else expect(response.headers.get('content-type')).toContain(raw.mediaType);
      expect(text).toBe(raw.value);
    } else {
      expect(text).toBe('');
    }
  });

  it.each(requests.filter((request) => request.requiresApiKey).map(byName))('%s without an API key is the spec’s 401', async (_name, request) => {
    const { operation } = findOperation(document, request);
    const response = await send(baseUrl, request, { apiKey: false });
    expect(response.status).toBe(401);
    const body: unknown = await response.json();
    expect(validator.check(responseSchema(document, operation, '401'), body)).toEqual([]);
    expect(body).toMatchObject({ error: { type: 'authentication_error' } });
  });

  it.each(withJsonBody.map(byName))('%s with an unknown body field is the spec’s 400', async (_name, request) => {
    const { operation } = findOperation(document, request);
    const response = await send(baseUrl, request, {
      body: { ...(request.body?.value as object), not_a_field_of_this_api: true },
    });
    expect(response.status).toBe(400);
    expect(validator.check(responseSchema(document, operation, '400'), await response.json())).toEqual([]);
  });

  it('answers a body that is not JSON with a 400 invalid_json in the error envelope', async () => {
    const request = withJsonBody[0]!;
    const { operation } = findOperation(document, request);
    const response = await send(baseUrl, request, { rawBody: '{"model": ' });
    expect(response.status).toBe(400);
    const body: unknown = await response.json();
    expect(validator.check(responseSchema(document, operation, '400'), body)).toEqual([]);
    expect(body).toMatchObject({ error: { type: 'invalid_request_error', code: 'invalid_json' } });
  });

  it('serves the same paths without the /api/v1 prefix', async () => {
    const request = requests.find(({ method }) => method === 'get')!;
    const response = await send(mock.url, request);
    expect(response.status).toBe(200);
  });

  it('returns the status asked for with Prefer: code=', async () => {
    const request = requests.find(({ method, path }) => method === 'get' && path.endsWith('/{id}'))!;
    const { operation } = findOperation(document, request);
    const response = await send(baseUrl, request, { headers: { prefer: 'code=404' } });
    expect(response.status).toBe(404);
    expect(validator.check(responseSchema(document, operation, '404'), await response.json())).toEqual([]);
  });

  it('lets a browser frontend call it (CORS)', async () => {
    const preflight = await fetch(`${baseUrl}/responses`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });
    expect(preflight.status).toBeLessThan(300);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/authorization/i);
  });
});

describe('streaming operations stream Server-Sent Events', () => {
  it.each(streamingRequests.map(byName))('%s with stream: true replays the spec’s stream event by event', async (_name, request) => {
    const { operation } = findOperation(document, request);
    const response = await send(baseUrl, request, {
      body: streamedBody(request),
      headers: { origin: 'http://localhost:5173' },
    });
    const stream = await readStream(response);

    expect(stream.status).toBe(200);
    expect(stream.contentType).toMatch(/^text\/event-stream/);
    expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(stream.data).toEqual(transcriptData(request));
    expect(stream.data.length).toBeGreaterThan(2);
    expect(stream.data.at(-1)).toBe('[DONE]');
    const eventSchema = responseSchema(document, operation, '200', 'text/event-stream');
    for (const data of stream.data.slice(0, -1)) expect(validator.check(eventSchema, JSON.parse(data))).toEqual([]);
    // Received incrementally: the events came in over several network reads, not as one body.
    expect(new Set(stream.chunkOfEvent).size).toBeGreaterThan(1);
  });

  it('replays the transcript named by Prefer: example=', async () => {
    const request = streamingRequests.find((candidate) => streamTranscripts(document, findOperation(document, candidate).operation).size > 1);
    expect(request, 'a streaming operation with two stream examples').toBeDefined();
    const names = [...streamTranscripts(document, findOperation(document, request!).operation).keys()];
    const second = names[1]!;
    const response = await send(baseUrl, request!, { body: streamedBody(request!), headers: { prefer: `example=${second}` } });
    const stream = await readStream(response);
    expect(stream.data).toEqual(transcriptData(request!, second));
    expect(stream.data).not.toEqual(transcriptData(request!, names[0]));
  });

  it.each(streamingRequests.map(byName))('%s with stream: true but no API key is the 401, not a stream', async (_name, request) => {
    const response = await send(baseUrl, request, { body: streamedBody(request), apiKey: false });
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    await response.body?.cancel();
  });

  it.each(streamingRequests.map(byName))('%s with stream: true and an invalid body is the 400', async (_name, request) => {
    const response = await send(baseUrl, request, {
      body: { ...streamedBody(request), not_a_field_of_this_api: true },
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    await response.body?.cancel();
  });
});

describe('the official openai SDK consumes the mock’s streams', () => {
  const openai = () => new OpenAI({ apiKey: API_KEY, baseURL: baseUrl, maxRetries: 0 });
  const requestFor = (path: string) => streamingRequests.find((request) => request.path === path)!;

  it('streams POST /responses with client.responses.create({ stream: true })', async () => {
    const request = requestFor('/responses');
    const stream = await openai().responses.create({
      ...(streamedBody(request) as unknown as OpenAI.Responses.ResponseCreateParamsStreaming),
      stream: true,
    });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    const expected = transcriptData(request)
      .slice(0, -1)
      .map((data) => (JSON.parse(data) as { type: string }).type);
    expect(types).toEqual(expected);
    expect(types).toContain('response.completed');
  });

  it('streams POST /chat/completions with client.chat.completions.create({ stream: true })', async () => {
    const request = requestFor('/chat/completions');
    const stream = await openai().chat.completions.create({
      ...(streamedBody(request) as unknown as OpenAI.Chat.ChatCompletionCreateParamsStreaming),
      stream: true,
    });
    let text = '';
    let chunks = 0;
    for await (const chunk of stream) {
      chunks += 1;
      text += chunk.choices[0]?.delta?.content ?? '';
    }
    expect(chunks).toBe(transcriptData(request).length - 1);
    expect(text.length).toBeGreaterThan(0);
  });
});
