// House rule: no untyped value where the shape is known.
//
//  1. `additionalProperties: true` (or `unevaluatedProperties: true`) is forbidden: a map says what its
//     values are, an object with fixed fields says `false` (request bodies) or nothing.
//  2. `additionalProperties: {}` (a schema with no type, $ref, const, enum or combinator) is forbidden.
//  3. A map (typed additionalProperties) declares `maxProperties`.
//  4. An object schema with no properties, no patternProperties, no typed or false additionalProperties
//     and no allOf/anyOf/oneOf/$ref/const/enum accepts anything: it is an error unless it is marked
//     `x-free-form: true` — reserved for values that are themselves free JSON, like a tool's `parameters`
//     or a json_schema's `schema` (a JSON Schema document) — and then it declares `maxProperties`.
//  5. A schema with no type information at all (e.g. only a description) accepts any JSON value: it is an
//     error unless marked `x-free-form: true` (e.g. a schema field's extracted `value`, which may be any
//     JSON type). The root schema of a non-JSON media type (raw bytes), `propertyNames` (keys are strings)
//     and `if` conditions are exempt.
import { isObject, types, walkAllSchemas } from '../lib/openapi-walk.js';

const FREE_FORM = 'x-free-form';
const SHAPE_KEYWORDS = [
  'type',
  '$ref',
  '$dynamicRef',
  'const',
  'enum',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'properties',
  'patternProperties',
  'additionalProperties',
  'unevaluatedProperties',
  'required',
  'items',
  'prefixItems',
  'contains',
];
const isUntyped = (schema) => isObject(schema) && !SHAPE_KEYWORDS.some((k) => schema[k] !== undefined);
const isJsonMedia = (mediaType) => mediaType === undefined || /^application\/(?:[\w.+-]+\+)?json$/.test(mediaType) || mediaType === 'text/event-stream';

export default function typedFreeFormObjects(doc) {
  const results = [];
  walkAllSchemas(doc, (schema, path, ctx) => {
    if (ctx.underNot) return; // a negated schema describes what is excluded, not a shape.
    const freeForm = schema[FREE_FORM] === true;
    for (const keyword of ['additionalProperties', 'unevaluatedProperties']) {
      if (schema[keyword] === true) {
        results.push({
          message: `\`${keyword}: true\` accepts any unknown field: declare the value schema (a typed map with maxProperties) or use false.`,
          path: [...path, keyword],
        });
      } else if (isUntyped(schema[keyword])) {
        results.push({
          message: `\`${keyword}\` has no type: declare the schema of the map's values.`,
          path: [...path, keyword],
        });
      }
    }
    const typedMap = isObject(schema.additionalProperties) && !isUntyped(schema.additionalProperties);
    if (typedMap && schema.maxProperties === undefined) {
      results.push({ message: 'A map (typed additionalProperties) must declare maxProperties.', path });
    }
    const isObjectType = types(schema).includes('object');
    const hasShape =
      isObject(schema.properties) ||
      isObject(schema.patternProperties) ||
      typedMap ||
      schema.additionalProperties === false ||
      schema.unevaluatedProperties === false ||
      ['allOf', 'anyOf', 'oneOf', '$ref', 'const', 'enum', 'if'].some((k) => schema[k] !== undefined);
    // An additionalProperties that is true or untyped was reported above; one finding per mistake.
    if (isObjectType && !hasShape && schema.additionalProperties === undefined) {
      if (!freeForm) {
        results.push({
          message: `Object with no declared shape: give it properties, or typed additionalProperties with maxProperties (a map); only a value that is itself free JSON (e.g. a JSON Schema) may be marked \`${FREE_FORM}: true\`.`,
          path,
        });
      } else if (schema.maxProperties === undefined) {
        results.push({ message: `A free-form object (\`${FREE_FORM}: true\`) must still declare maxProperties.`, path });
      }
      return;
    }
    const binaryRoot = ctx.root && path.length === ctx.root.path.length && !isJsonMedia(ctx.mediaType);
    // Keywords whose subschema is not a value: map keys (always strings) and conditions; the maps'
    // values were reported above.
    const notAValue = ['propertyNames', 'if', 'additionalProperties', 'unevaluatedProperties'].includes(ctx.keyword);
    if (isUntyped(schema) && !freeForm && !binaryRoot && !notAValue) {
      results.push({
        message: `Schema has no type (it accepts any JSON value): declare its shape, or mark it \`${FREE_FORM}: true\` if any JSON value is intended.`,
        path,
      });
    }
  });
  return results;
}
