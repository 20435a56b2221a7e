import type { paths } from '@persona-api/types';
import createOpenApiClient, { mergeHeaders, type Client as OpenApiClient, type Middleware } from 'openapi-fetch';
import { ApiError } from './errors.js';
import { DEFAULT_BASE_URL, PUBLIC_OPERATIONS, VERSION } from './generated/meta.js';
import { Paginator } from './pagination.js';
import { EventStream, defaultCollector } from './streaming.js';
import { createTransport, type Fetch, type RetryInfo } from './transport.js';
import type {
  ApiResult,
  ClientMethod,
  InitArgs,
  ListInit,
  ListItem,
  ListResponse,
  ListPath,
  StreamEvent,
  StreamFinal,
  StreamInit,
  StreamPath,
} from './types.js';

export interface ClientOptions {
  /** The API key (`svc_live_…`), sent as `Authorization: Bearer <apiKey>`. */
  apiKey: string;
  /** Defaults to the contract's first server, `https://api.persona-service.example/api/v1`. */
  baseUrl?: string;
  /** Retries after the first attempt for a 429, or for a 5xx / network error / timeout when safe. Default 2. */
  maxRetries?: number;
  /** Milliseconds to wait for the response headers of one attempt. Default 60 000. */
  timeout?: number;
  /** Longest `Retry-After` (ms) the client waits out; a 429 asking for more is thrown at once. Default 60 000. */
  maxRetryAfter?: number;
  /**
   * `auto` (default) gives every POST without an `Idempotency-Key` a random one (kept across its retries),
   * which makes POSTs safe to retry on 5xx and network errors; `off` sends only the keys you pass.
   */
  idempotencyKeys?: 'auto' | 'off';
  /** Headers sent with every request (e.g. `X-Request-Id` to correlate logs). */
  headers?: Record<string, string>;
  /** A fetch implementation; defaults to `globalThis.fetch`. */
  fetch?: Fetch;
  /** Called before each retry, e.g. to log it. */
  onRetry?: (info: RetryInfo) => void;
}

export interface PersonaClient {
  /** `GET` a path of the contract; resolves to `{ data, response, requestId }`, throws `ApiError` otherwise. */
  GET: ClientMethod<'get'>;
  POST: ClientMethod<'post'>;
  PUT: ClientMethod<'put'>;
  PATCH: ClientMethod<'patch'>;
  DELETE: ClientMethod<'delete'>;
  /** Iterates every item of a list operation, following `next_cursor` until `has_more` is false. */
  paginate<P extends ListPath>(path: P, ...init: InitArgs<ListInit<P>>): Paginator<ListItem<P>, ListResponse<P>>;
  /**
   * Calls a streaming operation with `stream: true` and resolves, once the headers are in, to an
   * `EventStream` of its typed events; throws `ApiError` when the server refuses the request.
   */
  stream<P extends StreamPath>(path: P, ...init: InitArgs<StreamInit<P>>): Promise<EventStream<StreamEvent<P>, StreamFinal<P>>>;
  /** The openapi-fetch client underneath (same transport, auth and retries), e.g. to add middleware. */
  readonly raw: OpenApiClient<paths, 'application/json'>;
}

/** The chat stream's final usage chunk is requested by default, so that `finalResponse()` can fill `usage`. */
const CHAT_COMPLETIONS = '/chat/completions' satisfies StreamPath;

type UntypedInit = Record<string, unknown> & { params?: { query?: Record<string, unknown> }; signal?: AbortSignal };
type UntypedRequest = (method: string, path: string, init?: UntypedInit) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

