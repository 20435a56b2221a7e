// Turns the bundled contract into MCP tool definitions: every operation annotated with `x-mcp` becomes a tool
// whose input schema is its path and query parameters plus its JSON body, whose output schema is its success
// response, and whose hints come from its HTTP method. Nothing here restates a schema of the contract.
import { deref, listOperations, type OpenApiDocument, type SpecOperation } from '@persona-api/openapi/document';
import { Ajv2020 } from 'ajv/dist/2020.js';

/** The `x-mcp` extension of an operation (openapi/DECISIONS.md, "MCP server"). */
export interface McpAnnotation {
  /** The tool's name: snake_case, unique. */
  name: string;
  /** A short human title. */
  title: string;
  /** What the tool does, written for a model: when to use it and what comes back. */
  description: string;
  /** Only these body properties become tool arguments (for operations whose body serves other clients too). */
  body?: string[];
  /** The operation starts a job: with a progress token the tool polls `poll` until `status` is one of `done`. */
  job?: { poll: string; status: string; done: string[]; progress?: string };
}

const ANNOTATION_SCHEMA = {
  type: 'object',
  required: ['name', 'title', 'description'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', pattern: '^[a-z][a-z0-9_]{2,63}$' },
    title: { type: 'string', minLength: 3, maxLength: 60 },
    description: { type: 'string', minLength: 20, maxLength: 1200 },
    body: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string' } },
    job: {
      type: 'object',
      required: ['poll', 'status', 'done'],
      additionalProperties: false,
      properties: {
        poll: { type: 'string' },
        status: { type: 'string' },
        done: { type: 'array', minItems: 1, items: { type: 'string' } },
        progress: { type: 'string' },
      },
    },
  },
} as const;

/** Where a tool argument goes in the HTTP request. */
export type ArgumentLocation = 'path' | 'query' | 'body';

export type JsonSchema = Record<string, unknown>;

/** One tool: what `tools/list` shows, plus how a call becomes an HTTP request. */
export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  outputSchema: JsonSchema & { type: 'object' };
  annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
  operation: {
    operationId: string;
    method: string;
    /** The templated path under the server's base path (`/meetings/{id}`). */
    path: string;
    arguments: Record<string, ArgumentLocation>;
    /** With `pollPath`: the templated path of the `poll` operation, whose one path parameter is the job's `id`. */
    job?: NonNullable<McpAnnotation['job']> & { pollPath: string };
  };
}

const COMPONENT_SCHEMA = '#/components/schemas/';
// OpenAPI-only keywords (and documentation examples, which cost a model tokens and add no constraint).
const DROPPED_KEYWORDS = new Set(['discriminator', 'xml', 'externalDocs', 'example', 'examples']);

/**
 * A schema of the bundle as standalone JSON Schema 2020-12: `#/components/schemas/X` refs point at `#/$defs/X`
 * (collected into `defs`, transitively), other refs are inlined, and OpenAPI-only keywords and `x-` extensions
 * are dropped.
 */
export function toJsonSchema(document: OpenApiDocument, schema: unknown, defs: Record<string, JsonSchema>): unknown {
  const convert = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(convert);
    if (typeof node !== 'object' || node === null) return node;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === 'string') {
      if (ref.startsWith(COMPONENT_SCHEMA)) {
        const name = decodeURIComponent(ref.slice(COMPONENT_SCHEMA.length));
        if (name.includes('/')) throw new Error(`Unsupported reference into a component: ${ref}`);
        if (!(name in defs)) {
          defs[name] = {}; // placeholder first: a recursive schema refers to itself
          defs[name] = convert(deref(document, { $ref: ref })) as JsonSchema;
        }
        return { $ref: `#/$defs/${name}` };
      }
      return convert(deref(document, node));
    }
    const copy: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (key.startsWith('x-') || DROPPED_KEYWORDS.has(key)) continue;
      // `properties` and `$defs` hold names, not keywords: their keys are kept whatever they are.
      copy[key] = key === 'properties' || key === 'patternProperties' ? mapValues(value, convert) : convert(value);
    }
    return copy;
  };
  return convert(schema);
}

