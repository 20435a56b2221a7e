import type { ErrorObject, ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { DeferredCompiles } from './deferred-compiles.js';
import { ApiError } from './errors.js';
import { echoedName } from './input.js';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/**
 * Strict, except for one warning: a `default` inside a oneOf/anyOf branch (e.g. `strict: true` of a
 * function tool) is valid OpenAPI that Ajv cannot apply. Every other strict-mode finding still fails.
 */
const strictLogger = {
  log: () => {},
  warn: (message: unknown) => {
    if (typeof message === 'string' && message.includes('default is ignored')) return;
    throw new Error(String(message));
  },
  error: (message: unknown) => {
    throw new Error(String(message));
  },
};

/** Every `x-…` vendor extension used in the document: annotations Ajv must know to stay strict. */
function vendorExtensions(document: unknown): Set<string> {
  const found = new Set<string>();
  const visit = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key.startsWith('x-')) found.add(key);
        visit(value);
      }
    }
  };
  visit(document);
  return found;
}

function makeAjv(coerceTypes: false | 'array', extensions: Set<string>): Ajv2020 {
  const ajv = new Ajv2020({
    strict: true,
    strictSchema: 'log',
    // Type-consistency hints (e.g. `discriminator` on a oneOf without `type: object`) are the
    // contract's lint, not a reason to refuse valid OpenAPI at start-up.
    strictTypes: false,
    logger: strictLogger,
    allErrors: false,
    // 3.1 schemas use `type: [string, 'null']`.
    allowUnionTypes: true,
    useDefaults: true,
    coerceTypes,
    // Unknown body fields are an error (DECISIONS.md), never silently dropped.
    removeAdditional: false,
    // Errors carry their data and schema, so a failed union can be re-checked against the branch its
    // tag selects (unionBranchErrors).
    verbose: coerceTypes === false,
  });
  addFormats(ajv);
  // OpenAPI annotations that are not JSON Schema keywords.
  ajv.addKeyword({ keyword: 'xml' });
  ajv.addKeyword({ keyword: 'externalDocs' });
  // OpenAPI's discriminator (with `mapping`, which Ajv's own support lacks) is a hint: the oneOf it
  // annotates does the validating.
  ajv.addKeyword({ keyword: 'discriminator' });
  for (const keyword of extensions) ajv.addKeyword({ keyword });
  return ajv;
}

/**
 * Fastify's validator compiler for the contract. Query strings, path parameters and headers arrive as
 * text and are coerced; JSON bodies are not (a 5 sent for a string field is an error, not "5").
 */
export function contractValidatorCompiler(spec: unknown, compiles: DeferredCompiles = new DeferredCompiles()): FastifySchemaCompiler<unknown> {
  const extensions = vendorExtensions(spec);
  const bodyAjv = makeAjv(false, extensions);
  const textAjv = makeAjv('array', extensions);
  // Glue gives every route its own copy of shared schemas (limit, cursor, error bodies…): compile each once.
  const compiled = new Map<string, ValidateFunction>();
  return ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? bodyAjv : textAjv;
    // Raw bytes (`contentMediaType`, e.g. the upload target) arrive as a stream the handler checks.
    if (httpPart === 'body' && typeof (schema as { contentMediaType?: unknown }).contentMediaType === 'string') return () => true;
    if (httpPart === 'headers') schema = lowerCaseHeaderNames(schema as HeaderSchema);
    const cacheKey = `${httpPart === 'body' ? 'body' : 'text'}:${JSON.stringify(schema)}`;
    const cached = compiled.get(cacheKey);
    if (cached) return cached;
    const checked = compiles.validator(() => {
      const id = (schema as { $id?: string }).$id;
      // Glue gives recursive schemas the same $id on every route; the latest compile wins.
      if (id && ajv.getSchema(id)) ajv.removeSchema(id);
      const validate = ajv.compile(schema as object);
      return httpPart === 'body' ? withUnionErrors(validate, ajv) : withFiniteNumbers(validate);
    });
    compiled.set(cacheKey, checked);
    return checked;
  };
}

