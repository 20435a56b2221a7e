import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

type Schema = { $ref?: string; allOf?: Schema[]; properties?: Record<string, Schema>; default?: unknown };
type Operation = {
  operationId: string;
  parameters?: Array<Schema & { in?: string; name?: string; schema?: Schema }>;
  requestBody?: { content?: Record<string, { schema?: Schema }> };
};

const require = createRequire(import.meta.url);
const specPath = require.resolve('@persona-api/openapi/openapi.yaml');
const spec = parse(readFileSync(specPath, 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; parameters: Record<string, Schema & { in: string; name: string; schema?: Schema }> };
};
const generatedPath = new URL('../src/generated/openapi.ts', import.meta.url);
const generated = readFileSync(generatedPath, 'utf8');

function resolve<T extends Schema>(node: T): T {
  if (!node.$ref) return node;
  const [, , section, name] = node.$ref.split('/');
  return resolve((spec.components as unknown as Record<string, Record<string, T>>)[section!]![name!]!);
}

/** Top-level properties of a schema, through $ref and allOf. */
function properties(schema: Schema): Record<string, Schema> {
  const resolved = resolve(schema);
  return Object.assign({}, ...(resolved.allOf ?? []).map(properties), resolved.properties);
}

const operations = Object.values(spec.paths).flatMap((item) =>
  Object.entries(item)
    .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
    .map(([, operation]) => operation),
);

describe('generated types', () => {
  it('export a readable alias for every schema of the contract', () => {
    const names = Object.keys(spec.components.schemas);
    expect(names.length).toBeGreaterThan(0);
    const missing = names.filter((name) => !generated.includes(`export type ${name} = components['schemas']['${name}'];`));
    expect(missing).toEqual([]);
  });

  it('keep every request field and query parameter that has a default optional', () => {
    // One compile-time assertion per (operation, field with a default), checked by the TypeScript compiler.
    const checks: string[] = [];
    for (const operation of operations) {
      const body = operation.requestBody?.content?.['application/json']?.schema;
      for (const [name, property] of Object.entries(body ? properties(body) : {})) {
        if (resolve(property).default !== undefined || property.default !== undefined) {
          checks.push(
            `NonNullable<operations[${JSON.stringify(operation.operationId)}]["requestBody"]>["content"]["application/json"], ${JSON.stringify(name)}`,
          );
        }
      }
      for (const parameter of (operation.parameters ?? []).map(resolve)) {
        if (parameter.in === 'query' && parameter.schema && resolve(parameter.schema).default !== undefined) {
          checks.push(`NonNullable<operations[${JSON.stringify(operation.operationId)}]["parameters"]["query"]>, ${JSON.stringify(parameter.name)}`);
        }
      }
    }
    expect(checks.length).toBeGreaterThan(0);

    const fileName = new URL('./__defaults-optional.ts', generatedPath).pathname;
    const source = [
      `import type { operations } from './openapi.js';`,
      `type Optional<T, K extends keyof T> = {} extends Pick<T, K> ? true : false;`,
      ...checks.map((check, index) => `export const check${index}: Optional<${check}> = true;`),
    ].join('\n');
    const options: ts.CompilerOptions = {
      strict: true,
      noEmit: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      skipLibCheck: true,
      types: [],
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    };
    const host = ts.createCompilerHost(options);
    const readFile = host.readFile.bind(host);
    host.readFile = (file) => (file === fileName ? source : readFile(file));
    host.fileExists = (
      (exists) => (file: string) =>
        file === fileName || exists(file)
    )(host.fileExists.bind(host));
    const program = ts.createProgram([fileName], options, host);
    const errors = ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    expect(errors).toEqual([]);
  }, 60_000); // a TypeScript program over the whole generated file takes seconds
});
