import type { OpenAPIV3_1 } from 'openapi-types';
import { deref, isJsonMediaType, listOperations, type ExampleRequest, type OpenApiDocument, type SpecOperation } from '../../src/index.js';

// The house format of a key: `svc_live_` and 40 base62 characters.
export const API_KEY = `svc_live_${'a1B2c3D4e5'.repeat(4)}`;

export interface SendOptions {
  apiKey?: boolean;
  /** Replaces the example's JSON body. */
  body?: unknown;
  /** Sent as is, bypassing JSON encoding. */
  rawBody?: string;
  headers?: Record<string, string>;
}

export function send(baseUrl: string, request: ExampleRequest, options: SendOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...request.headers, ...options.headers };
  if (options.apiKey ?? request.requiresApiKey) {
    headers.authorization = `Bearer ${API_KEY}`;
    // The console's operations are authorised by a session cookie and a CSRF header instead.
    Object.assign(headers, request.credentials);
  }
  let body: string | undefined = options.rawBody;
  if (request.body && body === undefined) {
    const value = options.body === undefined ? request.body.value : options.body;
    body = isJsonMediaType(request.body.contentType) ? JSON.stringify(value) : String(value);
  }
  if (body !== undefined) headers['content-type'] = request.body?.contentType ?? 'application/json';
  return fetch(`${baseUrl}${request.url}`, { method: request.method.toUpperCase(), headers, body: body ?? null });
}

export function findOperation(document: OpenApiDocument, request: ExampleRequest): SpecOperation {
  const found = listOperations(document).find(({ method, path }) => method === request.method && path === request.path);
  if (!found) throw new Error(`No operation ${request.method} ${request.path}`);
  return found;
}

/** The schema of an operation's response for a status and media type (undefined when not documented). */
export function responseSchema(document: OpenApiDocument, operation: OpenAPIV3_1.OperationObject, status: string, mediaType = 'application/json'): unknown {
  const response = operation.responses?.[status] ?? operation.responses?.default;
  if (!response) return undefined;
  return deref<OpenAPIV3_1.ResponseObject>(document, response).content?.[mediaType]?.schema;
}

export function successStatus(operation: OpenAPIV3_1.OperationObject): string {
  const status = Object.keys(operation.responses ?? {}).find((code) => /^2\d\d$/.test(code));
  if (!status) throw new Error(`${operation.operationId} documents no success response`);
  return status;
}

/**
 * A non-JSON success body (the bytes GET /uploads/{key} streams): its media type and first example, which
 * Prism sends as is. Undefined when the response has no such content.
 */
export function rawSuccessExample(
  document: OpenApiDocument,
  operation: OpenAPIV3_1.OperationObject,
  status: string,
): { mediaType: string; value: string } | undefined {
  const response = operation.responses?.[status];
  if (!response) return undefined;
  const content = deref<OpenAPIV3_1.ResponseObject>(document, response).content ?? {};
  const entry = Object.entries(content).find(([type]) => !isJsonMediaType(type) && type !== 'text/event-stream');
  if (!entry) return undefined;
  const [mediaType, media] = entry;
  const example = Object.values(media.examples ?? {})[0];
  const value = example === undefined ? media.example : deref<OpenAPIV3_1.ExampleObject>(document, example).value;
  return typeof value === 'string' ? { mediaType, value } : undefined;
}
