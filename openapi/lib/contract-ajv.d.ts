// Types of ./contract-ajv.js, exported as `@persona-api/openapi/ajv`. Hand-written: this package has no
// TypeScript build; the .js file is type-checked against these declarations (`pnpm typecheck`).
import type { ErrorObject, Options, ValidateFunction } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';

/** The parts of an OpenAPI 3.1 document this module reads; pass the whole parsed bundle. */
export interface ContractDocument {
  components?: { schemas?: Record<string, unknown> };
  paths?: Record<string, unknown>;
}

export interface ContractAjvOptions {
  /**
   * `true` (default): Ajv strict mode, as the server compiles the contract — the 3.0 `example` keyword,
   * unknown formats and undeclared keywords make compiling throw; `discriminator` is Ajv's own.
   * `false`: no strict checks and `discriminator` read as an annotation, for checking values against the
   * contract rather than the contract itself.
   */
  strict?: boolean;
  /**
   * Extra Ajv options, applied last (e.g. `coerceTypes`, `useDefaults`, `allErrors: false`). With
   * `discriminator: false`, `discriminator` becomes an annotation, as in lenient mode.
   */
  ajvOptions?: Options;
}

export interface ContractAjv {
  /** The configured instance; every component schema is registered under `componentSchemaId(name)`. */
  readonly ajv: Ajv2020;
  /** The validator of `#/components/schemas/{name}`; throws if the document has no such component. */
  validatorForComponent(name: string): ValidateFunction;
  /**
   * The validator of a schema object taken from the document (an inline schema of an operation, a
   * subschema…), cached by object identity. Its `#/components/schemas/…` refs resolve to the components.
   */
  validatorForSchema(schema: object | boolean): ValidateFunction;
  /**
   * The validator of the schema at a location of the document: a JSON Pointer (`#/paths/~1personas/get/…`
   * or `/paths/…`, URI-encoded or not) or a path of keys (`['paths', '/personas', 'get', …]`). Throws if
   * no schema is there.
   */
  validatorAt(location: string | ReadonlyArray<string | number>): ValidateFunction;
}

/**
 * An Ajv 2020 instance for the contract: ajv-formats, union types (`type: [string, 'null']`), every error
 * reported (`allErrors`), OpenAPI's `xml`/`externalDocs` and the document's `x-…` extensions declared as
 * annotations. Validators are compiled on first use and cached; strict-mode refusals throw then.
 */
export function createContractAjv(document: ContractDocument, options?: ContractAjvOptions): ContractAjv;

/** Every `x-…` keyword used inside the document's schemas, sorted (strict mode needs each one declared). */
export function extensionKeywords(document: ContractDocument): string[];

/**
 * Ajv's errors as short lines: `<instancePath or (root)> <message>`, plus ` (<name>)` for a property that
 * additionalProperties/unevaluatedProperties forbids — e.g. `/data/0/id must match pattern "…"`,
 * `(root) must NOT have additional properties (extra)`. Empty for no errors.
 */
export function formatErrors(errors: ReadonlyArray<ErrorObject> | null | undefined): string[];

/** Runs a validator: `[]` when the value matches, otherwise its errors as `formatErrors` lines. */
export function validationErrors(validate: ValidateFunction, value: unknown): string[];

/** The `$id` a component schema is registered under: `urn:persona-api:schemas:{name}`. */
export function componentSchemaId(name: string): string;

/** `urn:persona-api:schemas:` */
export const SCHEMA_ID_PREFIX: string;

/** The OpenAPI 3.1 Schema Object fields declared as annotation keywords (`example` is not one of them). */
export const OPENAPI_SCHEMA_KEYWORDS: readonly string[];
