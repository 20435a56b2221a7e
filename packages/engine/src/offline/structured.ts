// Instances of a JSON Schema for the offline engine (structured output, tool arguments): sampled by
// json-schema-faker with a fixed seed, string leaves then replaced by persona-flavoured text where the schema
// still validates, and every result checked with Ajv. Nothing invalid ever leaves this module.
import { generateSync } from 'json-schema-faker';
import { compileSchema } from '../schema/validate.js';
import type { JsonSchema } from '../types.js';
import { round } from '../text/index.js';

type Path = ReadonlyArray<string | number>;

export interface StringLeaf {
  /** The property name holding the string (for an array item: the array's property name). */
  key: string;
  path: Path;
  /** Index of the item when the string is an array item. */
  index: number | null;
  sample: string;
}

/** Returns replacement text for a string leaf, or undefined to keep the sample. */
export type StringFiller = (leaf: StringLeaf) => string | undefined;

const SAMPLE_ATTEMPTS = 8;
const REPAIR_ROUNDS = 12;

function pointer(path: Path): string {
  return path.map((segment) => `/${String(segment).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

function setAt(root: unknown, path: Path, value: unknown): void {
  let node = root as Record<string | number, unknown>;
  for (const segment of path.slice(0, -1)) node = node[segment] as Record<string | number, unknown>;
  node[path[path.length - 1] as string | number] = value;
}

interface Replacement {
  path: Path;
  pointer: string;
  original: unknown;
}

/** Replaces string leaves (via `fill`) and rounds long decimals; records each change so it can be undone. */
function personalize(value: unknown, fill: StringFiller | undefined): { value: unknown; replacements: Replacement[] } {
  const copy = structuredClone(value);
  const replacements: Replacement[] = [];
  const visit = (node: unknown, path: Path, key: string, index: number | null) => {
    if (typeof node === 'string' && fill && path.length > 0) {
      const text = fill({ key, path, index, sample: node });
      if (text !== undefined && text !== node) {
        setAt(copy, path, text);
        replacements.push({ path, pointer: pointer(path), original: node });
      }
    } else if (typeof node === 'number' && !Number.isInteger(node) && path.length > 0) {
      const rounded = round(node, 2);
      if (rounded !== node) {
        setAt(copy, path, rounded);
        replacements.push({ path, pointer: pointer(path), original: node });
      }
    } else if (Array.isArray(node)) {
      node.forEach((item, itemIndex) => visit(item, [...path, itemIndex], key, itemIndex));
    } else if (node !== null && typeof node === 'object') {
      for (const [childKey, child] of Object.entries(node)) visit(child, [...path, childKey], childKey, null);
    }
  };
  visit(copy, [], '', null);
  return { value: copy, replacements };
}

/**
 * A value valid against `schema`, the same for the same schema, seed and filler; null when no valid
 * instance could be produced (an unsatisfiable or unsupported schema).
 */
export function generateInstance(schema: JsonSchema, seed: number, fill?: StringFiller): unknown {
  const validate = compileSchema(schema);
  const { $schema: _ignored, ...sampled } = schema;
  for (let attempt = 0; attempt < SAMPLE_ATTEMPTS; attempt += 1) {
    let sample: unknown;
    try {
      sample = generateSync(sampled as never, {
        seed: seed + attempt,
        alwaysFakeOptionals: true,
        fillProperties: false,
        useDefaultValue: true,
        useExamplesValue: true,
        maxDefaultItems: 3,
      });
    } catch {
      continue;
    }
    if (!validate(sample)) continue;
    const { value, replacements } = personalize(sample, fill);
    const pending = [...replacements];
    for (let round = 0; round < REPAIR_ROUNDS; round += 1) {
      if (validate(value)) return value;
      // Undo the replacements under the failing locations (a oneOf branch can fail at a parent).
      const failing = (validate.errors ?? []).map((error) => error.instancePath);
      const undo = pending.filter((replacement) => failing.some((at) => replacement.pointer === at || replacement.pointer.startsWith(`${at}/`)));
      const chosen = undo.length > 0 ? undo : pending.splice(0);
      if (chosen.length === 0) break;
      for (const replacement of chosen) {
        setAt(value, replacement.path, replacement.original);
        const at = pending.indexOf(replacement);
        if (at >= 0) pending.splice(at, 1);
      }
    }
    if (validate(value)) return value;
    return sample;
  }
  return null;
}
