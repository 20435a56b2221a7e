// Ajv 2020 over the bundle: every `#/components/schemas/X` ref is rewritten to one registered document,
// so any schema of the bundle (inline or a component) compiles on its own. Lenient (strict: false) because
// this checks the mock's responses, not the schemas themselves (the openapi package's tests do that).
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsImport from 'ajv-formats';
import type { OpenApiDocument } from '../../src/index.js';

// ajv-formats is CommonJS; under NodeNext its default export is the module object.
const addFormats = addFormatsImport as unknown as typeof addFormatsImport.default;

const COMPONENTS_ID = 'urn:persona-api:components';
const LOCAL_SCHEMA_REF = '#/components/schemas/';

function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' && value.startsWith(LOCAL_SCHEMA_REF)
        ? `${COMPONENTS_ID}#/$defs/${value.slice(LOCAL_SCHEMA_REF.length)}`
        : rewriteRefs(value),
    ]),
  );
}

export interface ResponseValidator {
  /** Ajv's errors as readable lines, empty when the value matches. */
  check(schema: unknown, value: unknown): string[];
}

export function createValidator(document: OpenApiDocument): ResponseValidator {
  const ajv = new Ajv2020({ strict: false, allowUnionTypes: true, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: COMPONENTS_ID, $defs: rewriteRefs(document.components?.schemas ?? {}) as object });
  const compiled = new Map<unknown, ValidateFunction>();
  return {
    check(schema, value) {
      let validate = compiled.get(schema);
      if (!validate) {
        validate = ajv.compile(rewriteRefs(schema) as object);
        compiled.set(schema, validate);
      }
      if (validate(value)) return [];
      return (validate.errors ?? []).map((error) => `${error.instancePath || '(root)'} ${error.message ?? error.keyword}`);
    },
  };
}
