// Schema-derived requests for the fuzz suite: every operation of the bundle (read at run time, so
// operations built later are covered without changes here), each sent valid and broken in the ways a
// hostile client breaks requests. Deterministic for a seed.
import { generateSync } from 'json-schema-faker';
import { derefAt, listOperations, type OpenApiDocument as Bundle } from '@persona-api/openapi/document';
import type { OpenApiDocument } from '../../src/contract/spec.js';

/** mulberry32: a small seeded generator; the whole run follows from one seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = Record<string, any>;

export interface FuzzOperation {
  operationId: string;
  method: string;
  path: string;
  requiresAuth: boolean;
  pathParams: { name: string; schema: Schema }[];
  queryParams: { name: string; schema: Schema; required: boolean }[];
  headerParams: { name: string; schema: Schema }[];
  /** The JSON body schema, dereferenced (cycles cut), or null when the operation takes none or raw bytes. */
  bodySchema: Schema | null;
  rawBody: boolean;
  /** Valid bodies (json-schema-faker), a few per operation. */
  samples: Json[];
}

/** A schema with its `$ref`s inlined to `depth` levels (deeper ones become `{}`), for the faker and the mutators. */
function inline(spec: OpenApiDocument, schema: unknown, depth = 0): Schema {
  const { node } = derefAt(spec, schema, undefined);
  if (Array.isArray(node)) return node.map((item) => inline(spec, item, depth)) as unknown as Schema;
  if (!node || typeof node !== 'object') return node as Schema;
  if (depth > 8) return {};
  const out: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key.startsWith('x-') || key === 'example' || key === 'examples' || key === 'discriminator' || key === 'externalDocs' || key === 'xml') continue;
    out[key] =
      key === 'properties' || key === '$defs'
        ? Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, inline(spec, v, depth + 1)]))
        : inline(spec, value, depth + 1);
  }
  return out;
}

export function fuzzOperations(spec: OpenApiDocument, seed: number): FuzzOperation[] {
  return listOperations(spec as unknown as Bundle).map((op, index) => {
    const parameters = op.parameters.map((parameter) => ({ ...parameter, schema: inline(spec, (parameter as { schema?: unknown }).schema ?? {}) }));
    const content = (op.requestBody?.content ?? {}) as Record<string, { schema?: unknown }>;
    const jsonType = Object.keys(content).find((type) => type === 'application/json' || type.endsWith('+json'));
    const bodySchema = jsonType ? inline(spec, content[jsonType]?.schema ?? {}) : null;
    const samples: Json[] = [];
    if (bodySchema) {
      for (let attempt = 0; attempt < 4; attempt++) {
        try {
          samples.push(
            generateSync(
              bodySchema as never,
              {
                seed: seed + index * 31 + attempt,
                alwaysFakeOptionals: attempt % 2 === 0,
                useDefaultValue: true,
                useExamplesValue: true,
                maxDefaultItems: 2,
                maxItems: 3,
              } as never,
            ) as Json,
          );
        } catch {
          // An unsatisfiable branch for the faker: the mutators still have the others.
        }
      }
      if (samples.length === 0) samples.push({});
    }
    return {
      operationId: op.operationId,
      method: op.method.toUpperCase(),
      path: op.path,
      requiresAuth: op.requiresApiKey,
      pathParams: parameters.filter((p) => p.in === 'path').map((p) => ({ name: p.name, schema: p.schema })),
      queryParams: parameters.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema, required: Boolean(p.required) })),
      headerParams: parameters.filter((p) => p.in === 'header').map((p) => ({ name: p.name, schema: p.schema })),
      bodySchema,
      rawBody: Object.keys(content).length > 0 && !jsonType,
      samples,
    };
  });
}

const LONG = (n: number, unit = 'a') => unit.repeat(n);
/** Strings a hostile client sends: NUL, unpaired surrogates, RTL and emoji, markup, SQL, huge. */
export const HOSTILE_STRINGS: string[] = [
  '',
  ' ',
  'a\u0000b',
  '\u0000',
  'x\ud800y',
  '\udfff',
  '😀'.repeat(50),
  'مرحبا بالعالم \u202Eevil\u202C',
  'שלום',
  '\u200B\uFEFF',
  "' OR 1=1 --",
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '%00%ZZ',
  '${jndi:ldap://x}',
  LONG(10_001),
  LONG(100_001),
  LONG(2_000, '😀'),
  'null',
  '0',
  '-1',
  '1e400',
  'Infinity',
  'NaN',
  'true',
];

