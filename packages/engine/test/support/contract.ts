// Validates values against component schemas of the bundled contract (openapi/dist/openapi.json) with Ajv
// 2020, independently of the engine's own schema helpers: every `#/components/schemas/X` ref is rewritten
// to one registered document.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;
const COMPONENTS_ID = 'urn:persona-api:components';
const LOCAL = '#/components/schemas/';

function rewrite(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewrite);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [key, key === '$ref' && typeof value === 'string' && value.startsWith(LOCAL) ? `${COMPONENTS_ID}#/$defs/${value.slice(LOCAL.length)}` : rewrite(value)]),
  );
}

const path = createRequire(import.meta.url).resolve('@persona-api/openapi/openapi.json');
const document = JSON.parse(readFileSync(path, 'utf8')) as { components: { schemas: Record<string, unknown> } };
const ajv = new Ajv2020({ strict: false, allowUnionTypes: true, allErrors: true });
addFormats(ajv);
ajv.addSchema({ $id: COMPONENTS_ID, $defs: rewrite(document.components.schemas) as object });

const validators = new Map<string, ValidateFunction>();

export function contractValidator(name: string): ValidateFunction {
  let validate = validators.get(name);
  if (!validate) {
    if (!(name in document.components.schemas)) throw new Error(`No component schema ${name} in the bundle`);
    validate = ajv.compile({ $ref: `${COMPONENTS_ID}#/$defs/${name}` });
    validators.set(name, validate);
  }
  return validate;
}

/** Ajv's errors of the last validation, one line each (empty when valid). */
export function contractErrors(name: string, value: unknown): string[] {
  const validate = contractValidator(name);
  if (validate(value)) return [];
  return (validate.errors ?? []).map((error) => `${error.instancePath || '(root)'} ${error.message ?? error.keyword} ${JSON.stringify(error.params)}`);
}
