import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ValidateFunction } from 'ajv';
import { createContractAjv, formatErrors, type ContractAjv } from '@persona-api/openapi/ajv';
import FindMyWay from 'find-my-way';
import { inject } from 'vitest';
import { deref, derefAt, listOperations as listSpecOperations, pathToPointer, type OpenApiDocument as Bundle } from '@persona-api/openapi/document';
import { basePath, loadSpec, type OpenApiDocument } from '../../src/contract/spec.js';

export interface ContractViolation {
  request: string;
  status: number;
  problems: string[];
}

interface ResponseObject {
  headers?: Record<string, { $ref?: string; required?: boolean; schema?: object }>;
  content?: Record<string, { schema?: object }>;
}

const escapePointer = (part: string) => part.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Checks each response the server sends against the bundled contract, with its own Ajv 2020 (not
 * the server's serializer, which fills in `const`s and drops unknown fields): the status must be
 * documented (or fall under `default`), the JSON body must match its schema, and documented headers
 * that are present must match theirs. Unknown routes are checked against the error envelope.
 */
export class ContractValidator {
  readonly spec: OpenApiDocument;
  readonly prefix: string;
  private readonly contractAjv: ContractAjv;
  private readonly router = FindMyWay();

  constructor(spec: OpenApiDocument = loadSpec()) {
    this.spec = spec;
    this.prefix = basePath(spec);
    // Lenient about the document's own keywords (openapi, paths, discriminator…), strict about data.
    this.contractAjv = createContractAjv(spec, { strict: false });
    for (const { operationId, path, method } of listSpecOperations(spec as unknown as Bundle)) {
      const store = { operationId, path, method };
      this.router.on(method.toUpperCase() as 'GET', this.prefix + path.replace(/{(\w+)}/g, ':$1'), () => {}, store);
    }
  }

  /** The operation a request URL and method reach, or undefined for an unknown route. */
  operationFor(method: string, url: string): { operationId: string; path: string; method: string } | undefined {
    const found = this.router.find(method.toUpperCase() as 'GET', url.split('?')[0] ?? '');
    return (found?.store as { operationId: string; path: string; method: string } | undefined) ?? undefined;
  }

  /** The shared contract Ajv compiles each location once and caches it. */
  private validator(pointer: string): ValidateFunction {
    return this.contractAjv.validatorAt(`#${pointer}`);
  }

  /** The target of a value that may be a `$ref`, and the JSON pointer of the target when it was one. */
  private resolve<T>(value: unknown): { value: T; pointer?: string } {
    const { node, path } = derefAt(this.spec, value, undefined);
    return { value: node as T, pointer: path && pathToPointer(path) };
  }

  /** Problems with one response; an empty list means it matches the contract. */
  check(method: string, url: string, status: number, headers: Record<string, unknown>, body: string): string[] {
    const problems: string[] = [];
    const requestId = headers['x-request-id'];
    if (typeof requestId !== 'string' || !/^[A-Za-z0-9._:-]{1,128}$/.test(requestId)) problems.push('missing or malformed x-request-id header');
    const contentType = String(headers['content-type'] ?? '');
    const operation = this.operationFor(method, url);
    if (!operation) {
      problems.push(...this.checkBody('/components/schemas/ErrorResponse', contentType, body));
      return problems;
    }
    const responsesPointer = `/paths/${escapePointer(operation.path)}/${operation.method}/responses`;
    const responses = this.resolve<Record<string, unknown>>(
      (this.spec.paths?.[operation.path]?.[operation.method] as { responses: unknown } | undefined)?.responses,
    ).value;
    const key = [String(status), `${String(status)[0]}XX`, 'default'].find((candidate) => candidate in responses);
    if (!key) return [...problems, `status ${status} is not documented for ${operation.operationId}`];
    const { value: response, pointer } = this.resolve<ResponseObject>(responses[key]);
    const base = pointer ?? `${responsesPointer}/${escapePointer(key)}`;
    // Raw bytes documented as `*/*` go out with the stored file's own type (DECISIONS.md); any type matches.
    const mediaType = Object.keys(response.content ?? {}).find((type) => contentType.startsWith(type) || (type === '*/*' && contentType !== ''));
    if (response.content && Object.keys(response.content).length > 0) {
      if (!mediaType) problems.push(`content-type ${contentType || '(none)'} is not documented for ${operation.operationId} ${status}`);
      else if (mediaType === 'application/json') {
        problems.push(...this.checkBody(`${base}/content/${escapePointer(mediaType)}/schema`, contentType, body));
      } else if (mediaType === 'text/event-stream') {
        problems.push(...this.checkEventStream(`${base}/content/${escapePointer(mediaType)}/schema`, body));
      }
    }
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      const { value: headerObject, pointer: headerPointer } = this.resolve<{ required?: boolean; schema?: object }>(header);
      const raw = headers[name.toLowerCase()];
      if (raw === undefined) {
        if (headerObject.required) problems.push(`required header ${name} is missing`);
        continue;
      }
      const schemaPointer = `${headerPointer ?? `${base}/headers/${escapePointer(name)}`}/schema`;
      const schema = headerObject.schema as { type?: string } | undefined;
      const value = schema?.type === 'integer' || schema?.type === 'number' ? Number(raw) : raw;
      const validate = this.validator(schemaPointer);
      if (!validate(value)) problems.push(`header ${name}=${String(raw)}: ${formatErrors(validate.errors).join('; ')}`);
    }
    return problems;
  }

  /**
   * A Server-Sent Events body: every `data:` line but the closing `[DONE]` validates against the
   * operation's event schema, a named event's name equals its payload's `type`, `sequence_number`s (when
   * the events carry them) count from 0 by 1, and the stream ends with `data: [DONE]`.
   */
  checkEventStream(pointer: string, body: string): string[] {
    const problems: string[] = [];
    const events = parseEventStream(body);
    if (events.at(-1)?.data !== '[DONE]') problems.push('the stream does not end with data: [DONE]');
    const validate = this.validator(pointer);
    let expected = 0;
    events.forEach(({ event, data }, index) => {
      if (data === '[DONE]') {
        if (index !== events.length - 1) problems.push(`event ${index}: [DONE] before the end of the stream`);
        return;
      }
      let payload: Record<string, unknown>;
      try {
        payload = JSON.parse(data) as Record<string, unknown>;
      } catch {
        problems.push(`event ${index}: data is not JSON`);
        return;
      }
      const valid = validate(payload);
      if (!valid)
        problems.push(`event ${index} (${String(payload.type ?? payload.object)}) does not match ${pointer}: ${formatErrors(validate.errors).join('; ')}`);
      if (event !== null && event !== payload.type) problems.push(`event ${index}: SSE event name ${event} differs from type ${String(payload.type)}`);
      if (typeof payload.sequence_number === 'number') {
        if (payload.sequence_number !== expected) problems.push(`event ${index}: sequence_number ${payload.sequence_number}, expected ${expected}`);
        expected = payload.sequence_number + 1;
      }
    });
    return problems;
  }

  private checkBody(pointer: string, contentType: string, body: string): string[] {
    if (!contentType.startsWith('application/json')) return [`expected a JSON body, got content-type ${contentType || '(none)'}`];
    let data: unknown;
    try {
      data = JSON.parse(body);
    } catch {
      return ['body is not JSON'];
    }
    const validate = this.validator(pointer);
    return validate(data) ? [] : [`body does not match ${pointer}: ${formatErrors(validate.errors).join('; ')}`];
  }
}

