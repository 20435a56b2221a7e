// Ajv 2020 configured the way the server compiles the bundle (see /work/shared/notes/server-stack-facts.md):
// strict mode, union types allowed, OpenAPI's `discriminator`, ajv-formats. Each component schema is
// registered under its own URN (`urn:persona-api:schemas:X`, so Ajv's errors name the component at fault)
// and every `#/components/schemas/X` ref is rewritten to it, so any schema of the bundle (component, inline
// or subschema) compiles on its own.
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import addFormatsImport from 'ajv-formats';
import { walkAllSchemas } from '../../spectral/lib/openapi-walk.js';
import type { OpenApiDocument } from './bundle.js';
import { pointer } from './bundle.js';

// ajv-formats is CommonJS; under NodeNext its default export is the module object.
const addFormats = addFormatsImport as unknown as typeof addFormatsImport.default;

const SCHEMA_ID_PREFIX = 'urn:persona-api:schemas:';
const LOCAL_SCHEMA_REF = '#/components/schemas/';

// OpenAPI 3.1 Schema Object fields that are not JSON Schema keywords (annotations for Ajv). The 3.0-style
// `example` is deliberately absent: strict mode must reject it (3.1 uses `examples`).
const OPENAPI_SCHEMA_KEYWORDS = ['xml', 'externalDocs'];

/** `#/components/schemas/X/properties/y` → `urn:persona-api:schemas:X#/properties/y`. */
function componentRef(ref: string): string {
  const [name, ...rest] = ref.slice(LOCAL_SCHEMA_REF.length).split('/');
  return `${SCHEMA_ID_PREFIX}${name}${rest.length ? `#/${rest.join('/')}` : ''}`;
}

function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' && value.startsWith(LOCAL_SCHEMA_REF) ? componentRef(value) : rewriteRefs(value),
    ]),
  );
}

/** Every `x-` keyword used inside the document's schemas (Ajv strict mode needs each one declared). */
export function extensionKeywords(doc: OpenApiDocument): string[] {
  const found = new Set<string>();
  walkAllSchemas(doc, (schema: Record<string, unknown>) => {
    for (const key of Object.keys(schema)) if (key.startsWith('x-')) found.add(key);
  });
  return [...found].sort();
}

export interface SchemaCompiler {
  ajv: Ajv2020;
  /** Compiles the schema found at a path of the document (a component, an inline schema, or below). */
  compileAt(path: ReadonlyArray<string | number>): ValidateFunction;
  /** Compiles a schema object taken from the document. */
  compile(schema: unknown): ValidateFunction;
}

/**
 * `strict: false` gives the lenient compiler the example test falls back on when strict mode refuses a
 * schema: no strict checks, and `discriminator` read as an annotation (oneOf alone still validates).
 */
export function createSchemaCompiler(doc: OpenApiDocument, { strict = true } = {}): SchemaCompiler {
  const ajv = new Ajv2020({ strict, allowUnionTypes: true, discriminator: strict, allErrors: true });
  addFormats(ajv);
  ajv.addVocabulary([...OPENAPI_SCHEMA_KEYWORDS, ...(strict ? [] : ['discriminator']), ...extensionKeywords(doc)]);
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
    ajv.addSchema({ ...(rewriteRefs(schema) as object), $id: `${SCHEMA_ID_PREFIX}${name}` });
  }

  const compile = (schema: unknown) => ajv.compile(rewriteRefs(schema) as object);
  const compileAt = (path: ReadonlyArray<string | number>) => {
    if (path[0] === 'components' && path[1] === 'schemas') {
      return ajv.compile({ $ref: componentRef(pointer(path)) });
    }
    let node: any = doc;
    for (const key of path) node = node?.[key];
    if (node === undefined) throw new Error(`No schema at ${pointer(path)}`);
    return compile(node);
  };
  return { ajv, compile, compileAt };
}

/** Ajv's errors as short lines: `/data/0/id must match pattern …`. */
export function formatErrors(validate: ValidateFunction): string[] {
  return (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? e.keyword}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`);
}
