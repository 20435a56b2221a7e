// House rule: property names and query/path parameter names are snake_case.
// The one narrow exception: an object schema that is the value of a property named `headers` lists HTTP
// header names (the upload URL's `Content-Type`, `x-storage-checksum-sha256`), so its keys must be header
// field names (letters and digits in hyphen-separated words) instead.
import { isObject, walkAllSchemas, operations, operationParameters } from '../lib/openapi-walk.js';

const SNAKE_CASE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;
const HEADER_NAME = /^[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*$/;

export default function snakeCaseNames(doc) {
  const results = [];
  walkAllSchemas(doc, (schema, path, ctx) => {
    if (!isObject(schema.properties)) return;
    const headerMap = ctx.parentProperty === 'headers';
    for (const name of Object.keys(schema.properties)) {
      if (headerMap ? !HEADER_NAME.test(name) : !SNAKE_CASE.test(name)) {
        results.push({
          message: headerMap
            ? `Header name "${name}" in a \`headers\` object is not a valid HTTP header field name.`
            : `Property "${name}" must be snake_case (lowercase words joined by underscores).`,
          path: [...path, 'properties', name],
        });
      }
    }
  });
  const reported = new Set();
  for (const op of operations(doc)) {
    for (const { parameter, path } of operationParameters(doc, op)) {
      if (parameter.in === 'header' || SNAKE_CASE.test(parameter.name)) continue;
      const key = path.join('/');
      if (reported.has(key)) continue;
      reported.add(key);
      results.push({
        message: `${parameter.in} parameter "${parameter.name}" must be snake_case (lowercase words joined by underscores).`,
        path: [...path, 'name'],
      });
    }
  }
  return results;
}
