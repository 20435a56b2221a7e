// The docs-only copy of the bundle that the page is built from: code samples for every operation (and the
// TypeScript ones compile against @persona-api/client), the design decisions, and the spec left untouched.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exampleRequest, listOperations, loadBundle, type OpenApiDocument } from '@persona-api/openapi/document';
import { loadTools } from '@persona-api/mcp';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const docsDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const spec = JSON.parse(readFileSync(join(docsDir, 'dist', 'openapi.json'), 'utf8')) as OpenApiDocument;
const bundle = loadBundle();
const operations = listOperations(spec);
const baseUrl = spec.servers?.[0]?.url ?? '';

interface CodeSample {
  lang: string;
  label: string;
  source: string;
}
const samplesOf = (operation: object) => (operation as { 'x-codeSamples'?: CodeSample[] })['x-codeSamples'] ?? [];

describe('the docs copy of the bundle', () => {
  it('has the operations of the bundle, and the bundle itself has no code samples', () => {
    expect(operations.map(({ method, path }) => `${method} ${path}`)).toEqual(listOperations(bundle).map(({ method, path }) => `${method} ${path}`));
    for (const { operation } of listOperations(bundle)) expect(samplesOf(operation)).toEqual([]);
  });

  it.each(operations.map((operation) => [`${operation.method.toUpperCase()} ${operation.path}`, operation] as const))(
    '%s has a curl and a TypeScript sample of its example request',
    (_name, operation) => {
      const request = exampleRequest(spec, operation);
      const samples = samplesOf(operation.operation);
      expect(samples.map(({ lang }) => lang)).toEqual(['curl', 'TypeScript']);
      const [curl, typescript] = samples as [CodeSample, CodeSample];
      expect(curl.source).toContain(`'${baseUrl}${request.url}'`);
      expect(curl.source.includes('Authorization: Bearer $PERSONA_API_KEY')).toBe(request.requiresApiKey);
      expect(typescript.source).toContain(`persona.${operation.method.toUpperCase()}('${operation.path}'`);
    },
  );

  it('has openapi/DECISIONS.md as a section of its own', () => {
    const decisions = readFileSync(join(dirname(createRequire(import.meta.url).resolve('@persona-api/openapi/package.json')), 'DECISIONS.md'), 'utf8');
    const tag = spec.tags?.find((candidate) => (candidate as { 'x-traitTag'?: boolean })['x-traitTag']);
    expect(tag?.name).toBe('Design decisions');
    expect(tag?.description).toBe(decisions.replace(/^# .*\n+/, ''));
  });

  it('has the libraries page, its samples taken from the server-tested sample file', () => {
    const tag = spec.tags?.find((candidate) => candidate.name === 'Use it from the openai SDK, the AI SDK and LangChain');
    const samples = readFileSync(join(docsDir, '..', 'api', 'test', 'resources', 'sdk-samples.ts'), 'utf8');
    expect((tag as { 'x-traitTag'?: boolean } | undefined)?.['x-traitTag']).toBe(true);
    expect(tag?.description).not.toMatch(/\{\{\w+\}\}/);
    // Each library's sample is there, unindented, exactly as the server's tests run it.
    for (const line of [
      "new OpenAI({ baseURL, apiKey, defaultHeaders: { 'Persona-Id': 'persona_saas_cfo' } });",
      "createOpenAI({ baseURL, apiKey, headers: { 'Persona-Id': 'persona_saas_cfo' } });",
      'useResponsesApi: true,',
    ]) {
      expect(samples).toContain(line);
      expect(tag?.description).toContain(line);
    }
    // The imports the page shows are the sample file's own.
    const imports = tag?.description?.match(/^import .*;$/gm) ?? [];
    expect(imports.length).toBeGreaterThanOrEqual(3);
    for (const line of imports) expect(samples).toContain(line);
  });

  it('has the MCP page with client configurations and every generated tool', () => {
    const tag = spec.tags?.find((candidate) => candidate.name === 'Use it from an MCP client');
    expect((tag as { 'x-traitTag'?: boolean } | undefined)?.['x-traitTag']).toBe(true);
    expect(tag?.description).not.toContain('{{tools}}');
    for (const snippet of ['"mcpServers"', '"args": ["--silent", "--dir", "/path/to/persona-api", "mcp"]', '"url": "https://api.persona.example/mcp"']) {
      expect(tag?.description).toContain(snippet);
    }
    const tools = loadTools();
    expect(tools.length).toBeGreaterThan(20);
    for (const tool of tools) expect(tag?.description).toContain(`| \`${tool.name}\` |`);
  });

  it('has TypeScript samples that compile against @persona-api/client', () => {
    const dir = join(docsDir, 'test-results', 'code-samples');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const files = operations.map(({ operation }, index) => {
      const file = join(dir, `${String(index).padStart(3, '0')}-${operation.operationId}.ts`);
      writeFileSync(file, `${samplesOf(operation).find(({ lang }) => lang === 'TypeScript')?.source}\nexport {};\n`);
      return file;
    });
    const program = ts.createProgram(files, {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: ['node'],
    });
    const errors = ts
      .getPreEmitDiagnostics(program)
      .map((diagnostic) => `${diagnostic.file?.fileName.slice(dir.length + 1) ?? ''}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`);
    expect(errors).toEqual([]);
  }, 60_000);
});
