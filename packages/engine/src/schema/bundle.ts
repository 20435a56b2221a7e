// Component schemas of the bundled contract (@persona-api/openapi), inlined into self-contained JSON Schemas:
// what the upstream engine sends as `response_format` for analyses and persona generation, and what it
// validates the replies against. Read lazily: the offline engine never needs it.
import { loadBundle } from '@persona-api/openapi/document';
import type { JsonSchema } from '../types.js';

const LOCAL_REF = '#/components/schemas/';
// Annotations a model or Ajv has no use for.
const DROPPED_KEYS = new Set(['examples', 'example', 'discriminator', 'externalDocs', 'xml']);

let components: Record<string, unknown> | null = null;

function loadComponents(): Record<string, unknown> {
  if (!components) {
    components = (loadBundle().components?.schemas ?? {}) as Record<string, unknown>;
  }
  return components;
}

function inline(node: unknown, seen: readonly string[], isPropertyMap = false): unknown {
  if (Array.isArray(node)) return node.map((item) => inline(item, seen));
  if (node === null || typeof node !== 'object') return node;
  const object = node as Record<string, unknown>;
  const ref = object.$ref;
  if (typeof ref === 'string' && ref.startsWith(LOCAL_REF)) {
    const name = ref.slice(LOCAL_REF.length);
    if (seen.includes(name)) throw new Error(`Schema ${name} is recursive and cannot be inlined`);
    const { $ref: _ref, ...siblings } = object;
    const target = inline(componentRaw(name), [...seen, name]) as Record<string, unknown>;
    // Siblings of $ref (a description) override the target's.
    return { ...target, ...(inline(siblings, seen) as Record<string, unknown>) };
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) {
    // The keys of `properties` are field names (a field may be called `example`), not annotations.
    if (!isPropertyMap && (DROPPED_KEYS.has(key) || key.startsWith('x-'))) continue;
    out[key] = inline(value, seen, !isPropertyMap && key === 'properties');
  }
  return out;
}

function componentRaw(name: string): unknown {
  const schema = loadComponents()[name];
  if (schema === undefined) throw new Error(`The contract has no component schema ${name}`);
  return schema;
}

const cache = new Map<string, JsonSchema>();

/** A component schema of the contract with every `$ref` inlined and annotations removed. */
export function contractSchema(name: string): JsonSchema {
  let schema = cache.get(name);
  if (!schema) {
    schema = inline(componentRaw(name), [name]) as JsonSchema;
    cache.set(name, schema);
  }
  return structuredClone(schema);
}