const mapValues = (value: unknown, convert: (node: unknown) => unknown) =>
  Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([name, schema]) => [name, convert(schema)]));

const annotationValidator = new Ajv2020({ allErrors: true }).compile(ANNOTATION_SCHEMA);

function annotationOf(operation: SpecOperation): McpAnnotation | undefined {
  const raw = (operation.operation as Record<string, unknown>)['x-mcp'];
  if (raw === undefined) return undefined;
  if (!annotationValidator(raw)) {
    const problems = (annotationValidator.errors ?? []).map((error) => `${error.instancePath || '(root)'} ${error.message}`).join('; ');
    throw new Error(`${operation.operationId}: invalid x-mcp annotation: ${problems}`);
  }
  return raw as McpAnnotation;
}

const jsonSchemaOf = (content: Record<string, { schema?: { $ref?: string } }> | undefined) => content?.['application/json']?.schema;

/** The tool of one annotated operation. */
function toolOf(document: OpenApiDocument, operation: SpecOperation, annotation: McpAnnotation, operations: Map<string, SpecOperation>): ToolDefinition {
  const where = `${operation.operationId} (x-mcp ${annotation.name})`;
  const defs: Record<string, JsonSchema> = {};
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const args: Record<string, ArgumentLocation> = {};
  const add = (name: string, location: ArgumentLocation, schema: unknown, isRequired: boolean, description?: string) => {
    if (name in args) throw new Error(`${where}: argument ${name} comes from both the ${args[name]} and the ${location}`);
    args[name] = location;
    const converted = toJsonSchema(document, schema, defs) as JsonSchema;
    properties[name] = description && !('description' in converted) ? { ...converted, description } : converted;
    if (isRequired) required.push(name);
  };

  // Header parameters (Idempotency-Key, Persona-Id) stay out: the body says the same or the transport sets them.
  for (const parameter of operation.parameters) {
    if (parameter.in === 'path' || parameter.in === 'query') {
      add(parameter.name, parameter.in, parameter.schema, parameter.required === true, parameter.description);
    }
  }

  const bodySchemaRef = jsonSchemaOf(operation.requestBody?.content as never);
  if (bodySchemaRef !== undefined) {
    const body = deref(document, bodySchemaRef) as { type?: string; properties?: Record<string, unknown>; required?: string[] };
    if (body.type !== 'object' || !body.properties) throw new Error(`${where}: only an object body with properties can become tool arguments`);
    const bodyRequired = operation.requestBody?.required === true ? new Set(body.required ?? []) : new Set<string>();
    let names = Object.keys(body.properties);
    if (annotation.body) {
      const unknown = annotation.body.filter((name) => !names.includes(name));
      if (unknown.length > 0) throw new Error(`${where}: x-mcp body names unknown body properties: ${unknown.join(', ')}`);
      const missing = [...bodyRequired].filter((name) => !annotation.body?.includes(name));
      if (missing.length > 0) throw new Error(`${where}: x-mcp body leaves out required body properties: ${missing.join(', ')}`);
      names = annotation.body;
    }
    // A tool answers once, so the stream switch of a streaming operation is not an argument (always false).
    if (operation.streaming) names = names.filter((name) => name !== 'stream');
    for (const name of names) add(name, 'body', body.properties[name], bodyRequired.has(name));
  }

  const ok = operation.responses['200'];
  const outputRef = jsonSchemaOf(ok?.content as never);
  if (outputRef === undefined) throw new Error(`${where}: the 200 response has no application/json schema`);
  let output = toJsonSchema(document, outputRef, defs) as JsonSchema;
  // A component at the root is written out there, so a client sees the properties without following a ref.
  const rootRef = typeof output.$ref === 'string' ? output.$ref.slice('#/$defs/'.length) : undefined;
  if (rootRef && defs[rootRef]) output = { ...defs[rootRef] };
  // MCP wants an object at the root of an output schema; anything else is wrapped.
  const outputSchema = (output.type === 'object' ? output : { type: 'object', allOf: [output] }) as ToolDefinition['outputSchema'];

  let job: ToolDefinition['operation']['job'];
  if (annotation.job) {
    const poll = operations.get(annotation.job.poll);
    if (!poll) throw new Error(`${where}: job.poll names no operation: ${annotation.job.poll}`);
    // The tool answers with what the poll returns, so both must answer the same schema.
    if (
      poll.method !== 'get' ||
      poll.path.match(/\{\w+\}/g)?.join() !== '{id}' ||
      jsonSchemaOf(poll.responses['200']?.content as never)?.$ref !== outputRef.$ref
    ) {
      throw new Error(`${where}: job.poll must be a GET of /…/{id} answering the same schema as the operation`);
    }
    job = { ...annotation.job, pollPath: poll.path };
  }

  const method = operation.method.toUpperCase();
  const inputSchema: ToolDefinition['inputSchema'] = { type: 'object', properties, additionalProperties: false };
  if (required.length > 0) inputSchema.required = required;
  const usedDefs = Object.keys(defs).length > 0;
  if (usedDefs) {
    // One $defs per schema, each with only what it uses, so either stands alone.
    inputSchema.$defs = pickDefs(defs, inputSchema);
    const outputDefs = pickDefs(defs, outputSchema);
    if (Object.keys(outputDefs).length > 0) outputSchema.$defs = outputDefs;
    if (Object.keys(inputSchema.$defs as object).length === 0) delete inputSchema.$defs;
  }

  return {
    name: annotation.name,
    title: annotation.title,
    description: annotation.description.trim(),
    inputSchema,
    outputSchema,
    annotations: {
      title: annotation.title,
      readOnlyHint: method === 'GET',
      destructiveHint: method === 'DELETE',
      // GET and DELETE can be repeated to the same end; a POST creates (and charges) again, a PATCH may differ.
      idempotentHint: method === 'GET' || method === 'DELETE',
      // The service's own data and models; no web page is reached on the model's behalf.
      openWorldHint: false,
    },
    operation: {
      operationId: operation.operationId,
      method,
      path: operation.path,
      arguments: args,
      ...(job ? { job } : {}),
    },
  };
}

