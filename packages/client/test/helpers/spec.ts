// The contract's operations as the client tests read them, from the shared walker of @persona-api/openapi.
import { deref, listOperations as listSpecOperations, loadBundle, type ExampleObject } from '@persona-api/openapi/document';

export interface SpecOperation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  operationId: string;
  parameters: Array<{ name: string; in: string; required?: boolean; schema?: { type?: string; minimum?: number } }>;
  requestBody?: { required?: boolean; content: Record<string, unknown> };
  /** Content types of the 200 response, with their named examples dereferenced. */
  successContent: Record<string, { examples?: Record<string, { value?: unknown }> }>;
}

/** The bundled contract the types were generated from. */
export const spec = loadBundle();

/** Every operation of the contract, in document order. */
export const operations: SpecOperation[] = listSpecOperations(spec).map((operation) => ({
  method: operation.method as SpecOperation['method'],
  path: operation.path,
  operationId: operation.operationId,
  parameters: operation.parameters as SpecOperation['parameters'],
  requestBody: operation.requestBody as SpecOperation['requestBody'],
  successContent: Object.fromEntries(
    Object.entries(operation.responses['200']?.content ?? {}).map(([type, media]) => [
      type,
      { examples: Object.fromEntries(Object.entries(media.examples ?? {}).map(([name, example]) => [name, deref<ExampleObject>(spec, example)])) },
    ]),
  ),
}));

export const streamingOperations = operations.filter((operation) => 'text/event-stream' in operation.successContent);
export const listOperations = operations.filter(
  (operation) => operation.method === 'get' && operation.parameters.some((parameter) => parameter.in === 'query' && parameter.name === 'cursor'),
);

/** The path with each `{param}` replaced by a sample value. */
export function samplePath(operation: SpecOperation): { params: Record<string, string>; url: string } {
  const params: Record<string, string> = {};
  const url = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => (params[name] = `${name}_1`));
  return { params, url };
}
