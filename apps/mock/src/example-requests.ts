// One concrete request per operation, built only from the spec: what the mock test sends and what the
// docs' code samples show. Values come from the spec's examples; only where the spec has none is one
// generated from the schema (deterministically, so the docs do not change from one build to the next).
import RandExp from 'randexp';
import type { OpenAPIV3_1 } from 'openapi-types';
import { deref, listOperations, type HttpMethod, type OpenApiDocument, type SpecOperation } from './spec.js';

type Parameter = OpenAPIV3_1.ParameterObject;
type Schema = OpenAPIV3_1.SchemaObject;

export interface ExampleRequest {
  operationId: string;
  summary: string;
  method: HttpMethod;
  /** The spec's templated path, e.g. `/workspaces/{id}`. */
  path: string;
  /** Concrete path and query string relative to the base URL, e.g. `/workspaces/ws_1?limit=10`. */
  url: string;
  pathParams: Record<string, string>;
  query: Record<string, string>;
  /** Required header parameters (never Authorization). */
  headers: Record<string, string>;
  /** The same parameter values before they became strings (typed, for code samples). */
  values: { path: Record<string, unknown>; query: Record<string, unknown>; header: Record<string, unknown> };
  /** JSON bodies are values; other media types (an upload's bytes) are text. */
  body?: { contentType: string; value: unknown };
  /** Every named example of the JSON body (a streaming operation has a streamed and a plain one). */
  bodyExamples: Array<{ name: string; value: unknown }>;
  /** False where the operation overrides security with `[]` / `[{}]` (the signed upload URL). */
  requiresApiKey: boolean;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function firstExample(
  document: OpenApiDocument,
  holder: { example?: unknown; examples?: unknown } | undefined,
): unknown {
  if (!holder) return undefined;
  if (holder.example !== undefined) return holder.example;
  if (Array.isArray(holder.examples)) return holder.examples[0]; // a schema's `examples`
  if (isRecord(holder.examples)) {
    const first = Object.values(holder.examples)[0];
    if (first !== undefined) return deref<OpenAPIV3_1.ExampleObject>(document, first as OpenAPIV3_1.ExampleObject).value;
  }
  return undefined;
}

function namedExamples(document: OpenApiDocument, media: OpenAPIV3_1.MediaTypeObject): ExampleRequest['bodyExamples'] {
  if (media.example !== undefined) return [{ name: 'example', value: media.example }];
  return Object.entries(media.examples ?? {}).map(([name, example]) => ({
    name,
    value: deref<OpenAPIV3_1.ExampleObject>(document, example).value,
  }));
}

export function isJsonMediaType(mediaType: string): boolean {
  return /^application\/([\w.+-]+\+)?json\b/i.test(mediaType);
}

function successContent(document: OpenApiDocument, operation: OpenAPIV3_1.OperationObject) {
  const code = Object.keys(operation.responses ?? {}).find((status) => /^2\d\d$/.test(status));
  if (!code) return undefined;
  return deref<OpenAPIV3_1.ResponseObject>(document, operation.responses![code]!).content;
}

/** The success example of an operation, when it is JSON. */
export function successExample(document: OpenApiDocument, operation: OpenAPIV3_1.OperationObject): unknown {
  const content = successContent(document, operation);
  const media = Object.entries(content ?? {}).find(([type]) => isJsonMediaType(type))?.[1];
  return firstExample(document, media) ?? firstExample(document, media?.schema && deref<Schema>(document, media.schema));
}

// A small seeded generator (mulberry32): generated values are the same on every run.
function seededRandom(seed: number): (from: number, to: number) => number {
  let state = seed >>> 0;
  return (from, to) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const unit = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    return from + Math.floor(unit * (to - from + 1));
  };
}

function valueFromSchema(document: OpenApiDocument, rawSchema: unknown, seed: number): unknown {
  const schema = rawSchema ? deref<Schema>(document, rawSchema as Schema) : undefined;
  if (!schema) return 'example';
  const fromSpec = firstExample(document, schema) ?? schema.default ?? schema.const ?? schema.enum?.[0];
  if (fromSpec !== undefined) return fromSpec;
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (type === 'integer' || type === 'number') return schema.minimum ?? 1;
  if (type === 'boolean') return true;
  if (typeof schema.pattern === 'string') {
    const generator = new RandExp(schema.pattern);
    generator.randInt = seededRandom(seed);
    generator.max = 8;
    let value = generator.gen();
    if (schema.minLength !== undefined) value = value.padEnd(schema.minLength, value.at(-1) ?? 'a');
    return value;
  }
  return 'example';
}

const stringify = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/**
 * A path parameter without an example takes the value the spec's own examples use for that resource:
 * the `id` (or `user_id`, …) of the success example of an operation on the path that ends at the parameter
 * (`/workspaces/{id}` for the `id` of `/workspaces/{id}/members`).
 */