/** The definitions a schema reaches through `#/$defs/…` refs, transitively. */
function pickDefs(defs: Record<string, JsonSchema>, root: unknown): Record<string, JsonSchema> {
  const picked: Record<string, JsonSchema> = {};
  const visit = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (typeof node !== 'object' || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith('#/$defs/')) {
        const name = value.slice('#/$defs/'.length);
        if (!(name in picked) && defs[name]) {
          picked[name] = defs[name];
          visit(defs[name]);
        }
      } else if (key !== '$defs') visit(value);
    }
  };
  visit(root);
  return Object.fromEntries(
    Object.keys(picked)
      .sort()
      .map((name) => [name, picked[name] as JsonSchema]),
  );
}

/** Every tool of the document, in document order; throws on an invalid annotation or a duplicate name. */
export function generateTools(document: OpenApiDocument): ToolDefinition[] {
  const operations = listOperations(document);
  const byId = new Map(operations.map((operation) => [operation.operationId, operation]));
  const tools: ToolDefinition[] = [];
  const names = new Set<string>();
  for (const operation of operations) {
    const annotation = annotationOf(operation);
    if (!annotation) continue;
    if (names.has(annotation.name)) throw new Error(`Two operations are annotated as the tool ${annotation.name}`);
    names.add(annotation.name);
    tools.push(toolOf(document, operation, annotation, byId));
  }
  return tools;
}
