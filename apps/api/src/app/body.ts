import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { OpenApiDocument, OperationInfo } from '../contract/spec.js';
import type { DeferredCompiles } from '../http/deferred-compiles.js';
import { apiError } from '../http/errors.js';
import { rejectUnstorableInput } from '../http/input.js';
import { contractValidatorCompiler } from '../http/validation.js';
import { operationIdOf } from './route-config.js';

/** Request bodies are limited to 1 MiB (DECISIONS.md). */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/** JSON bodies, validated against the contract; raw bytes only where the contract says so. */
export function registerBodyParsing(app: FastifyInstance, spec: OpenApiDocument, operations: Map<string, OperationInfo>, compiles: DeferredCompiles): void {
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
  // JSON bodies: read here (bounded) and parsed by Fastify's own parser (prototype poisoning refused), except
  //  - on the upload target, where an `application/json` file is bytes like any other: its stream, unread;
  //  - an empty body sent as JSON to an operation that takes none (a DELETE or GET from a client that sets
  //    Content-Type on every call, as curl scripts and HTTP helpers do): no body, not invalid JSON.
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', (request, payload, done) => {
    const operationId = operationIdOf(request);
    const operation = operationId ? operations.get(operationId) : undefined;
    if (operation?.rawBody) return done(null, payload);
    readBoundedText(request, payload, BODY_LIMIT_BYTES, (error, text) => {
      if (error) return done(error);
      if (text === '' && operation?.hasBody === false) return done(null, undefined);
      json(request, text!, done);
    });
  });
  // Named as well as '*': glue warns at start for every media type of the contract (responses' too,
  // such as a download's '*/*' or a frame's image/jpeg) that has no parser of its own.
  const unnamed = [...mediaTypesOf(spec)].filter((type) => !app.hasContentTypeParser(type));
  if (unnamed.length > 0) app.addContentTypeParser(unnamed, rawOrUnsupported);
  app.setValidatorCompiler(contractValidatorCompiler(spec, compiles));
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

/** The whole body as UTF-8 text, or a 413 `request_too_large` as soon as it passes `limit` bytes (the rest is discarded). */
function readBoundedText(request: FastifyRequest, payload: NodeJS.ReadableStream, limit: number, callback: (error: Error | null, text?: string) => void): void {
  const tooLarge = () => apiError('request_too_large', `The request body is larger than ${limit} bytes.`);
  const declared = Number(request.headers['content-length']);
  if (declared > limit) {
    payload.resume();
    callback(tooLarge());
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  const finish = (error: Error | null, text?: string) => {
    payload.removeListener('data', onData);
    payload.removeListener('end', onEnd);
    payload.removeListener('error', onError);
    callback(error, text);
  };
  const onData = (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += bytes.length;
    if (size > limit) {
      finish(tooLarge());
      payload.resume();
      return;
    }
    chunks.push(bytes);
  };
  const onEnd = () => finish(null, Buffer.concat(chunks, size).toString('utf8'));
  const onError = (error: Error) => finish(error);
  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', onError);
}
