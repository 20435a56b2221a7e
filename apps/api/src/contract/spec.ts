import { basePath as bundleBasePath, listOperations as listSpecOperations, loadBundle, type OpenApiDocument as Bundle } from '@persona-api/openapi/document';

/** The parts of an OpenAPI 3.1 document this server reads; everything else is passed through to glue. */
export interface OpenApiDocument {
  openapi: string;
  servers?: { url: string }[];
  security?: Record<string, string[]>[];
  paths?: Record<string, Record<string, unknown>>;
  components?: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
}

export interface OperationInfo {
  operationId: string;
  method: string;
  /** The OpenAPI path template, e.g. `/workspaces/{id}`. */
  path: string;
  /** Whether a bearer API key is required (the root `security`, unless the operation overrides it). */
  requiresAuth: boolean;
  /** Header parameters by lower-case name, mapped to the name the spec spells (`Idempotency-Key`). */
  headerNames: Record<string, string>;
  /** The request body is raw bytes (no JSON media type): handed to the handler as a stream. */
  rawBody: boolean;
  /** The contract gives the operation a request body at all. */
  hasBody: boolean;
  /** Query parameters sent as `name[key]=value` (`style: deepObject`), folded by http/query.ts. */
  deepObjectQuery: string[];
}

/** Reads the bundled contract that `@persona-api/openapi` builds (openapi/dist/openapi.json). */
export function loadSpec(): OpenApiDocument {
  return loadBundle() as unknown as OpenApiDocument;
}

/** `/api/v1` from the first server URL: glue ignores `servers`, so the prefix is passed explicitly. */
export function basePath(spec: OpenApiDocument): string {
  return bundleBasePath(spec);
}

/** Every operation of the contract, in document order, as the server's routing needs it. */
export function listOperations(spec: OpenApiDocument): OperationInfo[] {
  return listSpecOperations(spec as unknown as Bundle).map((operation) => {
    const mediaTypes = Object.keys(operation.requestBody?.content ?? {});
    return {
      operationId: operation.operationId,
      method: operation.method.toUpperCase(),
      path: operation.path,
      // `security: []` or an alternative `{}` makes authentication optional.
      // The console's operations take a session cookie instead (resources/console), not the bearer key.
      requiresAuth: operation.requiresApiKey && (operation.operation.security ?? spec.security ?? []).every((requirement) => 'BearerAuth' in requirement),
      headerNames: Object.fromEntries(operation.parameters.filter((parameter) => parameter.in === 'header').map(({ name }) => [name.toLowerCase(), name])),
      rawBody: mediaTypes.length > 0 && !mediaTypes.some((type) => type === 'application/json' || type.endsWith('+json')),
      hasBody: mediaTypes.length > 0,
      deepObjectQuery: operation.parameters.filter((parameter) => parameter.in === 'query' && parameter.style === 'deepObject').map(({ name }) => name),
    };
  });
}

/**
 * The contract with every free-form JSON object (`x-free-form: true`: a caller's JSON Schema, a parsed
 * structured output) given `additionalProperties: true`. Validation is the same (an absent
 * `additionalProperties` allows anything too), but Fastify's serializer writes only declared
 * properties unless told otherwise, and would send such objects as `{}`.
 */
export function withOpenFreeFormObjects(spec: OpenApiDocument): OpenApiDocument {
  return rewriteObjects(spec, (copy) => {
    const type = copy.type;
    const isObject = type === 'object' || (Array.isArray(type) && type.includes('object'));
    if (copy['x-free-form'] === true && isObject && copy.additionalProperties === undefined && copy.properties === undefined) {
      copy.additionalProperties = true;
    }
    return copy;
  });
}

type SchemaObject = Record<string, unknown>;

/** A deep copy of a JSON document with `rewrite` applied to every object, its members already rewritten. */
function rewriteObjects<T>(document: T, rewrite: (copy: SchemaObject) => SchemaObject): T {
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (!node || typeof node !== 'object') return node;
    const copy: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) copy[key] = visit(value);
    return rewrite(copy);
  };
  return visit(document) as T;
}

/**
 * A response schema as Fastify's serializer (fast-json-stringify) is given it: every nullable scalar
 * written `oneOf: [<scalar schema>, {type: 'null'}]` becomes the scalar schema with `type: [t, 'null']`.
 * Both accept exactly the same values; fast-json-stringify writes the second directly, but for a oneOf it
 * runs an Ajv check per branch for every value (72 µs of a 50-thread page's 89). Request validation keeps
 * the contract's own schemas.
 */
export function withNullableScalars<T>(schema: T): T {
  return rewriteObjects(schema, nullableScalar);
}

