// `@persona-api/openapi/document`: the one module that loads the bundled contract and walks it, for the
// server, the mock, the docs, the engine and the tests. Types in ./document.d.ts.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { deref, operationParameters, requiresApiKey, walkOperations } from './walk.js';

export {
  deref,
  derefAt,
  HTTP_METHODS,
  isJsonMediaType,
  isObject,
  operationParameters,
  pathToPointer,
  refToPath,
  requiresApiKey,
  resolvePointer,
  walkOperations,
} from './walk.js';
export { exampleRequest, exampleRequests, successExample } from './example-requests.js';

export const EVENT_STREAM = 'text/event-stream';

/** The bundle this package builds (openapi/dist/openapi.json, every `$ref` local). */
export function bundlePath() {
  return fileURLToPath(new URL('../dist/openapi.json', import.meta.url));
}

export function loadBundle(path = bundlePath()) {
  return JSON.parse(readFileSync(path, 'utf8'));
}

/** Whether an operation's 200 response can be a Server-Sent Events stream (chosen by `stream: true`). */
function isStreaming(document, operation) {
  const ok = operation.responses?.['200'];
  return ok !== undefined && deref(document, ok)?.content?.[EVENT_STREAM] !== undefined;
}

/** Every operation of the contract in document order, with its parameters, body and responses dereferenced. */
export function listOperations(document) {
  return [...walkOperations(document)].map((found) => {
    const { method, pathKey: path, operation } = found;
    return {
      method,
      path,
      operationId: operation.operationId ?? `${method} ${path}`,
      summary: operation.summary ?? '',
      tags: operation.tags ?? [],
      operation,
      parameters: operationParameters(document, found).map(({ parameter }) => parameter),
      requestBody: operation.requestBody === undefined ? undefined : deref(document, operation.requestBody),
      responses: Object.fromEntries(Object.entries(operation.responses ?? {}).map(([status, response]) => [status, deref(document, response)])),
      streaming: isStreaming(document, operation),
      requiresApiKey: requiresApiKey(document, operation),
    };
  });
}

export function listStreamingOperations(document) {
  return listOperations(document).filter((operation) => operation.streaming);
}

/** `/api/v1` from the first server URL (`https://host/api/v1`); '' when there is none. */
export function basePath(document) {
  const url = document.servers?.[0]?.url;
  if (!url) return '';
  return new URL(url, 'http://placeholder').pathname.replace(/\/+$/, '');
}

/** Matches a concrete request path against a templated spec path (`/video-analyses/{id}/chat`). */
export function pathMatcher(templatedPath) {
  const pattern = templatedPath
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${pattern}$`);
}

/** The named `text/event-stream` examples (complete SSE transcripts) of an operation's 200 response. */
export function streamTranscripts(document, operation) {
  const ok = operation.responses?.['200'];
  const media = ok ? deref(document, ok).content?.[EVENT_STREAM] : undefined;
  const transcripts = new Map();
  if (typeof media?.example === 'string') transcripts.set('example', media.example);
  for (const [name, example] of Object.entries(media?.examples ?? {})) {
    const value = deref(document, example)?.value;
    if (typeof value === 'string') transcripts.set(name, value);
  }
  return transcripts;
}
