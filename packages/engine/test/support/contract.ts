// Validates values against component schemas of the bundled contract (openapi/dist/openapi.json) with the
// contract package's shared Ajv, independently of the engine's own schema helpers. Lenient: this checks
// values, not the schemas themselves (the openapi package's tests do that).
import { createContractAjv, validationErrors, type ContractDocument } from '@persona-api/openapi/ajv';
import { loadBundle } from '@persona-api/openapi/document';

const contractAjv = createContractAjv(loadBundle() as ContractDocument, { strict: false });

/** Ajv's errors for the value against `#/components/schemas/{name}`, one line each (empty when valid). */
export function contractErrors(name: string, value: unknown): string[] {
  return validationErrors(contractAjv.validatorForComponent(name), value);
}
