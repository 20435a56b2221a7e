// Shared traversal for the house rules. The rules run on the Redocly bundle, where every $ref is local
// (`#/components/...`); each component is visited exactly once (refs are followed only where a rule needs
// the referenced shape, never while walking). Pointers, refs, operations and parameters come from the
// package's one document walker (lib/walk.js); this file adds the schema walks only the rules need.

import { HTTP_METHODS, isObject, resolvePointer } from '../../lib/walk.js';

// The rules' names for the shared primitives: `deref` returns `{ node, path }` here, `operations` yields
// each operation with its location.
export {
  derefAt as deref,
  HTTP_METHODS,
  isObject,
  operationParameters,
  refToPath,
  resolvePointer,
  walkOperations as operations,
} from '../../lib/walk.js';

// Keywords whose values are subschemas (JSON Schema 2020-12), by shape.
const SINGLE = [
  'additionalProperties',
  'unevaluatedProperties',
  'items',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'propertyNames',
  'unevaluatedItems',
  'contentSchema',
];
const LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const MAPS = ['properties', 'patternProperties', '$defs', 'dependentSchemas'];

/**
 * Calls visit(schema, path, ctx) for a schema and every subschema below it, without following $ref.
 * ctx.parentProperty is the property name a schema is the value of (null elsewhere);
 * ctx.keyword is the keyword it sits under; ctx.mediaType is the media type of the root, if any.
 */
export function walkSchema(schema, path, visit, ctx = {}) {
  if (!isObject(schema)) return;
  visit(schema, path, ctx);
  const child = { mediaType: ctx.mediaType, root: ctx.root };
  for (const keyword of SINGLE) {
    if (isObject(schema[keyword])) {
      walkSchema(schema[keyword], [...path, keyword], visit, { ...child, keyword, parentProperty: null, underNot: ctx.underNot || keyword === 'not' });
    }
  }
  for (const keyword of LISTS) {
    if (Array.isArray(schema[keyword])) {
      schema[keyword].forEach((sub, i) =>
        // A branch of a combinator describes the same value, so it keeps the parent's property name.
        walkSchema(sub, [...path, keyword, i], visit, {
          ...child,
          keyword,
          parentProperty: keyword === 'prefixItems' ? null : ctx.parentProperty,
          underNot: ctx.underNot,
        }),
      );
    }
  }
  for (const keyword of MAPS) {
    if (isObject(schema[keyword])) {
      for (const [name, sub] of Object.entries(schema[keyword])) {
        walkSchema(sub, [...path, keyword, name], visit, {
          ...child,
          keyword,
          parentProperty: keyword === 'properties' ? name : null,
          underNot: ctx.underNot,
        });
      }
    }
  }
}

function* mediaSchemas(content, basePath, kind) {
  if (!isObject(content)) return;
  for (const [mediaType, media] of Object.entries(content)) {
    if (isObject(media?.schema)) {
      yield { schema: media.schema, path: [...basePath, 'content', mediaType, 'schema'], kind, mediaType };
    }
  }
}

function* parameterSchemas(param, basePath) {
  if (!isObject(param) || param.$ref) return;
  if (isObject(param.schema)) yield { schema: param.schema, path: [...basePath, 'schema'], kind: 'parameter', parameter: param };
  yield* mediaSchemas(param.content, basePath, 'parameter');
}

function* headerSchemas(header, basePath) {
  if (!isObject(header) || header.$ref) return;
  if (isObject(header.schema)) yield { schema: header.schema, path: [...basePath, 'schema'], kind: 'header' };
  yield* mediaSchemas(header.content, basePath, 'header');
}

function* responseSchemas(response, basePath) {
  if (!isObject(response) || response.$ref) return;
  for (const [name, header] of Object.entries(response.headers ?? {})) {
    yield* headerSchemas(header, [...basePath, 'headers', name]);
  }
  yield* mediaSchemas(response.content, basePath, 'response');
}

/**
 * Every root schema of the document, each exactly once: component schemas, and the inline schemas of
 * parameters, headers, request bodies and responses (components and operations).
 */