/**
 * Ajv coerces the text `Infinity` (or `1e400`) to a number that passes `type: integer` and skips
 * `minimum`/`maximum` (they are guarded by isFinite), so `limit=Infinity` would reach a query. A
 * non-finite number can only come from coercion (JSON has none): it is a type error.
 */
function withFiniteNumbers(validate: ValidateFunction): ValidateFunction {
  const wrapped = ((data: unknown) => {
    if (!validate(data)) {
      wrapped.errors = validate.errors ?? null;
      return false;
    }
    wrapped.errors = null;
    for (const [name, value] of Object.entries(data && typeof data === 'object' ? data : {})) {
      for (const item of Array.isArray(value) ? value : [value]) {
        if (typeof item === 'number' && !Number.isFinite(item)) {
          const instancePath = `/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
          wrapped.errors = [{ keyword: 'type', instancePath, schemaPath: '#', params: {}, message: 'must be a finite number' }];
          return false;
        }
      }
    }
    return true;
  }) as ValidateFunction;
  wrapped.schema = validate.schema;
  return wrapped;
}

/** A validator whose errors, for a failed `oneOf`, are those of the branch the value's tag selects. */
function withUnionErrors(validate: ValidateFunction, ajv: Ajv2020): ValidateFunction {
  const wrapped = ((data: unknown) => {
    const valid = validate(data) as boolean;
    wrapped.errors = valid ? null : unionBranchErrors(validate.errors ?? [], ajv);
    return valid;
  }) as ValidateFunction;
  wrapped.schema = validate.schema;
  return wrapped;
}

type Schema = { type?: unknown; properties?: Record<string, { const?: unknown; enum?: unknown[] }>; required?: string[]; oneOf?: unknown[] };

/** The tags that select a union branch: `type` (an item, a part), else `role` (a message). */
const TAGS = ['type', 'role'] as const;

const jsonType = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value);

/** Whether `value` can be meant for this branch: same JSON type, and no tag it declares says otherwise. */
function branchMatches(branch: Schema, value: unknown): boolean {
  const types = branch.type === undefined ? null : [branch.type].flat();
  if (types && !types.includes(jsonType(value)) && !(jsonType(value) === 'integer' && types.includes('number'))) return false;
  if (jsonType(value) !== 'object') return types !== null;
  const record = value as Record<string, unknown>;
  for (const tag of TAGS) {
    const declared = branch.properties?.[tag];
    const allowed = declared?.const !== undefined ? [declared.const] : declared?.enum;
    if (!allowed) continue;
    if (record[tag] === undefined ? branch.required?.includes(tag) : !allowed.includes(record[tag])) return false;
  }
  return true;
}

const branchValidators = new WeakMap<object, ValidateFunction>();

/**
 * Ajv reports a failed `oneOf` with the errors of every branch, so the first branch's complaint ("role
 * is required") hides the real fault of a `function_call` item. When the value's JSON type and tags
 * (`type`, `role`) select exactly one branch, its own errors are returned instead (recursively, for
 * unions inside it); when they select none, the tag itself is the error.
 */
function unionBranchErrors(list: ErrorObject[], ajv: Ajv2020): ErrorObject[] {
  let union: ErrorObject | undefined;
  for (const error of list) {
    if (error.keyword === 'oneOf' && Array.isArray(error.schema) && (!union || error.instancePath.length < union.instancePath.length)) union = error;
  }
  if (!union) return list;
  const branches = union.schema as Schema[];
  const matching = branches.filter((branch) => branch && typeof branch === 'object' && branchMatches(branch, union.data));
  if (matching.length === 1) {
    const branch = matching[0] as object;
    let validate = branchValidators.get(branch);
    if (!validate) {
      validate = ajv.compile(branch);
      branchValidators.set(branch, validate);
    }
    if (validate(union.data)) return list;
    const prefix = union.instancePath;
    return unionBranchErrors(
      (validate.errors ?? []).map((error) => ({ ...error, instancePath: prefix + error.instancePath })),
      ajv,
    );
  }
  const record = union.data as Record<string, unknown> | null;
  const tag = matching.length === 0 && jsonType(record) === 'object' ? TAGS.find((name) => typeof record?.[name] === 'string') : undefined;
  if (!tag) return list;
  const allowed = branches.flatMap((branch) => {
    const declared = branch?.properties?.[tag];
    return declared?.const !== undefined ? [declared.const] : (declared?.enum ?? []);
  });
  if (allowed.length === 0) return list;
  return [
    {
      keyword: 'enum',
      instancePath: `${union.instancePath}/${tag}`,
      schemaPath: union.schemaPath,
      params: { allowedValues: allowed },
      message: `must be one of ${[...new Set(allowed)].map((value) => JSON.stringify(value)).join(', ')}`,
    },
  ];
}

interface HeaderSchema {
  properties?: Record<string, unknown>;
  required?: string[];
}

/** Node lower-cases incoming header names; Fastify leaves that to a custom compiler like this one. */
function lowerCaseHeaderNames(schema: HeaderSchema): HeaderSchema {
  return {
    ...schema,
    ...(schema.properties && {
      properties: Object.fromEntries(Object.entries(schema.properties).map(([name, value]) => [name.toLowerCase(), value])),
    }),
    ...(schema.required && { required: schema.required.map((name) => name.toLowerCase()) }),
  };
}

const CONTEXT_LABEL: Record<string, string> = {
  body: 'The request body',
  querystring: 'The query string',
  params: 'The path',
  headers: 'The request headers',
};

/** The most specific error: a failed oneOf reports each branch first; the deepest path points at the field. */
function mostSpecific(list: ErrorObject[]): ErrorObject | undefined {
  let best: ErrorObject | undefined;
  for (const error of list) {
    if (error.keyword === 'oneOf' || error.keyword === 'anyOf' || error.keyword === 'if') continue;
    if (!best || error.instancePath.length > best.instancePath.length) best = error;
  }
  return best ?? list[0];
}

/** Turns Fastify's Ajv failure into the 400 envelope, with `param` as a dotted path into the request. */
export function validationError(list: ErrorObject[], context: string | undefined, headerNames: Record<string, string>): ApiError {
  const error = mostSpecific(list);
  if (!error) return new ApiError(400, 'invalid_parameter', 'The request is not valid.');
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  // Field names are echoed bounded: an unknown key may be as long as the body.
  const named = (name: string) => echoedName(name);
  const params = error.params as { missingProperty?: string; additionalProperty?: string; unevaluatedProperty?: string };
  let code: 'missing_parameter' | 'unknown_parameter' | 'invalid_parameter' = 'invalid_parameter';
  if (error.keyword === 'required' && params.missingProperty) {
    path.push(named(params.missingProperty));
    code = 'missing_parameter';
  } else if (error.keyword === 'additionalProperties' && params.additionalProperty) {
    path.push(named(params.additionalProperty));
    code = 'unknown_parameter';
  } else if (error.keyword === 'unevaluatedProperties' && params.unevaluatedProperty) {
    path.push(named(params.unevaluatedProperty));
    code = 'unknown_parameter';
  }
  let param = path.length > 0 ? path.map(named).join('.') : null;
  if (context === 'headers' && param) param = headerNames[param.toLowerCase()] ?? param;
  // A model the service does not offer has its own code (DECISIONS.md, Errors).
  if (context === 'body' && param === 'model' && code === 'invalid_parameter') {
    return new ApiError(400, 'invalid_model', 'That model does not exist; use one that GET /models lists (service-1).', 'model');
  }

  let message: string;
  if (code === 'missing_parameter') message = `${param} is required`;
  else if (code === 'unknown_parameter') message = `${param} is not a known parameter`;
  else if (param) message = `${param} ${error.message ?? 'is not valid'}`;
  else if (context === 'body' && error.keyword === 'type') message = 'The request body must be a JSON object.';
  else message = `${CONTEXT_LABEL[context ?? ''] ?? 'The request'} ${error.message ?? 'is not valid'}`;
  return new ApiError(400, code, message, param);
}
