// Ajv (JSON Schema 2020-12) for caller-supplied schemas: structured-output schemas and tool parameters.
import type { ErrorObject, ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { EngineError } from '../errors.js';
import type { JsonSchema } from '../types.js';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/**
 * Caller schemas come from API requests: unknown keywords and formats are tolerated (strict: false), and
 * a draft-07 `$schema` is read as 2020-12 (OpenAI reads both alike). Each schema compiles in its own Ajv
 * instance so two schemas with the same `$id` never clash; compiled validators are kept in a small LRU.
 */
function newAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true, allowUnionTypes: true, validateFormats: true, logger: false });
  addFormats(ajv);
  return ajv;
}

const CACHE_SIZE = 64;
const cache = new Map<string, ValidateFunction>();

export function compileSchema(schema: JsonSchema): ValidateFunction {
  const key = JSON.stringify(schema);
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const { $schema: _ignored, ...rest } = schema;
  let validate: ValidateFunction;
  try {
    validate = newAjv().compile(rest);
  } catch (error) {
    throw new EngineError('invalid_request', `The JSON schema does not compile: ${(error as Error).message}`, { cause: error });
  }
  cache.set(key, validate);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  return validate;
}

/** Ajv's errors as one short line: `/items/0/name must be string; …`. */
export function describeErrors(errors: readonly ErrorObject[] | null | undefined, limit = 5): string {
  return (errors ?? [])
    .slice(0, limit)
    .map((error) => `${error.instancePath || '(root)'} ${error.message ?? error.keyword}`)
    .join('; ');
}

/** Whether a value is valid against a schema, and why not. */
export function validateAgainst(schema: JsonSchema, value: unknown): { valid: boolean; errors: readonly ErrorObject[] } {
  const validate = compileSchema(schema);
  const valid = validate(value) as boolean;
  return { valid, errors: valid ? [] : [...(validate.errors ?? [])] };
}

/**
 * Parses a structured-output text and validates it: the parsed object, or why it is not acceptable (the
 * schema root is an object schema, so the document must be a JSON object).
 */
export function parseStructuredOutput(schema: JsonSchema, text: string): { parsed: Record<string, unknown> | null; error: string | null } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { parsed: null, error: 'The output is not valid JSON.' };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { parsed: null, error: 'The output is not a JSON object.' };
  const { valid, errors } = validateAgainst(schema, value);
  return valid
    ? { parsed: value as Record<string, unknown>, error: null }
    : { parsed: null, error: `The output does not match the schema: ${describeErrors(errors)}` };
}
