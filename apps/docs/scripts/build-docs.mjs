// @ts-check
// Builds dist/index.html: the bundled spec, plus code samples and DECISIONS.md (added to a docs-only copy,
// never to the spec sources), rendered by Redocly's build-docs with the Redoc scripts inlined, so the page
// opens from disk with no network.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exampleRequest, listOperations, listStreamingOperations, loadBundle } from '@persona-api/openapi/document';
import { loadTools } from '@persona-api/mcp';
import { codeSamples } from './code-samples.mjs';

const require = createRequire(import.meta.url);
const docsDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const distDir = join(docsDir, 'dist');
const specPath = join(distDir, 'openapi.json');
const htmlPath = join(distDir, 'index.html');

export const DECISIONS_TAG = 'Design decisions';
export const LIBRARIES_TAG = 'Use it from the openai SDK, the AI SDK and LangChain';
export const MCP_TAG = 'Use it from an MCP client';

/**
 * The MCP page: guides/mcp.md with `{{tools}}` replaced by a table of the tools @persona-api/mcp generated
 * from the contract's `x-mcp` annotations (so the page lists exactly what a client gets).
 * @param {string} guide @param {{ name: string; title: string; description: string; annotations: { readOnlyHint: boolean }; operation: { method: string; path: string } }[]} tools
 */
export function mcpPage(guide, tools) {
  const rows = tools.map(
    (tool) =>
      `| \`${tool.name}\` | ${tool.description.split(/(?<=[.)])\s+(?=[A-Z])/)[0]?.replace(/\|/g, '\\|')} | \`${tool.operation.method} ${tool.operation.path}\` | ${tool.annotations.readOnlyHint ? 'yes' : 'no'} |`,
  );
  const table = [`### The ${tools.length} tools`, '', '| tool | what it does | operation | read-only |', '|---|---|---|---|', ...rows].join('\n');
  return guide.replace('{{tools}}', table);
}

/**
 * The libraries page: guides/libraries.md with each `{{name}}` replaced by the `#region name` body of the
 * server's sample file, which its tests type-check and run (so the page never shows code that fails).
 * @param {string} guide @param {string} samples
 */
export function librariesPage(guide, samples) {
  return guide.replace(/\{\{(\w+)\}\}/g, (_match, /** @type {string} */ name) => {
    const region = new RegExp(`// #region ${name}\\n([\\s\\S]*?)\\n\\s*// #endregion ${name}`).exec(samples);
    if (!region?.[1]) throw new Error(`No #region ${name} in the samples file.`);
    const lines = region[1].split('\n');
    const indent = Math.min(...lines.filter((line) => line.trim()).map((line) => /^ */.exec(line)?.[0].length ?? 0));
    return lines.map((line) => line.slice(indent)).join('\n');
  });
}

/** @param {import('@persona-api/openapi/document').OpenApiDocument} bundle @param {string} decisionsMarkdown @param {string} [librariesMarkdown] @param {string} [mcpMarkdown] */
export function docsSpec(bundle, decisionsMarkdown, librariesMarkdown, mcpMarkdown) {
  const spec = structuredClone(bundle);
  const baseUrl = spec.servers?.[0]?.url ?? '';
  const streaming = new Set(listStreamingOperations(spec).map(({ method, path }) => `${method} ${path}`));
  for (const operation of listOperations(spec)) {
    const request = exampleRequest(spec, operation);
    Object.assign(operation.operation, {
      'x-codeSamples': codeSamples(request, baseUrl, streaming.has(`${operation.method} ${operation.path}`)),
    });
  }
  // DECISIONS.md becomes a section of its own in the menu (a tag without operations, `x-traitTag`); it
  // replaces the overview's short "Design decisions" paragraph, which only points at the file.
  const decisionsTag = { name: DECISIONS_TAG, description: decisionsMarkdown.replace(/^# .*\n+/, ''), 'x-traitTag': true };
  const librariesTag = librariesMarkdown ? [{ name: LIBRARIES_TAG, description: librariesMarkdown, 'x-traitTag': true }] : [];
  const mcpTag = mcpMarkdown ? [{ name: MCP_TAG, description: mcpMarkdown, 'x-traitTag': true }] : [];
  spec.tags = [decisionsTag, ...librariesTag, ...mcpTag, ...(spec.tags ?? [])];
  if (spec.info.description) {
    spec.info.description = spec.info.description.replace(/\n*^## Design decisions\n[\s\S]*?(?=^## |(?![\s\S]))/m, '\n\n');
  }
  return spec;
}

// Redoc's sidebar footer ("API docs by Redocly") loads its logo from Redocly's CDN even in an inline
// build; the same logo as an inline SVG keeps the page free of network requests.
const REDOCLY_LOGOS = ['https://cdn.redoc.ly/redoc/logo-mini-full.svg', 'https://cdn.redoc.ly/redoc/logo-mini.svg'];
const INLINE_LOGO = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" width="56" height="14"><text x="0" y="11" font-family="sans-serif" font-size="11" fill="#5a6170">Redocly</text></svg>',
)}`;

/** @param {string} html */
export function withoutRemoteAssets(html) {
  let result = html;
  for (const logo of REDOCLY_LOGOS) result = result.replaceAll(logo, INLINE_LOGO);
  return result;
}

function main() {
  const openapiDir = dirname(require.resolve('@persona-api/openapi/package.json'));
  const samples = readFileSync(join(docsDir, '..', 'api', 'test', 'resources', 'sdk-samples.ts'), 'utf8');
  const libraries = librariesPage(readFileSync(join(docsDir, 'guides', 'libraries.md'), 'utf8'), samples);
  const mcp = mcpPage(readFileSync(join(docsDir, 'guides', 'mcp.md'), 'utf8'), loadTools());
  const spec = docsSpec(loadBundle(), readFileSync(join(openapiDir, 'DECISIONS.md'), 'utf8'), libraries, mcp);
  mkdirSync(distDir, { recursive: true });
  writeFileSync(specPath, `${JSON.stringify(spec, null, 2)}\n`);

  const redocly = join(dirname(require.resolve('@redocly/cli/package.json')), 'bin', 'cli.js');
  execFileSync(
    process.execPath,
    [
      redocly,
      'build-docs',
      specPath,
      '--inlineBundle', // Redoc's script inside the page instead of loaded from Redocly's CDN
      '--config',
      join(docsDir, 'redocly.yaml'),
      '--output',
      htmlPath,
      '--title',
      `${spec.info.title} reference`,
    ],
    { cwd: docsDir, stdio: 'inherit' },
  );
  writeFileSync(htmlPath, withoutRemoteAssets(readFileSync(htmlPath, 'utf8')));
  console.log(`Docs: ${htmlPath} (open it in a browser; it needs no network)`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
