import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

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
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Reads the bundled contract that `@persona-api/openapi` builds (openapi/dist/openapi.json). */
export function loadSpec(): OpenApiDocument {
  const require = createRequire(import.meta.url);
  const file = require.resolve('@persona-api/openapi/openapi.json');
  return JSON.parse(readFileSync(file, 'utf8')) as OpenApiDocument;
}

/** `/api/v1` from the first server URL: glue ignores `servers`, so the prefix is passed explicitly. */
export function basePath(spec: OpenApiDocument): string {
  const url = spec.servers?.[0]?.url;
  if (!url) return '';
  return new URL(url, 'http://localhost').pathname.replace(/\/$/, '');
}

function resolveRef<T>(spec: OpenApiDocument, value: unknown): T {
  let current = value as { $ref?: string };
  // Bundled documents only hold local refs (#/components/...).
  for (let depth = 0; current && typeof current.$ref === 'string' && depth < 20; depth++) {
    const pointer = current.$ref.replace(/^#\//, '').split('/');
    let target: unknown = spec;
    for (const part of pointer) target = (target as Record<string, unknown>)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    current = target as { $ref?: string };
  }
  return current as T;
}

/** Every operation of the contract, in document order. */
export function listOperations(spec: OpenApiDocument): OperationInfo[] {
  const operations: OperationInfo[] = [];
  for (const [path, pathItem] of Object.entries(spec.paths ?? {})) {
    const shared = (pathItem.parameters as unknown[] | undefined) ?? [];
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method] as
        | { operationId?: string; security?: Record<string, string[]>[]; parameters?: unknown[]; requestBody?: unknown }
        | undefined;
      if (!operation?.operationId) continue;
      const security = operation.security ?? spec.security ?? [];
      const headerNames: Record<string, string> = {};
      for (const raw of [...shared, ...(operation.parameters ?? [])]) {
        const parameter = resolveRef<{ in?: string; name?: string }>(spec, raw);
        if (parameter?.in === 'header' && parameter.name) headerNames[parameter.name.toLowerCase()] = parameter.name;
      }
      const body = resolveRef<{ content?: Record<string, unknown> } | undefined>(spec, operation.requestBody);
      const mediaTypes = Object.keys(body?.content ?? {});
      operations.push({
        operationId: operation.operationId,
        method: method.toUpperCase(),
        path,
        // `security: []` or an alternative `{}` makes authentication optional.
        requiresAuth: security.length > 0 && security.every((requirement) => Object.keys(requirement).length > 0),
        headerNames,
        rawBody: mediaTypes.length > 0 && !mediaTypes.some((type) => type === 'application/json' || type.endsWith('+json')),
      });
    }
  }
  return operations;
}

/**
 * The contract with every free-form JSON object (`x-free-form: true`: a caller's JSON Schema, a parsed
 * structured output) given `additionalProperties: true`. Validation is the same (an absent
 * `additionalProperties` allows anything too), but Fastify's serializer writes only declared
 * properties unless told otherwise, and would send such objects as `{}`.
 */
export function withOpenFreeFormObjects(spec: OpenApiDocument): OpenApiDocument {
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (!node || typeof node !== 'object') return node;
    const copy: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) copy[key] = visit(value);
    const type = copy.type;
    const isObject = type === 'object' || (Array.isArray(type) && type.includes('object'));
    if (copy['x-free-form'] === true && isObject && copy.additionalProperties === undefined && copy.properties === undefined) {
      copy.additionalProperties = true;
    }
    return copy;
  };
  return visit(spec) as OpenApiDocument;
}
