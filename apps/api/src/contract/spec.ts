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

/** A deep copy of a JSON document with `rewrite` applied to every object, its members already rewritten. */
function rewriteObjects<T>(document: T, rewrite: (copy: Record<string, unknown>) => Record<string, unknown>): T {
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
  return rewriteObjects(schema, (copy) => {
    const branches = copy.oneOf;
    if (!Array.isArray(branches) || branches.length !== 2) return copy;
    const nullAt = branches.findIndex((branch) => isNullSchema(branch));
    const other = branches[1 - nullAt] as Record<string, unknown> | undefined;
    const plain = other && !('$ref' in other) && !('oneOf' in other) && !('anyOf' in other) && !('allOf' in other) && !('const' in other);
    if (nullAt < 0 || !plain || typeof other.type !== 'string' || !SCALAR_TYPES.has(other.type)) return copy;
    const { oneOf: _oneOf, ...rest } = copy;
    const values = Array.isArray(other.enum) ? { enum: [...other.enum, null] } : {};
    return { ...other, ...rest, type: [other.type, 'null'], ...values };
  });
}

const SCALAR_TYPES = new Set(['string', 'integer', 'number', 'boolean']);

/**
 * A union of objects told apart by one constant property (`object: 'persona' | 'custom_persona'`, an output
 * item's `type`) as the serializer is given it: `if` that property is the first branch's value `then` the
 * first branch, `else` the next test, the last branch at the end. For a `oneOf`, fast-json-stringify runs
 * an Ajv check of each branch's whole schema, every string's length included, until one passes (about 20 µs
 * per base persona, half the cost of a persona page); the `if` is one comparison. Only a union whose every
 * branch requires that property with a distinct constant is rewritten, so both pick the same branch for any
 * value the contract allows.
 */
export function withDiscriminatedUnions<T>(schema: T): T {
  return rewriteObjects(schema, (copy) => {
    const branches = copy.oneOf;
    if (!Array.isArray(branches) || branches.length < 2) return copy;
    const property = discriminatorOf(branches as Record<string, unknown>[]);
    if (!property) return copy;
    const tagOf = (branch: Record<string, unknown>) => constantOf((branch.properties as Record<string, Record<string, unknown>>)[property]!);
    const last = branches[branches.length - 1] as Record<string, unknown>;
    const chain = (branches.slice(0, -1) as Record<string, unknown>[]).reduceRight<Record<string, unknown>>(
      (otherwise, branch) => ({ if: { properties: { [property]: { const: tagOf(branch) } }, required: [property] }, then: branch, else: otherwise }),
      last,
    );
    const { oneOf: _oneOf, ...rest } = copy;
    return { ...rest, ...chain };
  });
}

/** The property every branch requires with a constant of its own, if there is one. */
function discriminatorOf(branches: Record<string, unknown>[]): string | undefined {
  const [first] = branches;
  const candidates = Object.keys((first?.properties as Record<string, unknown> | undefined) ?? {});
  return candidates.find((property) => {
    const values = branches.map((branch) => {
      const schema = (branch.properties as Record<string, Record<string, unknown>> | undefined)?.[property];
      const required = Array.isArray(branch.required) && branch.required.includes(property);
      return schema && required ? constantOf(schema) : undefined;
    });
    return values.every((value) => typeof value === 'string') && new Set(values).size === values.length;
  });
}

function constantOf(schema: Record<string, unknown>): unknown {
  if ('const' in schema) return schema.const;
  return Array.isArray(schema.enum) && schema.enum.length === 1 ? schema.enum[0] : undefined;
}

/** Every response schema as the serializer is given it (the two rewrites above; validation keeps the contract's). */
export const serializerSchema = <T>(schema: T): T => withDiscriminatedUnions(withNullableScalars(schema));

function isNullSchema(node: unknown): boolean {
  if (!node || typeof node !== 'object') return false;
  const keys = Object.keys(node).filter((key) => key !== 'description' && key !== 'title');
  return keys.length === 1 && (node as { type?: unknown }).type === 'null';
}