/** Path segments a hostile client sends, already URL-encoded (or deliberately not). */
export const HOSTILE_SEGMENTS = [
  '%00',
  '%ZZ',
  '%',
  LONG(65),
  LONG(201),
  LONG(1000),
  '..%2F..%2Fadmin',
  '%F0%9F%98%80',
  '%D9%85%D8%B1%D8%AD%D8%A8%D8%A7',
  '%ED%A0%80',
  '%FF%FE',
  'ws_%00abc',
  "'%20OR%201=1--",
  '-1',
  '0',
  'null',
  '%20',
];

export const HOSTILE_QUERY_VALUES = [
  '%00',
  '%ZZ',
  '%ED%A0%80',
  'Infinity',
  '-Infinity',
  '1e400',
  'NaN',
  '-1',
  '0',
  '101',
  '1.5',
  LONG(201),
  LONG(5000),
  '%F0%9F%98%80',
  'true',
  'null',
  '%5B%5D',
];

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
  /** What was done to the request, for the failure report. */
  mutation: string;
}

/** A value for a schema of a text parameter (path or query): valid, or one of its edges. */
function textValue(schema: Schema, pick: <T>(list: readonly T[]) => T, random: () => number): string {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return String(pick(schema.enum));
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  if (type === 'integer' || type === 'number') {
    const min = typeof schema.minimum === 'number' ? schema.minimum : 0;
    const max = typeof schema.maximum === 'number' ? schema.maximum : min + 100;
    return String(pick([min, max, min - 1, max + 1, Math.floor(min + random() * (max - min + 1))]));
  }
  if (type === 'boolean') return pick(['true', 'false', '1', 'yes']);
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : 40;
  return pick(['abc', 'ws_abcdefghijklmnop', LONG(max), LONG(max + 1), 'persona_saas_cfo', '2026-11-15T12:00:00Z']);
}

/** Every path (as keys) to a value inside a JSON document. */
function pathsOf(value: Json, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(prefix);
  if (out.length > 200) return out;
  if (Array.isArray(value)) value.forEach((item, index) => pathsOf(item, [...prefix, index], out));
  else if (value && typeof value === 'object') for (const [key, item] of Object.entries(value)) pathsOf(item, [...prefix, key], out);
  return out;
}

function setAt(root: Json, path: (string | number)[], value: Json | undefined): Json {
  if (path.length === 0) return (value ?? null) as Json;
  const copy = structuredClone(root) as any;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node?.[key];
  if (node && typeof node === 'object') {
    const last = path.at(-1) as string | number;
    if (value === undefined) {
      if (Array.isArray(node)) node.splice(last as number, 1);
      else delete node[last];
    } else node[last] = value;
  }
  return copy;
}

function schemaAt(schema: Schema | null, path: (string | number)[]): Schema {
  let node: Schema | undefined = schema ?? undefined;
  for (const key of path) {
    if (!node) return {};
    const branches = [node, ...((node.oneOf ?? node.anyOf ?? node.allOf ?? []) as Schema[])];
    const next = branches.map((b) => (typeof key === 'number' ? b.items : b.properties?.[key])).find(Boolean);
    node = next;
  }
  return node ?? {};
}

