// A local fake of an OpenAI-compatible server for tests: POST /v1/chat/completions, streamed (SSE chunks with
// choices[0].delta, tool_calls deltas, a usage chunk with stream_options.include_usage, `data: [DONE]`) or
// not, with knobs for scripted replies, per-token delay, failures, hangs, cut streams and missing usage.
// It listens on 127.0.0.1 with an ephemeral port and records every request.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

export interface FakeToolCall {
  /** Defaults to `call_fake_<n>`. */
  id?: string;
  name: string;
  /** A JSON object text. */
  arguments: string;
}

export interface FakeReply {
  /** The answer text; streamed one word (with its trailing space) per chunk. */
  content?: string;
  tool_calls?: FakeToolCall[];
  /** Default `tool_calls` when there are tool calls, else `stop`. */
  finish_reason?: 'stop' | 'length' | 'tool_calls' | 'content_filter';
  /** Reported usage; default: prompt = ceil(request JSON length / 4), completion = number of chunks. */
  usage?: {
    prompt_tokens: number;
    completion_tokens: number;
    prompt_tokens_details?: { cached_tokens: number };
    completion_tokens_details?: { reasoning_tokens: number };
  };
  /** Leave usage out (no usage chunk, no `usage` field). */
  omitUsage?: boolean;
  /** Pause before each streamed chunk after the first. */
  tokenDelayMs?: number;
  /** Answer with this HTTP status and an OpenAI-style error body. */
  status?: number;
  /** Body sent with `status` (default: `{error: {message, type, code}}`). */
  errorBody?: unknown;
  /** Accept the request and never answer (until the client goes away). */
  hang?: boolean;
  /** Streaming: stop after this many content chunks, destroying the connection (or ending it without [DONE] with `cutMode: 'end'`). */
  cutAfterChunks?: number;
  cutMode?: 'destroy' | 'end';
  /** Streaming: send this raw text as a `data:` line before the first chunk (to test malformed streams). */
  rawFirstEvent?: string;
  /** Non-streaming: send this raw body instead of the completion JSON. */
  rawBody?: string;
  model?: string;
}

/**
 * A reply computed from the request it answers, e.g. a model that cites what a tool result it was sent
 * contains, or that calls a tool again only while it has not seen a result yet.
 */
export type FakeReplyScript = FakeReply | ((request: { body: any }) => FakeReply);

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** The parsed JSON body (undefined when it was not JSON). */
  body: any;
  /** performance.now() when the request arrived. */
  receivedAt: number;
  /** performance.now() when each content or tool-call chunk was written. */
  chunkTimes: number[];
  /** performance.now() when the last byte was written (null while streaming or when cut). */
  finishedAt: number | null;
  /** True when the client closed the connection before the response was complete. */
  closedEarly: boolean;
  /** Resolves when the connection for this request is closed (completed, cut or aborted). */
  closed: Promise<void>;
}

