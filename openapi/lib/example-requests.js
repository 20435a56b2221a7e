// One concrete request per operation, built only from the spec: what the mock test sends, what the
// server's 501 walk sends and what the docs' code samples show. Values come from the spec's examples; only
// where the spec has none is one generated from the schema (deterministically, so the docs do not change
// from one build to the next). Types in ./document.d.ts (`ExampleRequest`).
import RandExp from 'randexp';
import { deref, isJsonMediaType, isObject, requiresApiKey, walkOperations } from './walk.js';

function firstExample(document, holder) {
  if (!holder) return undefined;
  if (holder.example !== undefined) return holder.example;
  if (Array.isArray(holder.examples)) return holder.examples[0]; // a schema's `examples`
  if (isObject(holder.examples)) {
    const first = Object.values(holder.examples)[0];
    if (first !== undefined) return deref(document, first).value;
  }
  return undefined;
}

function namedExamples(document, media) {
  if (media.example !== undefined) return [{ name: 'example', value: media.example }];
  return Object.entries(media.examples ?? {}).map(([name, example]) => ({ name, value: deref(document, example).value }));
}

function successContent(document, operation) {
  const code = Object.keys(operation.responses ?? {}).find((status) => /^2\d\d$/.test(status));
  if (!code) return undefined;
  return deref(document, operation.responses[code]).content;
}

/** The success example of an operation, when it is JSON. */
export function successExample(document, operation) {
  const content = successContent(document, operation);
  const media = Object.entries(content ?? {}).find(([type]) => isJsonMediaType(type))?.[1];
  return firstExample(document, media) ?? firstExample(document, media?.schema && deref(document, media.schema));
}

// A small seeded generator (mulberry32): generated values are the same on every run.
function seededRandom(seed) {
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

function valueFromSchema(document, rawSchema, seed) {
  const schema = rawSchema ? deref(document, rawSchema) : undefined;
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

const stringify = (value) => (typeof value === 'string' ? value : JSON.stringify(value));

/**
 * A path parameter without an example takes the value the spec's own examples use for that resource:
 * the `id` (or `user_id`, …) of the success example of an operation on the path that ends at the parameter
 * (`/workspaces/{id}` for the `id` of `/workspaces/{id}/members`).
 */
function pathValueFromResourceExample(document, path, name) {
  const end = path.indexOf(`{${name}}`);
  if (end < 0) return undefined;
  const resourcePath = path.slice(0, end + name.length + 2);
  const key = resourcePath.endsWith('/{id}') && name === 'id' ? 'id' : name;
  const item = document.paths?.[resourcePath];
  for (const method of ['get', 'patch', 'delete', 'post']) {
    const operation = item?.[method];
    const example = operation && successExample(document, operation);
    if (isObject(example) && typeof example[key] === 'string') return example[key];
  }
  return undefined;
}

/** The first value of a property named `name` anywhere in an example (`workspace_id` in a folder list). */
function findProperty(example, name) {
  if (Array.isArray(example)) {
    for (const item of example) {
      const found = findProperty(item, name);
      if (found !== undefined) return found;
    }
  } else if (isObject(example)) {
    if (example[name] !== undefined && example[name] !== null && typeof example[name] !== 'object') return example[name];
    return findProperty(Object.values(example), name);
  }
  return undefined;
}

function parametersOf(document, path, operation) {
  const byKey = new Map();
  for (const raw of [...(document.paths?.[path]?.parameters ?? []), ...(operation.parameters ?? [])]) {
    const parameter = deref(document, raw);
    byKey.set(`${parameter.in}:${parameter.name}`, parameter); // operation-level wins
  }
  return [...byKey.values()];
}

/** The example request of one operation (`{ method, path, operation }`, as `listOperations` lists them). */
export function exampleRequest(document, { method, path, operation }) {
  const pathParams = {};
  const query = {};
  const headers = {};
  const values = { path: {}, query: {}, header: {} };
  parametersOf(document, path, operation).forEach((parameter, index) => {
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

  let body;
  let bodyExamples = [];
  if (operation.requestBody) {
    const requestBody = deref(document, operation.requestBody);
    const entries = Object.entries(requestBody.content ?? {});
    const [contentType, media] = entries.find(([type]) => isJsonMediaType(type)) ?? entries[0] ?? [];
    if (contentType && media && isJsonMediaType(contentType)) {
      bodyExamples = namedExamples(document, media);
      // The plain (non-streamed) example first: a streamed one is the exception.
      const value =
        (bodyExamples.find(({ value }) => !(isObject(value) && value.stream === true)) ?? bodyExamples[0])?.value ??
        firstExample(document, media.schema && deref(document, media.schema));
      if (value !== undefined) body = { contentType, value };
    } else if (contentType) {
      body = { contentType, value: 'Example file content.\n' };
    }
  }

  const concretePath = path.replace(/\{([^}]+)\}/g, (_, name) => encodeURIComponent(pathParams[name] ?? name));
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
    credentials: exampleCredentials(document, operation),
  };
}

/** Example values for the apiKey schemes an operation names that travel in a header or a cookie (see ExampleRequest). */
function exampleCredentials(document, operation) {
  const requirement = (operation.security ?? document.security ?? []).find((candidate) => Object.keys(candidate).length > 0) ?? {};
  const credentials = {};
  const cookies = [];
  for (const name of Object.keys(requirement)) {
    const scheme = deref(document, document.components?.securitySchemes?.[name] ?? {});
    if (scheme.type !== 'apiKey') continue;
    const value = `example_${name}_${'0'.repeat(24)}`;
    if (scheme.in === 'header') credentials[scheme.name] = value;
    else if (scheme.in === 'cookie') cookies.push(`${scheme.name}=${value}`);
  }
  if (cookies.length > 0) credentials.Cookie = cookies.join('; ');
  return credentials;
}

export function exampleRequests(document) {
  return [...walkOperations(document)].map(({ method, pathKey: path, operation }) => exampleRequest(document, { method, path, operation }));
}
