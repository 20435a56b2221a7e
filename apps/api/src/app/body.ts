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
  // Named as well as '*', because glue checks that every media type of the contract has a parser.
  app.addContentTypeParser(['application/octet-stream', 'text/event-stream'], rawOrUnsupported);
  app.addContentTypeParser('*', rawOrUnsupported);
  app.setValidatorCompiler(contractValidatorCompiler(spec));
  // Before the schemas: no NUL, no unpaired surrogate, no absurd nesting, in any body, query or path value.
  app.addHook('preValidation', rejectUnstorableInput);
}
