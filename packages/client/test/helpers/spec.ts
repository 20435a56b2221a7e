import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parse } from 'yaml';

export interface SpecOperation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  operationId: string;
  parameters: Array<{ name: string; in: string; required?: boolean; schema?: { type?: string; minimum?: number } }>;
  requestBody?: { required?: boolean; content: Record<string, unknown> };
  /** Content types of the 200 response. */
  successContent: Record<string, { examples?: Record<string, { value?: unknown }> }>;
}

type Node = Record<string, unknown> & { $ref?: string };

const require = createRequire(import.meta.url);
/** The bundled contract the types were generated from. */
export const spec = parse(readFileSync(require.resolve('@persona-api/openapi/openapi.yaml'), 'utf8')) as {
  paths: Record<string, Record<string, Node>>;
  components: Record<string, Record<string, Node>>;
};

/** Follows a local `#/components/...` $ref (recursively). */
export function resolve<T>(node: T): T {
  const ref = (node as Node | undefined)?.$ref;
  if (typeof ref !== 'string') return node;
  const [, , section, name] = ref.split('/');
  return resolve(spec.components[section!]![name!] as T);
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Every operation of the contract, in document order. */
export const operations: SpecOperation[] = Object.entries(spec.paths).flatMap(([path, item]) =>
  METHODS.filter((method) => item[method]).map((method) => {
    const operation = item[method] as Node & { operationId: string; parameters?: Node[]; requestBody?: Node; responses: Record<string, Node> };
    const success = resolve(operation.responses['200']) as { content?: Record<string, { examples?: Record<string, Node> }> } | undefined;
    const successContent = Object.fromEntries(
      Object.entries(success?.content ?? {}).map(([type, media]) => [
        type,
        { examples: Object.fromEntries(Object.entries(media.examples ?? {}).map(([name, example]) => [name, resolve(example)])) },
      ]),
    ) as SpecOperation['successContent'];
    return {
      method,
      path,
      operationId: operation.operationId,
      parameters: [...((item.parameters as Node[] | undefined) ?? []), ...(operation.parameters ?? [])].map(resolve) as SpecOperation['parameters'],
      requestBody: operation.requestBody ? (resolve(operation.requestBody) as SpecOperation['requestBody']) : undefined,
      successContent,
    };
  }),
);

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
