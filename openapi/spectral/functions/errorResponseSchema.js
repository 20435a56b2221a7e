// House rule: every error response (4xx, 5xx, 4XX/5XX and `default`) has a JSON body whose schema is the
// ErrorResponse component, so clients parse one error shape everywhere. Runs on the unresolved bundle and
// compares the $ref itself; a shared component response is reported once, where it is defined.
import { deref, isObject, operations } from '../lib/openapi-walk.js';

const ERROR_STATUS = /^(?:[45](?:\d\d|XX)|default)$/;
const isErrorResponseRef = (schema) => isObject(schema) && typeof schema.$ref === 'string' && /\/components\/schemas\/ErrorResponse$/.test(schema.$ref);

export default function errorResponseSchema(doc) {
  const results = [];
  const reported = new Set();
  const report = (path, message) => {
    const key = path.join('/');
    if (!reported.has(key)) {
      reported.add(key);
      results.push({ message, path });
    }
  };
  for (const op of operations(doc)) {
    for (const [code, raw] of Object.entries(op.operation.responses ?? {})) {
      if (!ERROR_STATUS.test(code)) continue;
      const { node: response, path } = deref(doc, raw, [...op.path, 'responses', code]);
      if (!isObject(response)) continue;
      const content = isObject(response.content) ? response.content : {};
      if (!isObject(content['application/json'])) {
        report(path, `The ${code} response of ${op.method.toUpperCase()} ${op.pathKey} must have an application/json body with the ErrorResponse schema.`);
        continue;
      }
      for (const [mediaType, media] of Object.entries(content)) {
        if (!isErrorResponseRef(media?.schema)) {
          report(
            [...path, 'content', mediaType, 'schema'],
            `Error response ${code} (${mediaType}) must use \`$ref: '#/components/schemas/ErrorResponse'\` as its schema.`,
          );
        }
      }
    }
  }
  return results;
}
