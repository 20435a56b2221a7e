// Generates src/generated/openapi.ts (git-ignored) from the bundled contract, openapi/dist/openapi.yaml.
// `--check` regenerates in memory and fails when the file on disk differs (stale or hand-edited).
// The Node API instead of the CLI only for one transform: binary bodies are typed as bytes, not `string`.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import openapiTS, { COMMENT_HEADER, astToString } from 'openapi-typescript';
import ts from 'typescript';

const require = createRequire(import.meta.url);
const specPath = require.resolve('@persona-api/openapi/openapi.yaml');
const outFile = new URL('../src/generated/openapi.ts', import.meta.url);

const BYTES = ts.factory.createUnionTypeNode(
  ['Blob', 'ArrayBuffer', 'Uint8Array']
    .map((name) => ts.factory.createTypeReferenceNode(name))
    .concat(ts.factory.createKeywordTypeNode(ts.SyntaxKind.StringKeyword)),
);

const ast = await openapiTS(pathToFileURL(specPath), {
  defaultNonNullable: false, // a request field with a default stays optional
  rootTypes: true, // `export type Workspace = components['schemas']['Workspace']`, one per component
  rootTypesNoSchemaPrefix: true,
  transform(schema) {
    const binary = schema.format === 'binary' || (typeof schema.contentMediaType === 'string' && !schema.contentMediaType.startsWith('text/'));
    if (schema.type === 'string' && binary) return BYTES;
    return undefined;
  },
});
const source = COMMENT_HEADER + astToString(ast);

if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(outFile, 'utf8');
  } catch {}
  if (current !== source) {
    console.error(`${outFile.pathname} is not what ${specPath} generates: run \`pnpm build\`.`);
    process.exit(1);
  }
  console.log('Generated types are up to date.');
} else {
  mkdirSync(new URL('.', outFile), { recursive: true });
  writeFileSync(outFile, source);
  console.log(`Types generated from ${specPath}`);
}
