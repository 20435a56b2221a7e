// Browser bundle size of @persona-api/client next to the official `openai` SDK: each package's whole
// public entry bundled for the browser with esbuild (ESM, minified, tree-shaken), then gzip -9 and
// brotli. Needs the client built first (`pnpm build`). Prints a Markdown table for bench/README.md.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const require = createRequire(import.meta.url);
// Not every package exports its package.json: walk up from its resolved entry to the one that names it.
function versionOf(name) {
  for (let dir = dirname(require.resolve(name)); dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file) && JSON.parse(readFileSync(file, 'utf8')).name === name) return JSON.parse(readFileSync(file, 'utf8')).version;
  }
  throw new Error(`no package.json for ${name}`);
}

const subjects = [
  { name: '@persona-api/client', entry: `export * from '@persona-api/client';` },
  { name: 'openai', entry: `export { default } from 'openai'; export * from 'openai';` },
];

async function measure({ name, entry }) {
  const result = await build({
    stdin: { contents: entry, resolveDir: import.meta.dirname, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    metafile: true,
    logLevel: 'error',
  });
  const code = result.outputFiles[0].contents;
  // Bytes per package in the minified output, to show where the size comes from.
  const byPackage = {};
  for (const [input, { bytesInOutput }] of Object.entries(Object.values(result.metafile.outputs)[0].inputs)) {
    const match = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/);
    const owner = match ? match[1] : name;
    byPackage[owner] = (byPackage[owner] ?? 0) + bytesInOutput;
  }
  return {
    name,
    version: versionOf(name),
    minified: code.length,
    gzip: gzipSync(code, { level: 9 }).length,
    brotli: brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
    byPackage,
  };
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} kB`;
const results = [];
for (const subject of subjects) results.push(await measure(subject));

if (process.argv.includes('--json')) {
  console.log(JSON.stringify(results, null, 2));
} else {
  console.log('| package | version | min | min+gzip | min+brotli |');
  console.log('| --- | --- | ---: | ---: | ---: |');
  for (const r of results) console.log(`| ${r.name} | ${r.version} | ${kb(r.minified)} | **${kb(r.gzip)}** | ${kb(r.brotli)} |`);
  const [ours, theirs] = results;
  console.log(`\n${ours.name} is ${(theirs.gzip / ours.gzip).toFixed(1)}× smaller than ${theirs.name} (min+gzip).`);
  console.log(`\nWhere ${ours.name}'s minified bytes come from:`);
  for (const [owner, bytes] of Object.entries(ours.byPackage).sort(([, a], [, b]) => b - a)) console.log(`- ${owner}: ${kb(bytes)}`);
}