export interface FakeUpstream {
  /** Base URL to configure as MODEL_BASE_URL, e.g. `http://127.0.0.1:53123/v1`. */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Scripted replies, used in order, one per request (a function is called with the request's body). */
  enqueue(...replies: FakeReplyScript[]): void;
  /** The reply when the queue is empty (default: echo the last user message). */
  setDefault(reply: FakeReplyScript | null): void;
  /** Replies still queued. */
  readonly pending: number;
  close(): Promise<void>;
}

export interface FakeUpstreamOptions {
  /** When set, requests without `Authorization: Bearer <apiKey>` get a 401 that quotes part of the key (as OpenAI does). */
  apiKey?: string;
  defaultReply?: FakeReplyScript;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function lastUserContent(body: any): string {
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (message?.role === 'user') return typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
  }
  return '';
}

/**
 * Content parts as OpenAI checks them: `text` parts with a string, `image_url` parts (user messages only)
 * with an http(s) URL or a base64 `data:image/(jpeg|png|webp|gif)` URL and an optional detail. The reason
 * of the first bad part, or null.
 */
function invalidContentPart(body: any): string | null {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  for (const [index, message] of messages.entries()) {
    if (!Array.isArray(message?.content)) continue;
    for (const [partIndex, part] of message.content.entries()) {
      const where = `messages[${index}].content[${partIndex}]`;
      if (part?.type === 'text' && typeof part.text === 'string') continue;
      if (part?.type === 'image_url') {
        if (message.role !== 'user') return `Invalid '${where}': image_url parts are only allowed in user messages.`;
        const url = part.image_url?.url;
        const detail = part.image_url?.detail;
        const data = typeof url === 'string' ? /^data:image\/(jpeg|png|webp|gif);base64,([A-Za-z0-9+/]+={0,2})$/.exec(url) : null;
        if (typeof url !== 'string' || (!data && !/^https?:\/\//.test(url)))
          return `Invalid '${where}.image_url.url': expected a URL or a base64 data URL of an image.`;
        if (detail !== undefined && !['low', 'high', 'auto'].includes(detail)) return `Invalid '${where}.image_url.detail'.`;
        continue;
      }
      return `Invalid '${where}': expected a text or image_url part.`;
    }
  }
  return null;
}

/** The images a recorded request carried (user messages' `image_url` parts), with the decoded bytes of data URLs. */
export function imagesOf(request: RecordedRequest): { url: string; detail: string | undefined; mediaType: string | null; bytes: Buffer | null }[] {
  const messages: any[] = Array.isArray(request.body?.messages) ? request.body.messages : [];
  return messages.flatMap((message) =>
    Array.isArray(message?.content)
      ? message.content
          .filter((part: any) => part?.type === 'image_url')
          .map((part: any) => {
            const data = /^data:(image\/[a-z]+);base64,(.*)$/.exec(part.image_url.url);
            return {
              url: part.image_url.url,
              detail: part.image_url.detail,
              mediaType: data?.[1] ?? null,
              bytes: data ? Buffer.from(data[2]!, 'base64') : null,
            };
          })
      : [],
  );
}

function words(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? (text ? [text] : []);
}

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let index = 0; index < text.length; index += size) out.push(text.slice(index, index + size));
  return out.length > 0 ? out : [''];
}

export async function startFakeUpstream(options: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
  const queue: FakeReplyScript[] = [];
  let fallback: FakeReplyScript | null = options.defaultReply ?? null;
  const requests: RecordedRequest[] = [];
  let counter = 0;

  const server = createServer((req, res) => {
    void handle(req, res);
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let markClosed!: () => void;
    const record: RecordedRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body: undefined,
      receivedAt: performance.now(),
      chunkTimes: [],
      finishedAt: null,
      closedEarly: false,
      closed: new Promise<void>((resolve) => (markClosed = resolve)),
    };
    requests.push(record);
    res.on('close', () => {
      if (!res.writableFinished) record.closedEarly = true;
      markClosed();
    });

    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    try {
      record.body = JSON.parse(raw);
    } catch {
      record.body = undefined;
    }

    const json = (status: number, payload: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload));
      record.finishedAt = performance.now();
    };

    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions'))
      return json(404, { error: { message: 'Not found', type: 'invalid_request_error', code: null } });
    if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      const given = (req.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
      return json(401, {
        error: { message: `Incorrect API key provided: ${given.slice(0, 3)}***${given.slice(-4)}.`, type: 'invalid_request_error', code: 'invalid_api_key' },
      });
    }
    if (record.body === undefined)
      return json(400, { error: { message: 'We could not parse the JSON body of your request.', type: 'invalid_request_error', code: null } });

    const badPart = invalidContentPart(record.body);
    if (badPart) return json(400, { error: { message: badPart, type: 'invalid_request_error', code: 'invalid_value' } });