function nullableScalar(copy: SchemaObject): SchemaObject {
  const branches = copy.oneOf;
  if (!Array.isArray(branches) || branches.length !== 2) return copy;
  const nullAt = branches.findIndex((branch) => isNullSchema(branch));
  const other = branches[1 - nullAt] as SchemaObject | undefined;
  const plain = other && !('$ref' in other) && !('oneOf' in other) && !('anyOf' in other) && !('allOf' in other) && !('const' in other);
  if (nullAt < 0 || !plain || typeof other.type !== 'string' || !SCALAR_TYPES.has(other.type)) return copy;
  const { oneOf: _oneOf, ...rest } = copy;
  const values = Array.isArray(other.enum) ? { enum: [...other.enum, null] } : {};
  return { ...other, ...rest, type: [other.type, 'null'], ...values };
}

const SCALAR_TYPES = new Set(['string', 'integer', 'number', 'boolean']);

/**
 * A union of objects told apart by constant properties (`object: 'persona' | 'custom_persona'`, an output
 * item's `type`; a conversation item's `type`, then its `role` among messages) as the serializer is given it:
 * `if` the property is among the first branch's values `then` that branch, `else` the next test, the last
 * branch at the end. For a `oneOf`, fast-json-stringify runs an Ajv check of each branch's whole schema, every
 * string's length included, until one passes (about 20 µs per base persona, half the cost of a persona page);
 * the `if` is one comparison. Only a union whose branches all require the property, with constants (`const`
 * or a string `enum`) that no two groups of branches share, is rewritten, so both pick the same branch for any
 * value the contract allows.
 */
export function withDiscriminatedUnions<T>(schema: T): T {
  return rewriteObjects(schema, discriminatedUnion);
}

function discriminatedUnion(copy: SchemaObject): SchemaObject {
  const branches = copy.oneOf;
  if (!Array.isArray(branches) || branches.length < 2) return copy;
  const chain = chainOf(branches as SchemaObject[]);
  if (!chain) return copy;
  const { oneOf: _oneOf, ...rest } = copy;
  return { ...rest, ...chain };
}

/** The if/then/else chain that picks among `branches` by their tags, or undefined when they cannot be told apart so. */
function chainOf(branches: SchemaObject[], ruledOut: ReadonlySet<string> = new Set()): SchemaObject | undefined {
  if (branches.length === 1) return branches[0];
  const properties = Object.keys((branches[0]?.properties as SchemaObject | undefined) ?? {}).filter((name) => !ruledOut.has(name));
  for (const property of properties) {
    const groups = groupByTags(branches, property);
    if (!groups) continue;
    const bodies = groups.map((group) => chainOf(group.branches, new Set([...ruledOut, property])));
    if (bodies.some((body) => body === undefined)) continue;
    return groups.slice(0, -1).reduceRight<SchemaObject>(
      (otherwise, group, index) => ({
        // `type: 'object'` keeps Ajv's strict mode quiet about `required` without a type (a warning per route at start).
        if: { type: 'object', properties: { [property]: group.tags.length === 1 ? { const: group.tags[0] } : { enum: group.tags } }, required: [property] },
        then: bodies[index]!,
        else: otherwise,
      }),
      bodies[bodies.length - 1]!,
    );
  }
  return undefined;
}

/** Branches grouped by the values they allow `property` (each a required constant), if the groups share none and are at least two. */
function groupByTags(branches: SchemaObject[], property: string): { tags: string[]; branches: SchemaObject[] }[] | undefined {
  const groups = new Map<string, { tags: string[]; branches: SchemaObject[] }>();
  for (const branch of branches) {
    const tags = tagsOf(branch, property);
    if (!tags) return undefined;
    const key = JSON.stringify([...tags].sort());
    const group = groups.get(key) ?? { tags, branches: [] };
    group.branches.push(branch);
    groups.set(key, group);
  }
  const all = [...groups.values()].flatMap((group) => group.tags);
  return groups.size >= 2 && new Set(all).size === all.length ? [...groups.values()] : undefined;
}

/** The string values a branch allows a required property: its `const`, or its `enum`. */
function tagsOf(branch: SchemaObject, property: string): string[] | undefined {
  const schema = (branch.properties as Record<string, SchemaObject> | undefined)?.[property];
  if (!schema || !Array.isArray(branch.required) || !branch.required.includes(property)) return undefined;
  const values = 'const' in schema ? [schema.const] : schema.enum;
  return Array.isArray(values) && values.length > 0 && values.every((value) => typeof value === 'string') ? (values as string[]) : undefined;
}

/**
 * Every response schema as the serializer is given it: both rewrites above in one copy of the schema (a node
 * is one or the other: a nullable has a null branch, which no tag tells apart). Validation keeps the contract's.
 */
export const serializerSchema = <T>(schema: T): T => rewriteObjects(schema, (copy) => discriminatedUnion(nullableScalar(copy)));

function isNullSchema(node: unknown): boolean {
  if (!node || typeof node !== 'object') return false;
  const keys = Object.keys(node).filter((key) => key !== 'description' && key !== 'title');
  return keys.length === 1 && (node as { type?: unknown }).type === 'null';
}
