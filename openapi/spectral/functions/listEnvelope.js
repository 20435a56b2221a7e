// House rule: list operations return the shared envelope and take `limit` and `cursor`.
//
// An operation is a list operation when its success JSON schema looks like a list (`object` is the
// constant `list`, it composes ListEnvelope, or it has `has_more`/`next_cursor`), or when it is a GET on a
// collection path (one that has a `/{param}` child path, e.g. /workspaces next to /workspaces/{id}).
//
// A list schema marked `x-unpaginated-list: true` is a complete list without cursor fields (the seed's
// meeting schema-results list and the persona suggestions list): it still needs `object: list` and a
// `data` array, but neither has_more/next_cursor nor the limit/cursor parameters.
//
// options.check: 'envelope' (the response shape) or 'pagination' (the query parameters).
import { deref, flattenAllOf, findKeyword, isObject, operationParameters, operations, types } from '../lib/openapi-walk.js';

const EXEMPTION = 'x-unpaginated-list';

function successJsonSchema(doc, op) {
  for (const [code, raw] of Object.entries(op.operation.responses ?? {})) {
    if (!/^2\d\d$/.test(code)) continue;
    const { node: response, path } = deref(doc, raw, [...op.path, 'responses', code]);
    const schema = response?.content?.['application/json']?.schema;
    if (isObject(schema)) return { schema, path: [...path, 'content', 'application/json', 'schema'] };
  }
  return undefined;
}

function isCollectionPath(doc, pathKey) {
  const childPattern = new RegExp(`^${pathKey.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/\\{[^/}]+\\}$`);
  return Object.keys(doc.paths ?? {}).some((other) => childPattern.test(other));
}

const constOf = (doc, schema) => findKeyword(doc, schema, 'const');

function envelopeProblems(doc, flat, exempt) {
  const problems = [];
  const { properties: props, required } = flat;
  if (constOf(doc, props.object) !== 'list') problems.push('`object` must be the constant `list`');
  const dataType = types({ type: findKeyword(doc, props.data, 'type') });
  if (!dataType.includes('array')) problems.push('`data` must be an array of the items');
  if (!exempt) {
    if (!types({ type: findKeyword(doc, props.has_more, 'type') }).includes('boolean')) {
      problems.push('`has_more` must be a boolean');
    }
    const cursorType = types({ type: findKeyword(doc, props.next_cursor, 'type') });
    if (!(cursorType.includes('string') && cursorType.includes('null'))) {
      problems.push('`next_cursor` must be `[string, null]`');
    }
  }
  const mustRequire = exempt ? ['object', 'data'] : ['object', 'data', 'has_more', 'next_cursor'];
  const missing = mustRequire.filter((name) => props[name] && !required.has(name));
  if (missing.length) problems.push(`${missing.map((n) => `\`${n}\``).join(', ')} must be required`);
  return problems;
}

function paginationProblems(doc, op) {
  const params = operationParameters(doc, op).filter(({ parameter }) => parameter.in === 'query');
  const byName = new Map(params.map(({ parameter }) => [parameter.name, parameter]));
  const problems = [];
  const limit = byName.get('limit');
  if (!limit) {
    problems.push('the `limit` query parameter is missing');
  } else {
    const schema = deref(doc, limit.schema, []).node;
    const min = findKeyword(doc, schema, 'minimum');
    const max = findKeyword(doc, schema, 'maximum');
    if (!types(schema).includes('integer') || min !== 1 || max !== 100) {
      problems.push('`limit` must be an integer with minimum 1 and maximum 100');
    }
  }
  const cursor = byName.get('cursor');
  if (!cursor) {
    problems.push('the `cursor` query parameter is missing');
  } else if (!types(deref(doc, cursor.schema, []).node).includes('string')) {
    problems.push('`cursor` must be a string');
  }
  return problems;
}

export default function listEnvelope(doc, options) {
  const check = options?.check ?? 'envelope';
  const results = [];
  const reported = new Set();
  for (const op of operations(doc)) {
    const success = successJsonSchema(doc, op);
    const flat = success ? flattenAllOf(doc, success.schema) : undefined;
    const exempt = flat?.extensions[EXEMPTION] === true;
    const listShaped =
      !!flat &&
      (exempt ||
        constOf(doc, flat.properties.object) === 'list' ||
        flat.refs.has('ListEnvelope') ||
        'has_more' in flat.properties ||
        'next_cursor' in flat.properties);
    const collectionGet = op.method === 'get' && isCollectionPath(doc, op.pathKey);
    const where = `${op.method.toUpperCase()} ${op.pathKey}`;

    if (check === 'envelope') {
      if (collectionGet && !listShaped) {
        results.push({
          message: `${where} reads a collection (${op.pathKey}/{…} exists), so its 200 application/json schema must be the list envelope (allOf ListEnvelope + data).`,
          path: success?.path ?? [...op.path, 'responses'],
        });
        continue;
      }
      if (!listShaped) continue;
      const problems = envelopeProblems(doc, flat, exempt);
      // A shared list component is reported once, at the first operation that uses it.
      const key = `${success.schema.$ref ?? success.path.join('/')}:${problems.join()}`;
      if (problems.length && !reported.has(key)) {
        reported.add(key);
        results.push({
          message: `${where} returns a list but its envelope is wrong: ${problems.join('; ')}.${exempt ? '' : ` (A complete list without cursor fields marks its schema \`${EXEMPTION}: true\`.)`}`,
          path: success.path,
        });
      }
    } else if (op.method === 'get' && (listShaped || collectionGet) && !exempt) {
      const problems = paginationProblems(doc, op);
      if (problems.length) {
        results.push({
          message: `${where} is a list operation: ${problems.join('; ')} (use components/parameters Limit/MeetingLimit and Cursor).`,
          path: [...op.path, 'parameters'],
        });
      }
    }
  }
  return results;
}
