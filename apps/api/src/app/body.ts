import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { OpenApiDocument, OperationInfo } from '../contract/spec.js';
import { apiError } from '../http/errors.js';
import { rejectUnstorableInput } from '../http/input.js';
import { contractValidatorCompiler } from '../http/validation.js';
import { operationIdOf } from './route-config.js';

/** Request bodies are limited to 1 MiB (DECISIONS.md). */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/** JSON bodies, validated against the contract; raw bytes only where the contract says so. */
export function registerBodyParsing(app: FastifyInstance, spec: OpenApiDocument, operations: Map<string, OperationInfo>): void {
  // JSON only: without the text/plain parser a wrong Content-Type is a 415, not a confusing 400.
  app.removeContentTypeParser('text/plain');
  // Any other media type is a 415, except on an operation whose body is raw bytes (the upload
  // target), which gets the request stream unread: the handler checks size and checksum as it goes.
  const rawOrUnsupported = (request: FastifyRequest, payload: NodeJS.ReadableStream, done: (err: Error | null, body?: unknown) => void) => {
    const operationId = operationIdOf(request);
    if (operationId && operations.get(operationId)?.rawBody) return done(null, payload);
    done(apiError('unsupported_media_type', 'Unsupported Content-Type: send the request body as application/json.'));
  };
  app.addContentTypeParser('*', rawOrUnsupported);
  // An empty body sent as JSON to an operation that takes none (a DELETE or GET from a client that sets
  // Content-Type on every call, as curl scripts and HTTP helpers do) is no body, not invalid JSON.
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: BODY_LIMIT_BYTES }, (request, body, done) => {
    const operationId = operationIdOf(request);
    if (body === '' && operationId && operations.get(operationId)?.hasBody === false) return done(null, undefined);
    json(request, body as string, done);
  });
  // Named as well as '*': glue warns at start for every media type of the contract (responses' too,
  // such as a download's '*/*' or a frame's image/jpeg) that has no parser of its own.
  const unnamed = [...mediaTypesOf(spec)].filter((type) => !app.hasContentTypeParser(type));
  if (unnamed.length > 0) app.addContentTypeParser(unnamed, rawOrUnsupported);
  app.setValidatorCompiler(contractValidatorCompiler(spec));
  // Before the schemas: no NUL, no unpaired surrogate, no absurd nesting, in any body, query or path value.
  app.addHook('preValidation', rejectUnstorableInput);
}

/** Every media type the contract names as a `content` key, in request bodies and responses alike. */
function mediaTypesOf(spec: OpenApiDocument): Set<string> {
  const found = new Set<string>();
  const visit = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === 'content' && typeof value === 'object' && value !== null) for (const type of Object.keys(value)) if (type.includes('/')) found.add(type);
      visit(value);
    }
  };
  visit({ paths: spec.paths, components: spec.components });
  return found;
}