/** The events of an SSE body: the `event:` name (null when unnamed) and the `data:` text of each. */
export function parseEventStream(body: string): { event: string | null; data: string }[] {
  const events: { event: string | null; data: string }[] = [];
  for (const block of body.split(/\n\n/)) {
    if (block.trim() === '') continue;
    let event: string | null = null;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    events.push({ event, data: data.join('\n') });
  }
  return events;
}

let shared: ContractValidator | undefined;
export const contract = () => (shared ??= new ContractValidator());

/** Appends what this test file exercised, for the run's contract report (see contract-report.ts). */
export function recordExercised(operationId: string | undefined, method: string, status: number): void {
  const dir = inject('contractReportDir');
  appendFileSync(join(dir, `${process.pid}.ndjson`), `${JSON.stringify({ operationId: operationId ?? null, method, status })}\n`);
}

/**
 * A union of the contract's components (`Persona`, `ResponseItem`, …) with its branches resolved, as
 * fastify-openapi-glue gives it to the serializer; refs inside the branches stay for `components` to resolve.
 */
export function contractUnion(name: string): { oneOf: Record<string, unknown>[] } {
  const spec = loadSpec() as unknown as { components: { schemas: Record<string, object> } };
  const union = deref(spec, spec.components.schemas[name]!) as { oneOf: object[] };
  return { oneOf: union.oneOf.map((member) => deref(spec, member) as Record<string, unknown>) };
}
