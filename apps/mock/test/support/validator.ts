// Checks the mock's responses against the contract with the contract package's shared Ajv. Lenient
// (strict: false) because this checks values, not the schemas themselves (the openapi package's tests do that).
import { createContractAjv, validationErrors } from '@persona-api/openapi/ajv';
import type { OpenApiDocument } from '../../src/index.js';

export interface ResponseValidator {
  /** Ajv's errors as readable lines, empty when the value matches. */
  check(schema: unknown, value: unknown): string[];
}

export function createValidator(document: OpenApiDocument): ResponseValidator {
  const contractAjv = createContractAjv(document, { strict: false });
  return {
    check: (schema, value) => validationErrors(contractAjv.validatorForSchema(schema as object), value),
  };
}