export function createClient(options: ClientOptions): PersonaClient {
  if (!options.apiKey) throw new TypeError('createClient: `apiKey` is required.');
  const transport = createTransport({
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    maxRetries: options.maxRetries ?? 2,
    timeout: options.timeout ?? 60_000,
    maxRetryAfter: options.maxRetryAfter ?? 60_000,
    onRetry: options.onRetry,
  });
  const raw = createOpenApiClient<paths, 'application/json'>({
    baseUrl: options.baseUrl ?? DEFAULT_BASE_URL,
    fetch: transport,
    bodySerializer: serializeBody,
    headers: {
      Accept: 'application/json',
      'User-Agent': `persona-api-client/${VERSION}`,
      ...options.headers,
      Authorization: `Bearer ${options.apiKey}`,
    },
  });
  raw.use(publicOperationMiddleware);
  if ((options.idempotencyKeys ?? 'auto') === 'auto') raw.use(idempotencyKeyMiddleware);

  // The typed surface is the generic signatures above; one untyped core serves them all.
  const request = raw.request as unknown as UntypedRequest;
  async function call(method: string, path: string, init?: UntypedInit): Promise<ApiResult<unknown>> {
    const { data, error, response } = await request(method, path, init);
    if (!response.ok) throw ApiError.fromResponse(response, error);
    return { data, response, requestId: response.headers.get('x-request-id') };
  }

  return {
    GET: ((path: string, init?: UntypedInit) => call('GET', path, init)) as PersonaClient['GET'],
    POST: ((path: string, init?: UntypedInit) => call('POST', path, init)) as PersonaClient['POST'],
    PUT: ((path: string, init?: UntypedInit) => call('PUT', path, init)) as PersonaClient['PUT'],
    PATCH: ((path: string, init?: UntypedInit) => call('PATCH', path, init)) as PersonaClient['PATCH'],
    DELETE: ((path: string, init?: UntypedInit) => call('DELETE', path, init)) as PersonaClient['DELETE'],

    paginate(path, ...[init]) {
      const base = (init ?? {}) as UntypedInit;
      return new Paginator((cursor) => {
        const query = cursor === undefined ? base.params?.query : { ...base.params?.query, cursor };
        return call('GET', path, { ...base, params: { ...base.params, query } });
      }) as never;
    },

    async stream(path, ...[init]) {
      const base = (init ?? {}) as UntypedInit & { body?: Record<string, unknown>; headers?: HeadersInit };
      const body: Record<string, unknown> = { ...base.body, stream: true };
      if (path === CHAT_COMPLETIONS && body.stream_options == null) body.stream_options = { include_usage: true };
      const controller = new AbortController();
      const { error, response } = await request('POST', path, {
        ...base,
        body,
        parseAs: 'stream',
        headers: mergeHeaders({ Accept: 'text/event-stream' }, base.headers),
        signal: base.signal ? AbortSignal.any([base.signal, controller.signal]) : controller.signal,
      });
      if (!response.ok) throw ApiError.fromResponse(response, error);
      return new EventStream(response, defaultCollector(body), controller);
    },

    raw,
  };
}

/**
 * JSON, except for the upload target's bytes: binary values as they are, and a string as it is when the
 * caller set a non-JSON `Content-Type`.
 */
function serializeBody(body: unknown, headers?: Headers | Record<string, unknown>): BodyInit {
  if (body instanceof Blob || body instanceof ArrayBuffer || ArrayBuffer.isView(body) || body instanceof FormData) {
    return body as BodyInit;
  }
  const contentType = headers instanceof Headers ? headers.get('content-type') : undefined;
  if (typeof body === 'string' && contentType && !/\bjson\b/i.test(contentType)) return body;
  return JSON.stringify(body);
}

/** The API key stays off the operations the contract exempts from it (the presigned upload target). */
const publicOperationMiddleware: Middleware = {
  onRequest({ request, schemaPath }) {
    if (PUBLIC_OPERATIONS.has(`${request.method} ${schemaPath}`)) request.headers.delete('Authorization');
  },
};

/** Set on the Request before the transport sees it, so every retry of a POST carries the same key. */
const idempotencyKeyMiddleware: Middleware = {
  onRequest({ request }) {
    if (request.method === 'POST' && !request.headers.has('idempotency-key')) {
      request.headers.set('Idempotency-Key', newIdempotencyKey());
    }
  },
};

/** `crypto.randomUUID` is in Node 20 and secure browser contexts; `getRandomValues` everywhere else. */
function newIdempotencyKey(): string {
  const { crypto } = globalThis;
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('');
}
