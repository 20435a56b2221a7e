// Validates values against component schemas of the bundled contract (openapi/dist/openapi.json) with the
// contract package's shared Ajv, independently of the engine's own schema helpers. Lenient: this checks
// values, not the schemas themselves (the openapi package's tests do that).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createContractAjv, validationErrors, type ContractDocument } from '@persona-api/openapi/ajv';

const path = createRequire(import.meta.url).resolve('@persona-api/openapi/openapi.json');
const contractAjv = createContractAjv(JSON.parse(readFileSync(path, 'utf8')) as ContractDocument, { strict: false });

/** Ajv's errors for the value against `#/components/schemas/{name}`, one line each (empty when valid). */
export function contractErrors(name: string, value: unknown): string[] {
  return validationErrors(contractAjv.validatorForComponent(name), value);
}
