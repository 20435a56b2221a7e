// @ts-check
// Ajv 2020 over the bundled contract (dist/openapi.json or .yaml, parsed), shared by every package that
// validates values or schemas against it. Types: ./contract-ajv.d.ts (this file is checked against them).
//
// Each component schema is registered under its own URN (`urn:persona-api:schemas:X`, so Ajv's errors
// name the component at fault) and every `#/components/schemas/X…` ref is rewritten to it, so any schema
// of the bundle — a component, an inline schema of an operation, or a subschema — compiles on its own.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { refToPath, walkAllSchemas } from '../spectral/lib/openapi-walk.js';

// ajv-formats is CommonJS; under NodeNext its default export is the module object.
const addFormats = /** @type {typeof addFormatsModule.default} */ (/** @type {unknown} */ (addFormatsModule));

export const SCHEMA_ID_PREFIX = 'urn:persona-api:schemas:';
const LOCAL_SCHEMA_REF = '#/components/schemas/';

// OpenAPI 3.1 Schema Object fields that are not JSON Schema keywords (annotations for Ajv). The 3.0-style
// `example` is deliberately absent: strict mode must reject it (3.1 uses `examples`).
export const OPENAPI_SCHEMA_KEYWORDS = Object.freeze(['xml', 'externalDocs']);

/** @type {typeof import('./contract-ajv.js').componentSchemaId} */
export const componentSchemaId = (name) => `${SCHEMA_ID_PREFIX}${name}`;

/** `#/components/schemas/X/properties/y` → `urn:persona-api:schemas:X#/properties/y` (the suffix stays encoded). */
function componentRef(/** @type {string} */ ref) {
  const [name = '', ...rest] = ref.slice(LOCAL_SCHEMA_REF.length).split('/');
  return `${componentSchemaId(decodeURIComponent(name))}${rest.length ? `#/${rest.join('/')}` : ''}`;
}

/**
 * A copy of a schema with its `#/components/schemas/…` refs pointing at the registered components.
 * @param {unknown} node
 * @returns {unknown}
 */
function rewriteRefs(node) {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (typeof node !== 'object' || node === null) return node;
  /** @type {Record<string, unknown>} */
  const copy = {};
  for (const [key, value] of Object.entries(node)) {
    copy[key] = key === '$ref' && typeof value === 'string' && value.startsWith(LOCAL_SCHEMA_REF) ? componentRef(value) : rewriteRefs(value);
  }
  return copy;
}

/** One JSON Pointer segment, escaped for a URI fragment. */
const fragmentSegment = (/** @type {string | number} */ part) => encodeURIComponent(String(part).replace(/~/g, '~0').replace(/\//g, '~1'));

/** `#/a~1b/c` for messages (JSON Pointer escaping only, readable). */
const pointerText = (/** @type {ReadonlyArray<string | number>} */ path) =>
  `#/${path.map((part) => String(part).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;

/** @type {typeof import('./contract-ajv.js').extensionKeywords} */
export function extensionKeywords(document) {
  const found = new Set();
  walkAllSchemas(document, (/** @type {Record<string, unknown>} */ schema) => {
    for (const key of Object.keys(schema)) if (key.startsWith('x-')) found.add(key);
  });
  return [...found].sort();
}

/** @type {typeof import('./contract-ajv.js').createContractAjv} */
export function createContractAjv(document, { strict = true, ajvOptions = {} } = {}) {
  const options = { strict, allowUnionTypes: true, discriminator: strict, allErrors: true, ...ajvOptions };
  const ajv = new Ajv2020(options);
  addFormats(ajv);
  // Without Ajv's own discriminator support, `discriminator` is an annotation (the oneOf it sits on validates).
  const annotations = options.discriminator ? OPENAPI_SCHEMA_KEYWORDS : [...OPENAPI_SCHEMA_KEYWORDS, 'discriminator'];
  ajv.addVocabulary([...annotations, ...extensionKeywords(document)]);
  const schemas = document.components?.schemas ?? {};
  for (const [name, schema] of Object.entries(schemas)) {
    ajv.addSchema({ .../** @type {object} */ (rewriteRefs(schema)), $id: componentSchemaId(name) });
  }

  // Compiling a schema is the slow part: each is compiled once, by name, location or object identity.
  /** @type {Map<string, import('ajv').ValidateFunction>} */
  const byLocation = new Map();
  /** @type {WeakMap<object, import('ajv').ValidateFunction>} */
  const bySchema = new WeakMap();

  /** @param {string} key @param {() => import('ajv').ValidateFunction} compile */
  const cached = (key, compile) => {
    let validate = byLocation.get(key);
    if (!validate) {
      validate = compile();
      byLocation.set(key, validate);
    }
    return validate;
  };

  /** @type {import('./contract-ajv.js').ContractAjv['validatorForSchema']} */
  const validatorForSchema = (schema) => {
    if (typeof schema === 'boolean') return ajv.compile(schema);
    let validate = bySchema.get(schema);
    if (!validate) {
      validate = ajv.compile(/** @type {object} */ (rewriteRefs(schema)));
      bySchema.set(schema, validate);
    }
    return validate;
  };

  /** @type {import('./contract-ajv.js').ContractAjv['validatorForComponent']} */
  const validatorForComponent = (name) =>
    cached(`component:${name}`, () => {
      if (!Object.hasOwn(schemas, name)) throw new Error(`No component schema ${name} in the document`);
      return ajv.compile({ $ref: componentSchemaId(name) });
    });

  /** @type {import('./contract-ajv.js').ContractAjv['validatorAt']} */
  const validatorAt = (location) => {
    const path = typeof location === 'string' ? refToPath(location.startsWith('#') ? location : `#${location}`) : location;
    const [root, kind, name, ...rest] = path;
    if (root === 'components' && kind === 'schemas' && name !== undefined) {
      if (rest.length === 0) return validatorForComponent(String(name));
      return cached(pointerText(path), () => {
        const fragment = rest.map(fragmentSegment).join('/');
        return ajv.compile({ $ref: `${componentSchemaId(String(name))}#/${fragment}` });
      });
    }
    /** @type {any} */
    let node = document;
    for (const key of path) node = node?.[key];
    if (node === null || (typeof node !== 'object' && typeof node !== 'boolean')) throw new Error(`No schema at ${pointerText(path)}`);
    return validatorForSchema(node);
  };

  return { ajv, validatorForComponent, validatorForSchema, validatorAt };
}

/** @type {typeof import('./contract-ajv.js').formatErrors} */
export function formatErrors(errors) {
  return (errors ?? []).map((error) => {
    // The one detail Ajv's message leaves out: which property is not allowed.
    const params = /** @type {{ additionalProperty?: unknown; unevaluatedProperty?: unknown }} */ (error.params ?? {});
    const property = params.additionalProperty ?? params.unevaluatedProperty;
    return `${error.instancePath || '(root)'} ${error.message ?? error.keyword}${property === undefined ? '' : ` (${String(property)})`}`;
  });
}

/** @type {typeof import('./contract-ajv.js').validationErrors} */
export function validationErrors(validate, value) {
  return validate(value) ? [] : formatErrors(validate.errors);
}
