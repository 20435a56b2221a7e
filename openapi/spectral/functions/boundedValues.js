// House rule: every string and array is bounded, in schemas, parameters and headers alike (the OWASP
// string/array rules skip parameter and header schemas). A string needs maxLength, enum or const, or a
// format whose grammar bounds its length (date-time, date, time, uuid); an array needs maxItems (or a
// closed tuple: prefixItems with `items: false`).
import { types, walkAllSchemas } from '../lib/openapi-walk.js';

const LENGTH_BOUNDED_FORMATS = new Set(['date-time', 'date', 'time', 'uuid']);

export default function boundedValues(doc) {
  const results = [];
  walkAllSchemas(doc, (schema, path, ctx) => {
    if (ctx.underNot) return;
    const kinds = types(schema);
    const where = ['parameter', 'header'].includes(ctx.root?.kind) ? ` (in a ${ctx.root.kind})` : '';
    if (
      kinds.includes('string') &&
      schema.maxLength === undefined &&
      schema.enum === undefined &&
      schema.const === undefined &&
      !LENGTH_BOUNDED_FORMATS.has(schema.format)
    ) {
      results.push({ message: `String${where} must be bounded: add maxLength (or enum/const, or a date-time/date/time/uuid format).`, path });
    }
    if (kinds.includes('array') && schema.maxItems === undefined && !(Array.isArray(schema.prefixItems) && schema.items === false)) {
      results.push({ message: `Array${where} must be bounded: add maxItems.`, path });
    }
  });
  return results;
}