export function* rootSchemas(doc) {
  const components = doc?.components ?? {};
  for (const [name, schema] of Object.entries(components.schemas ?? {})) {
    yield { schema, path: ['components', 'schemas', name], kind: 'component', name };
  }
  for (const [name, param] of Object.entries(components.parameters ?? {})) {
    yield* parameterSchemas(param, ['components', 'parameters', name]);
  }
  for (const [name, header] of Object.entries(components.headers ?? {})) {
    yield* headerSchemas(header, ['components', 'headers', name]);
  }
  for (const [name, response] of Object.entries(components.responses ?? {})) {
    yield* responseSchemas(response, ['components', 'responses', name]);
  }
  for (const [name, body] of Object.entries(components.requestBodies ?? {})) {
    if (isObject(body) && !body.$ref) yield* mediaSchemas(body.content, ['components', 'requestBodies', name], 'request');
  }
  for (const [pathKey, item] of Object.entries(doc?.paths ?? {})) {
    if (!isObject(item) || item.$ref) continue;
    for (const [i, p] of (Array.isArray(item.parameters) ? item.parameters : []).entries()) {
      yield* parameterSchemas(p, ['paths', pathKey, 'parameters', i]);
    }
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      const opPath = ['paths', pathKey, method];
      for (const [i, p] of (Array.isArray(op.parameters) ? op.parameters : []).entries()) {
        yield* parameterSchemas(p, [...opPath, 'parameters', i]);
      }
      if (isObject(op.requestBody) && !op.requestBody.$ref) {
        yield* mediaSchemas(op.requestBody.content, [...opPath, 'requestBody'], 'request');
      }
      for (const [code, response] of Object.entries(op.responses ?? {})) {
        yield* responseSchemas(response, [...opPath, 'responses', code]);
      }
    }
  }
}

/** Walks every schema and subschema of the document once. */
export function walkAllSchemas(doc, visit) {
  for (const root of rootSchemas(doc)) {
    walkSchema(root.schema, root.path, visit, { mediaType: root.mediaType, root, parentProperty: null });
  }
}

/** The JSON Schema `type` of a schema as a list (empty when absent). */
export function types(schema) {
  if (typeof schema?.type === 'string') return [schema.type];
  return Array.isArray(schema?.type) ? schema.type : [];
}

/**
 * Merges the properties and required names of a schema and its allOf branches (following local $refs),
 * which is how the house conventions compose resources (`allOf: [ListEnvelope, {...}]`).
 * Returns { properties, required, refs (names of followed components), extensions (x- keys seen) }.
 */
export function flattenAllOf(doc, schema) {
  const out = { properties: {}, required: new Set(), refs: new Set(), extensions: {} };
  const seen = new Set();
  const visit = (node) => {
    if (!isObject(node)) return;
    if (typeof node.$ref === 'string') {
      if (seen.has(node.$ref)) return;
      seen.add(node.$ref);
      out.refs.add(node.$ref.split('/').pop());
      visit(resolvePointer(doc, node.$ref));
    }
    for (const [key, value] of Object.entries(node)) if (key.startsWith('x-')) out.extensions[key] = value;
    for (const [name, prop] of Object.entries(isObject(node.properties) ? node.properties : {})) {
      out.properties[name] = out.properties[name] ? { allOf: [out.properties[name], prop] } : prop;
    }
    for (const name of Array.isArray(node.required) ? node.required : []) out.required.add(name);
    for (const branch of Array.isArray(node.allOf) ? node.allOf : []) visit(branch);
  };
  visit(schema);
  return out;
}

/** Collects a keyword's value from a property schema, looking through $ref and allOf. */
export function findKeyword(doc, schema, keyword, seen = new Set()) {
  if (!isObject(schema)) return undefined;
  if (schema[keyword] !== undefined) return schema[keyword];
  if (typeof schema.$ref === 'string' && !seen.has(schema.$ref)) {
    seen.add(schema.$ref);
    const found = findKeyword(doc, resolvePointer(doc, schema.$ref), keyword, seen);
    if (found !== undefined) return found;
  }
  for (const branch of Array.isArray(schema.allOf) ? schema.allOf : []) {
    const found = findKeyword(doc, branch, keyword, seen);
    if (found !== undefined) return found;
  }
  return undefined;
}
