import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { OpenAPIV3_1 } from 'openapi-types';

export type OpenApiDocument = OpenAPIV3_1.Document;

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface SpecOperation {
  method: HttpMethod;
  path: string;
  operation: OpenAPIV3_1.OperationObject;
}

/** The bundled contract built by @persona-api/openapi (JSON, all refs internal). */
export function defaultBundlePath(): string {
  return createRequire(import.meta.url).resolve('@persona-api/openapi/openapi.json');
}

export function loadBundle(path: string = defaultBundlePath()): OpenApiDocument {
  return JSON.parse(readFileSync(path, 'utf8')) as OpenApiDocument;
}

export function listOperations(document: OpenApiDocument): SpecOperation[] {
  return Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    HTTP_METHODS.flatMap((method) => {
      const operation = item?.[method];
      return operation ? [{ method, path, operation }] : [];
    }),
  );
}

/** Follows one internal `#/...` reference (the bundle keeps shared responses as refs). */
export function deref<T>(document: OpenApiDocument, value: T | OpenAPIV3_1.ReferenceObject): T {
  if (value && typeof value === 'object' && '$ref' in value && typeof value.$ref === 'string') {
    const target = value.$ref
      .replace(/^#\//, '')
      .split('/')
      .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], document);
    if (target === undefined) throw new Error(`Unresolvable reference ${value.$ref}`);
    return deref(document, target as T | OpenAPIV3_1.ReferenceObject);
  }
  return value as T;
}

export const EVENT_STREAM = 'text/event-stream';

/** Operations whose 200 response can be a Server-Sent Events stream (chosen by `stream: true` in the body). */
export function listStreamingOperations(document: OpenApiDocument): SpecOperation[] {
  return listOperations(document).filter(({ operation }) => {
    const ok = operation.responses?.['200'];
    return ok !== undefined && deref<OpenAPIV3_1.ResponseObject>(document, ok).content?.[EVENT_STREAM] !== undefined;
  });
}

/** `/api/v1` from `https://host/api/v1`: the mock accepts paths with and without it. */
export function serverBasePath(document: OpenApiDocument): string {
  const url = document.servers?.[0]?.url;
  if (!url) return '';
  return new URL(url, 'http://placeholder').pathname.replace(/\/+$/, '');
}

/** Matches a concrete request path against a templated spec path (`/video-analyses/{id}/chat`). */
export function pathMatcher(templatedPath: string): RegExp {
  const pattern = templatedPath
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${pattern}$`);
}

/** The named `text/event-stream` examples (complete SSE transcripts) of an operation's 200 response. */
export function streamTranscripts(document: OpenApiDocument, operation: OpenAPIV3_1.OperationObject): Map<string, string> {
  const ok = operation.responses?.['200'];
  const media = ok ? deref<OpenAPIV3_1.ResponseObject>(document, ok).content?.[EVENT_STREAM] : undefined;
  const transcripts = new Map<string, string>();
  if (typeof media?.example === 'string') transcripts.set('example', media.example);
  for (const [name, example] of Object.entries(media?.examples ?? {})) {
    const value: unknown = deref<OpenAPIV3_1.ExampleObject>(document, example).value;
    if (typeof value === 'string') transcripts.set(name, value);
  }
  return transcripts;
}
