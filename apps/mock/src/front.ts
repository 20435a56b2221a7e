import { once } from 'node:events';
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import {
  basePath as serverBasePath,
  EVENT_STREAM,
  listStreamingOperations,
  pathMatcher,
  streamTranscripts,
  type OpenApiDocument,
} from '@persona-api/openapi/document';
import { replaySse, splitSseTranscript } from './sse.js';

export interface FrontOptions {
  document: OpenApiDocument;
  /** Where Prism listens, e.g. `http://127.0.0.1:4011`. */
  prismUrl: string;
  /** Pause between two replayed stream events. */
  streamDelayMs: number;
}

// Hop-by-hop headers are never forwarded; the framing headers are set again where the body is known.
const HOP_BY_HOP = ['connection', 'keep-alive', 'transfer-encoding', 'host', 'date'];

function withoutHeaders(headers: IncomingHttpHeaders, names: readonly string[]): OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !names.includes(name.toLowerCase())));
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function isJsonMediaType(contentType: string | undefined): boolean {
  return contentType !== undefined && /^application\/([\w.+-]+\+)?json\b/i.test(contentType);
}

// Same CORS answer as Prism's `--cors`, for the responses the front writes itself.
function corsHeaders(request: IncomingMessage): OutgoingHttpHeaders {
  return {
    'access-control-allow-origin': request.headers.origin ?? '*',
    'access-control-allow-headers': '*',
    'access-control-allow-credentials': 'true',
    'access-control-expose-headers': '*',
  };
}

/**
 * Prism hangs on a body that is not JSON, so the front answers it with the contract's error envelope
 * (a 400 `invalid_json`, as the real service does).
 */
function sendInvalidJson(request: IncomingMessage, response: ServerResponse): void {
  const body = JSON.stringify({
    error: {
      message: 'The request body is not valid JSON.',
      type: 'invalid_request_error',
      code: 'invalid_json',
      param: null,
    },
  });
  response.writeHead(400, { ...corsHeaders(request), 'content-type': 'application/json' }).end(body);
}

function preferTokens(prefer: string | string[] | undefined): string[] {
  return [prefer ?? '']
    .flat()
    .join(',')
    .split(',')
    .map((token) => token.trim())
    .filter((token) => token !== '');
}

/**
 * A stream request goes to Prism as a JSON request, so that Prism checks the key and the body and honours
 * `Prefer: code=`; `example=` names one of the stream's transcripts and is kept for the front.
 */
function splitStreamPrefer(prefer: string | string[] | undefined): { forPrism: string; example?: string } {
  const tokens = preferTokens(prefer);
  const example = tokens.find((token) => /^example\s*=/i.test(token))?.replace(/^example\s*=\s*/i, '');
  const forPrism = [...tokens.filter((token) => !/^(example|dynamic)\s*=/i.test(token)), 'dynamic=false'].join(', ');
  return example === undefined ? { forPrism } : { forPrism, example };
}

interface ForwardedRequest {
  method: string;
  path: string;
  headers: OutgoingHttpHeaders;
  body: Buffer | IncomingMessage;
}

function forwardToPrism(prismUrl: string, forwarded: ForwardedRequest): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const upstream = httpRequest(new URL(forwarded.path, prismUrl), {
      method: forwarded.method,
      headers: forwarded.headers,
    });
    upstream.once('response', resolve).once('error', reject);
    if (Buffer.isBuffer(forwarded.body)) upstream.end(forwarded.body);
    else forwarded.body.pipe(upstream);
  });
}

export function createFront(options: FrontOptions): Server {
  const basePath = serverBasePath(options.document);
  const streamingOperations = listStreamingOperations(options.document)
    .filter(({ method }) => method === 'post')
    .map(({ path, operation }) => ({ matcher: pathMatcher(path), transcripts: streamTranscripts(options.document, operation) }));

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://mock');
    // Clients may keep the real base URL (`…/api/v1`); Prism serves the spec's paths at its root.
    if (basePath && (url.pathname === basePath || url.pathname.startsWith(`${basePath}/`))) {
      url.pathname = url.pathname.slice(basePath.length) || '/';
    }
    const method = request.method ?? 'GET';
    const headers = withoutHeaders(request.headers, [...HOP_BY_HOP, 'content-length']);

    let body: Buffer | IncomingMessage = request;
    let json: unknown;
    if (isJsonMediaType(request.headers['content-type'])) {
      body = Buffer.concat(await request.toArray());
      if (body.length > 0) {
        try {
          json = JSON.parse(body.toString('utf8'));
        } catch {
          sendInvalidJson(request, response);
          return;
        }
      }
      headers['content-length'] = body.length;
    } else if (request.headers['content-length'] !== undefined) {
      headers['content-length'] = request.headers['content-length'];
    } else if (request.headers['transfer-encoding'] !== undefined) {
      headers['transfer-encoding'] = request.headers['transfer-encoding'];
    }

    const streaming = method === 'POST' ? streamingOperations.find(({ matcher }) => matcher.test(url.pathname)) : undefined;
    const wantsStream = streaming !== undefined && isRecord(json) && json.stream === true;
    let exampleName: string | undefined;
    if (streaming) {
      // For these operations the body, not Accept, decides between JSON and a stream.
      headers.accept = 'application/json';
      if (wantsStream) {
        const prefer = splitStreamPrefer(request.headers.prefer);
        headers.prefer = prefer.forPrism;
        exampleName = prefer.example;
      }
    }

    const upstream = await forwardToPrism(options.prismUrl, {
      method,
      path: `${url.pathname}${url.search}`,
      headers,
      body,
    });

    // Prism accepted the request (key, body, Prefer: code=); the front streams the spec's transcript.
    const status = upstream.statusCode ?? 502;
    if (wantsStream && status >= 200 && status < 300) {
      upstream.resume(); // Prism's JSON answer is not needed
      const transcripts = streaming.transcripts;
      const transcript = transcripts.get(exampleName ?? '') ?? transcripts.values().next().value ?? '';
      response.writeHead(200, {
        ...withoutHeaders(upstream.headers, [...HOP_BY_HOP, 'content-length', 'content-type']),
        'content-type': `${EVENT_STREAM}; charset=utf-8`,
        'cache-control': 'no-cache',
        'x-accel-buffering': 'no',
      });
      await replaySse(response, splitSseTranscript(transcript), options.streamDelayMs);
      return;
    }

    response.writeHead(status, withoutHeaders(upstream.headers, HOP_BY_HOP));
    upstream.pipe(response);
    await once(response, 'close');
  }

  return createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      console.error('[mock] request failed:', error);
      if (!response.headersSent) {
        response.writeHead(502, { ...corsHeaders(request), 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            error: { message: 'The mock could not reach Prism.', type: 'api_error', code: 'upstream_error', param: null },
          }),
        );
      } else {
        response.destroy();
      }
    });
  });
}
