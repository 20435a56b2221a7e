// First-load size of the web console (apps/console): every script the built index.html loads
// (the entry and its modulepreloads) compressed with gzip -9 and brotli 11, against the budget of
// 250 kB of compressed JavaScript. Needs `pnpm --filter @persona-api/console build` first. Exits 1 over budget.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const BUDGET_BYTES = 250 * 1024;
const dist = fileURLToPath(new URL('../../apps/console/dist/', import.meta.url));
const html = readFileSync(`${dist}index.html`, 'utf8');
// Vite writes `<script type="module" src="/console/assets/…">` and `<link rel="modulepreload" href=…>`.
const scripts = [...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*rel="modulepreload"[^>]*\shref)="\/console\/([^"]+\.js)"/g)].map((match) => match[1]);
const styles = [...html.matchAll(/<link[^>]*rel="stylesheet"[^>]*\shref="\/console\/([^"]+\.css)"/g)].map((match) => match[1]);
if (scripts.length === 0) throw new Error('no script found in apps/console/dist/index.html');

const sizes = (file) => {
  const bytes = readFileSync(`${dist}${file}`);
  return {
    file,
    raw: bytes.length,
    gzip: gzipSync(bytes, { level: 9 }).length,
    brotli: brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
};
const js = scripts.map(sizes);
const css = styles.map(sizes);
const total = (rows, field) => rows.reduce((sum, row) => sum + row[field], 0);
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} kB`;
const result = {
  js: { files: js, raw: total(js, 'raw'), gzip: total(js, 'gzip'), brotli: total(js, 'brotli') },
  css: { files: css, raw: total(css, 'raw'), gzip: total(css, 'gzip') },
  budgetGzip: BUDGET_BYTES,
};

if (process.argv.includes('--json')) console.log(JSON.stringify(result, null, 2));
else {
  console.log('| first load | files | min | min+gzip | min+brotli |\n| --- | ---: | ---: | ---: | ---: |');
  console.log(`| JavaScript | ${js.length} | ${kb(result.js.raw)} | **${kb(result.js.gzip)}** | ${kb(result.js.brotli)} |`);
  console.log(`| CSS | ${css.length} | ${kb(result.css.raw)} | ${kb(result.css.gzip)} | |`);
  console.log(`\nbudget: ${kb(BUDGET_BYTES)} of compressed JavaScript (gzip) — ${result.js.gzip <= BUDGET_BYTES ? 'within' : 'OVER'}`);
}
if (result.js.gzip > BUDGET_BYTES) process.exitCode = 1;