function pathValueFromResourceExample(document: OpenApiDocument, path: string, name: string): string | undefined {
  const end = path.indexOf(`{${name}}`);
  if (end < 0) return undefined;
  const resourcePath = path.slice(0, end + name.length + 2);
  const key = resourcePath.endsWith('/{id}') && name === 'id' ? 'id' : name;
  const item = document.paths?.[resourcePath];
  for (const method of ['get', 'patch', 'delete', 'post'] as const) {
    const operation = item?.[method];
    const example = operation && successExample(document, operation);
    if (isRecord(example) && typeof example[key] === 'string') return example[key];
  }
  return undefined;
}

/** The first value of a property named `name` anywhere in an example (`workspace_id` in a folder list). */
function findProperty(example: unknown, name: string): unknown {
  if (Array.isArray(example)) {
    for (const item of example) {
      const found = findProperty(item, name);
      if (found !== undefined) return found;
    }
  } else if (isRecord(example)) {
    if (example[name] !== undefined && example[name] !== null && typeof example[name] !== 'object') return example[name];
    return findProperty(Object.values(example), name);
  }
  return undefined;
}

function operationParameters(document: OpenApiDocument, { path, operation }: SpecOperation): Parameter[] {
  const byKey = new Map<string, Parameter>();
  for (const raw of [...(document.paths?.[path]?.parameters ?? []), ...(operation.parameters ?? [])]) {
    const parameter = deref<Parameter>(document, raw);
    byKey.set(`${parameter.in}:${parameter.name}`, parameter); // operation-level wins
  }
  return [...byKey.values()];
}

/** True unless the operation opts out of the API key (`security: []` or `[{}]`). */
export function requiresApiKey(document: OpenApiDocument, operation: OpenAPIV3_1.OperationObject): boolean {
  const security = operation.security ?? document.security ?? [];
  return security.length > 0 && security.every((requirement) => Object.keys(requirement).length > 0);
}

export function exampleRequest(document: OpenApiDocument, specOperation: SpecOperation): ExampleRequest {
  const { method, path, operation } = specOperation;
  const pathParams: Record<string, string> = {};
  const query: Record<string, string> = {};
  const headers: Record<string, string> = {};
  const values: ExampleRequest['values'] = { path: {}, query: {}, header: {} };
  operationParameters(document, specOperation).forEach((parameter, index) => {
    if (parameter.in !== 'path' && !parameter.required) return;
    const value =
      firstExample(document, parameter) ??
      (parameter.in === 'path' ? pathValueFromResourceExample(document, path, parameter.name) : undefined) ??
      findProperty(successExample(document, operation), parameter.name) ??
      valueFromSchema(document, parameter.schema, index + 1);
    if (parameter.in === 'path') {
      pathParams[parameter.name] = stringify(value);
      values.path[parameter.name] = value;
    } else if (parameter.in === 'query') {
      query[parameter.name] = stringify(value);
      values.query[parameter.name] = value;
    } else if (parameter.in === 'header' && parameter.name.toLowerCase() !== 'authorization') {
      headers[parameter.name] = stringify(value);
      values.header[parameter.name] = value;
    }
  });

  let body: ExampleRequest['body'];
  let bodyExamples: ExampleRequest['bodyExamples'] = [];
  if (operation.requestBody) {
    const requestBody = deref<OpenAPIV3_1.RequestBodyObject>(document, operation.requestBody);
    const entries = Object.entries(requestBody.content ?? {});
    const [contentType, media] = entries.find(([type]) => isJsonMediaType(type)) ?? entries[0] ?? [];
    if (contentType && media && isJsonMediaType(contentType)) {
      bodyExamples = namedExamples(document, media);
      // The plain (non-streamed) example first: a streamed one is the exception.
      const value =
        (bodyExamples.find(({ value }) => !(isRecord(value) && value.stream === true)) ?? bodyExamples[0])?.value ??
        firstExample(document, media.schema && deref<Schema>(document, media.schema));
      if (value !== undefined) body = { contentType, value };
    } else if (contentType) {
      body = { contentType, value: 'Example file content.\n' };
    }
  }

  const concretePath = path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(pathParams[name] ?? name));
  const search = new URLSearchParams(query).toString();
  return {
    operationId: operation.operationId ?? `${method} ${path}`,
    summary: operation.summary ?? '',
    method,
    path,
    url: search ? `${concretePath}?${search}` : concretePath,
    pathParams,
    query,
    headers,
    values,
    ...(body ? { body } : {}),
    bodyExamples,
    requiresApiKey: requiresApiKey(document, operation),
  };
}

export function exampleRequests(document: OpenApiDocument): ExampleRequest[] {
  return listOperations(document).map((operation) => exampleRequest(document, operation));
}
