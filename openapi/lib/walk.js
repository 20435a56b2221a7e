// The primitives every reader of the bundle shares: JSON pointers, `$ref` chains, operations and their
// parameters. Pure functions over the parsed document (no file or network access), so Spectral's ruleset
// bundler can load them too. The bundle holds only local refs (`#/components/...`), so a tiny pointer
// resolver is enough. Lenient by design: the house rules run on documents that may be broken.

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);

const unescapeSegment = (raw) => decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');

/** `['components', 'schemas', 'X']` from `#/components/schemas/X`. */
export function refToPath(ref) {
  return ref.slice(2).split('/').map(unescapeSegment);
}

/** `/components/schemas/X` (a JSON pointer, without `#`) from a list of path segments. */
export function pathToPointer(path) {
  return path.map((segment) => `/${String(segment).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** Resolves a local JSON pointer (`#/components/schemas/X`); returns undefined for anything else. */
export function resolvePointer(doc, ref) {
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return undefined;
  let node = doc;
  for (const key of refToPath(ref)) {
    if (!isObject(node) && !Array.isArray(node)) return undefined;
    node = node[key];
  }
  return node;
}

/**
 * Follows a chain of $ref objects; returns the target and the path it lives at (`path` unchanged when
 * `node` is no reference). Stops at a ref it cannot resolve or has already seen.
 */
export function derefAt(doc, node, path) {
  const seen = new Set();
  while (isObject(node) && typeof node.$ref === 'string' && !seen.has(node.$ref)) {
    seen.add(node.$ref);
    const target = resolvePointer(doc, node.$ref);
    if (target === undefined) break;
    path = refToPath(node.$ref);
    node = target;
  }
  return { node, path };
}

/** The target of a value that may be a `$ref` (followed to the end); throws on a ref that resolves to nothing. */
export function deref(doc, value) {
  const { node } = derefAt(doc, value, undefined);
  if (isObject(node) && typeof node.$ref === 'string') throw new Error(`Unresolvable reference ${node.$ref}`);
  return node;
}

/** Every operation of the document with its path template, method and location, in document order. */
export function* walkOperations(doc) {
  for (const [pathKey, rawItem] of Object.entries(doc?.paths ?? {})) {
    const { node: item, path: itemPath } = derefAt(doc, rawItem, ['paths', pathKey]);
    if (!isObject(item)) continue;
    for (const method of HTTP_METHODS) {
      if (isObject(item[method])) {
        yield { pathKey, method, operation: item[method], pathItem: item, path: [...itemPath, method], itemPath };
      }
    }
  }
}

/**
 * The parameters that apply to an operation of `walkOperations` (path-item level overridden by operation
 * level), dereferenced, each with the location it was found at.
 */
export function operationParameters(doc, op) {
  const byKey = new Map();
  const add = (list, basePath) =>
    (Array.isArray(list) ? list : []).forEach((raw, i) => {
      const { node, path } = derefAt(doc, raw, [...basePath, 'parameters', i]);
      if (isObject(node)) byKey.set(`${node.in}:${node.name}`, { parameter: node, path });
    });
  add(op.pathItem.parameters, op.itemPath);
  add(op.operation.parameters, op.path);
  return [...byKey.values()];
}

/** `application/json` and its `+json` variants. */
export function isJsonMediaType(mediaType) {
  return /^application\/([\w.+-]+\+)?json\b/i.test(mediaType);
}

/** True unless the operation opts out of the API key (`security: []` or an alternative `{}`). */
export function requiresApiKey(document, operation) {
  const security = operation.security ?? document.security ?? [];
  return security.length > 0 && security.every((requirement) => Object.keys(requirement).length > 0);
}