    const script = queue.shift() ?? fallback ?? { content: `Echo: ${lastUserContent(record.body)}` };
    const reply: FakeReply = typeof script === 'function' ? script({ body: record.body }) : script;
    if (reply.hang) return; // The response stays open until the client gives up.
    if (reply.status !== undefined) {
      return json(reply.status, reply.errorBody ?? { error: { message: `Scripted failure ${reply.status}`, type: 'server_error', code: null } });
    }

    counter += 1;
    const id = `chatcmpl-fake${counter}`;
    const created = Math.floor(Date.now() / 1000);
    const model = reply.model ?? (typeof record.body.model === 'string' ? record.body.model : 'fake-model');
    const toolCalls = (reply.tool_calls ?? []).map((call, index) => ({
      id: call.id ?? `call_fake_${counter}_${index}`,
      name: call.name,
      arguments: call.arguments,
    }));
    const finish = reply.finish_reason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop');
    const content = reply.content ?? (toolCalls.length > 0 ? '' : `Echo: ${lastUserContent(record.body)}`);
    const contentChunks = words(content);
    const defaultUsage = { prompt_tokens: Math.ceil(raw.length / 4), completion_tokens: contentChunks.length + toolCalls.length };
    const usage = reply.usage ?? defaultUsage;

    if (record.body.stream !== true) {
      if (reply.rawBody !== undefined) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(reply.rawBody);
        record.finishedAt = performance.now();
        return;
      }
      return json(200, {
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: toolCalls.length > 0 && !reply.content ? null : content,
              refusal: null,
              ...(toolCalls.length > 0
                ? { tool_calls: toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })) }
                : {}),
            },
            finish_reason: finish,
            logprobs: null,
          },
        ],
        ...(reply.omitUsage ? {} : { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } }),
      });
    }

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const gone = () => res.destroyed || res.writableEnded;
    // Resolves once the last chunk has reached the socket, so a cut keeps everything written before it.
    let flushed = Promise.resolve();
    const send = async (payload: unknown, delay: boolean) => {
      if (delay && reply.tokenDelayMs) await sleep(reply.tokenDelayMs);
      if (gone()) return false;
      flushed = new Promise<void>((resolve) => {
        res.write(`data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`, () => resolve());
      });
      return true;
    };
    const chunk = (delta: unknown, finishReason: string | null = null) => ({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
    });

    if (reply.rawFirstEvent !== undefined && !(await send(reply.rawFirstEvent, false))) return;
    if (!(await send(chunk({ role: 'assistant', content: '' }), false))) return;
    let sent = 0;
    for (const piece of contentChunks) {
      if (reply.cutAfterChunks !== undefined && sent >= reply.cutAfterChunks) {
        await flushed;
        if (reply.cutMode === 'end') res.end();
        else res.socket?.destroy();
        return;
      }
      if (!(await send(chunk({ content: piece }), sent > 0))) return;
      record.chunkTimes.push(performance.now());
      sent += 1;
    }
    for (const [index, call] of toolCalls.entries()) {
      if (!(await send(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }), true))) return;
      for (const part of pieces(call.arguments, 8)) {
        if (!(await send(chunk({ tool_calls: [{ index, function: { arguments: part } }] }), true))) return;
        record.chunkTimes.push(performance.now());
      }
    }
    if (!(await send(chunk({}, finish), true))) return;
    const includeUsage = record.body.stream_options?.include_usage === true;
    if (includeUsage && !reply.omitUsage) {
      if (
        !(await send(
          {
            id,
            object: 'chat.completion.chunk',
            created,
            model,
            choices: [],
            usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
          },
          false,
        ))
      )
        return;
    }
    if (!(await send('[DONE]', false))) return;
    res.end();
    record.finishedAt = performance.now();
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue: (...replies) => {
      queue.push(...replies);
    },
    setDefault: (reply) => {
      fallback = reply;
    },
    get pending() {
      return queue.length;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