function deep(levels: number): Json {
  let value: Json = 'bottom';
  for (let i = 0; i < levels; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

/** The body mutations; each returns the new body text (or raw payload) and its name. */
function mutateBody(
  op: FuzzOperation,
  sample: Json,
  random: () => number,
  pick: <T>(list: readonly T[]) => T,
): { payload: string; mutation: string; contentType?: string } {
  const paths = pathsOf(sample);
  const path = pick(paths);
  const at = schemaAt(op.bodySchema, path);
  const where = path.join('.') || '(root)';
  const kind = Math.floor(random() * 16);
  switch (kind) {
    case 0:
      return { payload: JSON.stringify(sample), mutation: 'valid body' };
    case 1: {
      const required = (op.bodySchema?.required ?? []) as string[];
      const field = required.length > 0 ? pick(required) : pick(Object.keys((sample as object) ?? {}).concat(['x']));
      return { payload: JSON.stringify(setAt(sample, [field], undefined)), mutation: `missing ${field}` };
    }
    case 2: {
      const key = pick(['unknown_field', LONG(500, 'k'), 'k\u0000', '__proto__', 'constructor', '😀', 'x\ud800']);
      const target = path.length > 0 && typeof pathsOf(sample).find((p) => p === path) !== 'undefined' ? path : [];
      const parentValue = target.reduce<any>((node, k) => node?.[k], sample);
      const container = parentValue && typeof parentValue === 'object' && !Array.isArray(parentValue) ? target : [];
      return {
        payload: JSON.stringify(setAt(sample, [...container, key], 1)),
        mutation: `extra field ${key.slice(0, 20)} at ${container.join('.') || '(root)'}`,
      };
    }
    case 3:
      return {
        payload: JSON.stringify(setAt(sample, path, pick<Json>([1, -1, 1.5, true, null, 'text', [], {}, [1, 2], 1e308, -0]))),
        mutation: `wrong type at ${where}`,
      };
    case 4: {
      const max = typeof at.maxLength === 'number' ? at.maxLength : 1000;
      const min = typeof at.minLength === 'number' ? at.minLength : 0;
      const value = pick([LONG(max + 1), LONG(Math.max(0, min - 1)), LONG(max), LONG(max * 10 + 1)]);
      return { payload: JSON.stringify(setAt(sample, path, value)), mutation: `string bound at ${where} (${value.length})` };
    }
    case 5: {
      const min = typeof at.minimum === 'number' ? at.minimum : 0;
      const max = typeof at.maximum === 'number' ? at.maximum : 1_000_000;
      const value = pick([min - 1, max + 1, min, max, -1e15, 1e15, Number.MAX_SAFE_INTEGER + 2, 0.5]);
      return { payload: JSON.stringify(setAt(sample, path, value)), mutation: `number bound at ${where} (${value})` };
    }
    case 6: {
      const value = pick(HOSTILE_STRINGS);
      return { payload: JSON.stringify(setAt(sample, path, value)), mutation: `hostile string at ${where} (${JSON.stringify(value.slice(0, 12))})` };
    }
    case 7: {
      const levels = pick([20, 63, 65, 100, 5_000, 200_000]);
      if (levels <= 100) return { payload: JSON.stringify(setAt(sample, path, deep(levels))), mutation: `deep JSON (${levels}) at ${where}` };
      // Too deep for JSON.stringify: written as text.
      return { payload: `{"deep":${'['.repeat(levels)}${']'.repeat(levels)}}`, mutation: `deep JSON (${levels}) as text` };
    }
    case 8: {
      const max = typeof at.maxItems === 'number' ? at.maxItems : 100;
      const value = Array.from({ length: pick([max + 1, 0, 1000]) }, () => pick<Json>(['x', 1, {}]));
      return { payload: JSON.stringify(setAt(sample, path, value)), mutation: `array of ${value.length} at ${where}` };
    }
    case 9:
      return {
        payload: pick(['{', '{"a":', 'null', '[]', '"text"', '1', '{"a":1}{"b":2}', '\u0000', '{"a":"\\ud800"}', '{"__proto__":{"x":1}}', '']),
        mutation: 'malformed or non-object JSON',
      };
    case 10:
      return {
        payload: JSON.stringify(sample),
        contentType: pick([
          'text/plain',
          'application/xml',
          'multipart/form-data; boundary=x',
          'application/x-www-form-urlencoded',
          'application/json; charset=latin1',
          'application/octet-stream',
        ]),
        mutation: 'wrong content type',
      };
    case 11: {
      // Every string in the body replaced with the same hostile one.
      const value = pick(HOSTILE_STRINGS.slice(0, 12));
      const replaced = JSON.parse(JSON.stringify(sample), (_key, item) => (typeof item === 'string' ? value : item));
      return { payload: JSON.stringify(replaced), mutation: `every string ${JSON.stringify(value.slice(0, 12))}` };
    }
    case 12: {
      const emoji = pick(['😀👍🏽', 'مرحبا', '\u202Eabc', '𝕏'.repeat(10)]);
      const replaced = JSON.parse(JSON.stringify(sample), (_key, item) => (typeof item === 'string' && item.length > 0 ? `${item.slice(0, 5)}${emoji}` : item));
      return { payload: JSON.stringify(replaced), mutation: 'RTL and emoji in every string' };
    }
    case 13:
      return { payload: JSON.stringify(setAt(sample, path, undefined)), mutation: `removed ${where}` };
    default:
      return { payload: JSON.stringify(sample), mutation: 'valid body' };
  }
}

/** One request for an operation: URL, headers and body, valid or broken. */
export function fuzzRequest(op: FuzzOperation, random: () => number, context: { prefix: string; keys: string[]; ids: string[] }): FuzzRequest {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const mutations: string[] = [];
  let path = op.path;
  for (const param of op.pathParams) {
    let segment: string;
    const roll = random();
    if (roll < 0.5) segment = encodeURIComponent(pick(context.ids));
    else if (roll < 0.75) {
      segment = pick(HOSTILE_SEGMENTS);
      mutations.push(`path ${param.name}=${segment.slice(0, 16)}`);
    } else segment = encodeURIComponent(textValue(param.schema, pick, random));
    path = path.replace(`{${param.name}}`, segment);
  }
  const query: string[] = [];
  for (const param of op.queryParams) {
    const roll = random();
    if (roll < 0.4 && !param.required) continue;
    if (roll < 0.8) query.push(`${param.name}=${encodeURIComponent(textValue(param.schema, pick, random))}`);
    else {
      const value = pick(HOSTILE_QUERY_VALUES);
      query.push(`${param.name}=${value}`);
      mutations.push(`query ${param.name}=${value.slice(0, 16)}`);
    }
  }
  if (random() < 0.1) {
    const extra = pick(['unknown=1', `${LONG(300, 'q')}=1`, 'limit=1&limit=2', '%00=1', 'cursor=garbage', 'cursor=eyJsIjoieCJ9', '&&&', '=']);
    query.push(extra);
    mutations.push(`query ${extra.slice(0, 20)}`);
  }
  const headers: Record<string, string> = {};
  const authRoll = random();
  if (authRoll < 0.9) headers.authorization = `Bearer ${pick(context.keys)}`;
  else if (authRoll < 0.95) {
    headers.authorization = pick(['Bearer svc_live_invalid', 'Basic abc', 'Bearer ', `Bearer ${LONG(500)}`]);
    mutations.push('bad key');
  } else mutations.push('no key');
  for (const header of op.headerParams) {
    if (random() < 0.3) {
      const value = pick(['a', LONG(300), 'persona_saas_cfo', 'persona_none', '😀'.normalize(), 'idem-1', `k-${Math.floor(random() * 5)}`]);
      // Header values are ASCII on the wire; others are refused by Node before the server sees them.
      headers[header.name] = /^[\x20-\x7e]*$/.test(value) ? value : 'x';
      mutations.push(`header ${header.name}`);
    }
  }
  let payload: string | undefined;
  if (op.bodySchema) {
    const body = mutateBody(op, pick(op.samples), random, pick);
    payload = body.payload;
    headers['content-type'] = body.contentType ?? 'application/json';
    mutations.push(body.mutation);
  } else if (op.rawBody) {
    payload = pick(['', 'bytes', LONG(2000)]);
    headers['content-type'] = 'application/octet-stream';
  } else if (random() < 0.05) {
    payload = '{"unexpected":"body"}';
    headers['content-type'] = 'application/json';
    mutations.push('body on a body-less operation');
  }
  const url = `${context.prefix}${path}${query.length > 0 ? `?${query.join('&')}` : ''}`;
  return { method: op.method, url, headers, ...(payload !== undefined ? { payload } : {}), mutation: mutations.join('; ') || 'valid' };
}
