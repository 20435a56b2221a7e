// House rule: every resource schema carries a constant `object` discriminator (the seed: "`object` is a
// constant discriminator string on every resource"). A resource is a component schema that has both `id`
// and `created_at` once its allOf branches are merged; `object` must then be a required property with a
// string `const`.
import { findKeyword, flattenAllOf, isObject } from '../lib/openapi-walk.js';

export default function resourceObjectConstant(doc) {
  const results = [];
  for (const [name, schema] of Object.entries(doc?.components?.schemas ?? {})) {
    if (!isObject(schema)) continue;
    const { properties, required } = flattenAllOf(doc, schema);
    if (!('id' in properties && 'created_at' in properties)) continue;
    const path = ['components', 'schemas', name];
    const value = findKeyword(doc, properties.object, 'const');
    if (typeof value !== 'string') {
      results.push({
        message: `${name} is a resource (it has id and created_at) but has no \`object\` property with a string \`const\` (e.g. \`object: {type: string, const: workspace}\`).`,
        path,
      });
    } else if (!required.has('object')) {
      results.push({ message: `${name} is a resource: its constant \`object\` property must be required.`, path });
    }
  }
  return results;
}
