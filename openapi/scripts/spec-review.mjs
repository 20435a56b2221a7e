#!/usr/bin/env node
// pnpm spec:review [base-ref] [--spec-dir <dir>] [--out <file>] [--ruleset <.spectral.yaml>] [--docs <file>] [--docs-url <url>]
//
// One Markdown page for a spec pull request: lint (Spectral with the house rules and OWASP, Redocly), the
// changelog between the contract at <base-ref> (default `main`) and the working tree with each breaking
// change explained, what the generated packages change, and where the built docs are. Written to --out
// (default <spec-dir>/dist/spec-review.md) and printed.
//
// Exit status: 0 when the spec is clean and nothing breaks clients undeclared; 1 when lint reports anything
// or a change breaks clients without a changeset that bumps @persona-api/types to a new major (see
// DECISIONS.md, "Reviewing spec changes"); 2 when it cannot review (unknown ref, a bundle that does not build).
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import parseChangeset from '@changesets/parse';
import { compareContracts, groupChanges, packageSurface } from '../lib/spec-changes.js';
import { CannotCompare, PACKAGE_DIR, QUIET_ENV, bundleContract, prepareSides, redoclyLint, run, runSync } from './lib/contract-sides.mjs';

// The package's bin shim, exactly what `pnpm lint` runs: it sets the NODE_PATH under which Spectral resolves
// the packages a ruleset extends (the OWASP ruleset); the CLI's script run bare cannot find them.
const SPECTRAL = join(PACKAGE_DIR, 'node_modules', '.bin', 'spectral');
const TYPES_PACKAGE = '@persona-api/types';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'spec-dir': { type: 'string', default: PACKAGE_DIR },
    out: { type: 'string' },
    ruleset: { type: 'string', default: join(PACKAGE_DIR, '..', '.spectral.yaml') },
    docs: { type: 'string' },
    'docs-url': { type: 'string' },
  },
});
const ref = positionals[0] ?? 'main';
const specDir = resolve(values['spec-dir']);
const outFile = resolve(values.out ?? join(specDir, 'dist', 'spec-review.md'));

/** Spectral's findings on the head bundle, with this checkout's ruleset. */
async function spectralLint(bundlePath) {
  const result = await run(SPECTRAL, ['lint', bundlePath, '--ruleset', resolve(values.ruleset), '--format', 'json', '--fail-severity', 'hint', '--quiet'], {
    cwd: PACKAGE_DIR,
    // The shim runs the first `node` on PATH: make it the one running this script (Node 24).
    env: { ...QUIET_ENV, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` },
  });
  // 0: no findings, 1: findings (as JSON); anything else (2: a bad ruleset, a crash) is not a review.
  const start = result.stdout.indexOf('[');
  try {
    if (result.status !== 0 && result.status !== 1) throw new Error(`exit status ${result.status}`);
    return result.status === 0 && start === -1 ? [] : JSON.parse(result.stdout.slice(start));
  } catch {
    throw new CannotCompare(`spectral did not report:\n${result.stdout}${result.stderr}`);
  }
}

/**
 * Changesets this pull request adds (in the working tree's .changeset/, not in the base's) that bump
 * @persona-api/types to a new major: the way a PR says its break is intended.
 */
function declaredBreaks(repoRoot) {
  const dir = join(repoRoot, '.changeset');
  if (!existsSync(dir)) return [];
  const listed = runSync('git', ['-C', repoRoot, 'ls-tree', '--name-only', ref, '.changeset/']);
  const inBase = new Set(listed.status === 0 ? listed.stdout.split('\n').filter(Boolean) : []);
  return readdirSync(dir)
    .filter((name) => name.endsWith('.md') && name !== 'README.md' && !inBase.has(`.changeset/${name}`))
    .flatMap((name) => {
      try {
        const changeset = parseChangeset(readFileSync(join(dir, name), 'utf8'));
        const major = changeset.releases.some((r) => r.name === TYPES_PACKAGE && r.type === 'major');
        return major ? [{ file: `.changeset/${name}`, summary: changeset.summary }] : [];
      } catch {
        return []; // not a changeset (changesets itself refuses it too)
      }
    });
}

// ---------------------------------------------------------------------------------------------- report

const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
const pointer = (path) => `#/${path.map((p) => String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
const SPECTRAL_SEVERITY = ['error', 'warning', 'info', 'hint'];

function operationsLabel(operations) {
  if (operations.length === 0) return 'the document';
  const shown = operations.slice(0, 3).map((op) => `\`${op}\``);
  return operations.length > 3 ? `${shown.join(', ')} and ${operations.length - 3} more` : shown.join(', ');
}

function changeLine(group) {
  const mark = group.breaking ? '⛔ ' : '';
  const where = group.where === 'operation' ? '' : ` ${group.where}:`;
  const why = group.breaking && group.why ? ` ${group.why}` : '';
  return `- ${mark}${operationsLabel(group.operations)} —${where} ${group.message}.${why}`;
}

function renderReport({ changes, surface, spectral, redocly, declared, docs, durationMs }) {
  const breaking = changes.filter((c) => c.breaking);
  const spectralProblems = spectral.length;
  const redoclyProblems = redocly.problems.length;
  const lintClean = spectralProblems + redoclyProblems === 0;
  const undeclared = breaking.length > 0 && declared.length === 0;
  const lines = [];
  const verdict = [];
  if (!lintClean) verdict.push(`lint reports ${plural(spectralProblems + redoclyProblems, 'problem')}`);
  if (undeclared) verdict.push(`${plural(groupChanges(breaking).length, 'breaking change')} not declared`);
  lines.push(`# Spec review: \`${ref}\` → working tree`, '');
  lines.push(
    verdict.length
      ? `**❌ ${verdict.join('; ')}.**`
      : breaking.length
        ? `**✅ Lint clean; the breaking changes are declared in ${declared.map((d) => `\`${d.file}\``).join(', ')} (major bump of \`${TYPES_PACKAGE}\`).**`
        : '**✅ Lint clean; nothing breaks existing clients.**',
    '',
  );

  const breakingCell =
    breaking.length === 0
      ? '✅ none'
      : `${undeclared ? '❌' : '⚠️'} ${plural(groupChanges(breaking).length, 'breaking change')}${undeclared ? ', not declared' : ', declared'}`;
  lines.push('| check | result |', '|---|---|');
  lines.push(`| Spectral (house rules + OWASP) | ${spectralProblems ? `❌ ${plural(spectralProblems, 'problem')}` : '✅ no problems'} |`);
  lines.push(`| Redocly lint | ${redoclyProblems ? `❌ ${plural(redoclyProblems, 'problem')}` : '✅ no problems'} |`);
  lines.push(`| Changes | ${changes.length ? plural(groupChanges(changes).length, 'change') : 'none'} |`);
  lines.push(`| Breaking changes | ${breakingCell} |`);
  lines.push(`| \`${TYPES_PACKAGE}\` | ${surface.types.changes ? 'changes' : 'unchanged'} |`);
  lines.push(`| \`@persona-api/client\` | ${surface.client.changes ? 'changes' : 'unchanged'} |`);
  lines.push(`| Docs | ${docs} |`, '');

  if (!lintClean) {
    lines.push('## Lint', '');
    for (const problem of spectral) {
      lines.push(`- Spectral ${SPECTRAL_SEVERITY[problem.severity] ?? 'problem'} \`${problem.code}\` at \`${pointer(problem.path)}\`: ${problem.message}`);
    }
    for (const problem of redocly.problems) {
      const where = problem.location?.[0];
      const at = where ? ` at \`${where.source?.ref ? `${relative(specDir, where.source.ref)}` : ''}${where.pointer ?? ''}\`` : '';
      lines.push(`- Redocly ${problem.severity} \`${problem.ruleId}\`${at}: ${problem.message}`);
    }
    lines.push('');
  }

  if (breaking.length) {
    lines.push('## Breaking changes', '');
    if (undeclared) {
      lines.push(
        `Existing clients break. If that is intended, add a changeset that bumps \`${TYPES_PACKAGE}\` to a new major (\`pnpm changeset\`, pick \`major\`) and say what clients must change.`,
        '',
      );
    } else {
      lines.push(`Declared as intended by ${declared.map((d) => `\`${d.file}\` (“${d.summary.split('\n')[0]}”)`).join(', ')}.`, '');
    }
    lines.push(...groupChanges(breaking).map(changeLine), '');
  }

  lines.push('## Changelog', '');
  if (changes.length === 0) lines.push(`No change to operations, parameters, fields, statuses or examples since \`${ref}\`.`);
  else lines.push(...groupChanges(changes).map(changeLine));
  lines.push('');

  lines.push('## Generated packages', '');
  const list = (items) => items.map((x) => `\`${x}\``).join(', ');
  const { types, client } = surface;
  if (!types.changes) {
    lines.push(`- \`${TYPES_PACKAGE}\`: the generated types do not change.`);
  } else {
    const parts = [];
    if (types.exportsAdded.length) parts.push(`exports added: ${list(types.exportsAdded)}`);
    if (types.exportsRemoved.length) parts.push(`exports removed: ${list(types.exportsRemoved)}`);
    if (types.operationsAdded.length) parts.push(`operations added: ${list(types.operationsAdded)}`);
    if (types.operationsRemoved.length) parts.push(`operations removed: ${list(types.operationsRemoved)}`);
    if (types.changedTypes.length) parts.push(`changed types: ${list(types.changedTypes)}`);
    lines.push(
      `- \`${TYPES_PACKAGE}\`: the generated types change${parts.length ? ` — ${parts.join('; ')}` : ' (`paths` / `operations`)'}. Public surface ${types.exportsAdded.length + types.exportsRemoved.length + types.operationsAdded.length + types.operationsRemoved.length ? 'changes (exported names)' : 'keeps its exported names'}.`,
    );
  }
  if (!client.changes) lines.push('- `@persona-api/client`: unchanged.');
  else {
    const why = [...(types.changes ? [`the types it re-exports and types its calls with`] : []), ...client.own];
    lines.push(
      `- \`@persona-api/client\`: changes through ${why.join(' and ')}; its own exports (\`createClient\`, errors, \`Paginator\`, \`EventStream\`) stay.`,
    );
  }
  if (types.changes || client.changes) {
    lines.push(
      `- A release needs a changeset for \`${TYPES_PACKAGE}\`${client.changes ? ' and `@persona-api/client` (linked)' : ''}: ${breaking.length ? '`major`' : '`minor` (new things) or `patch`'}.`,
    );
  }
  lines.push('', `<sub>Reviewed in ${(durationMs / 1000).toFixed(1)} s by \`pnpm spec:review ${ref}\`.</sub>`, '');
  return { markdown: lines.join('\n'), failed: !lintClean || undeclared };
}

/** When a file of the working tree's contract last changed (docs older than that show an older contract). */
function newestContractChange() {
  return ['openapi.yaml', 'paths', 'components']
    .map((part) => join(specDir, part))
    .filter((path) => existsSync(path))
    .flatMap((path) => (statSync(path).isDirectory() ? readdirSync(path, { recursive: true }).map((name) => join(path, String(name))) : [path]))
    .reduce((newest, path) => Math.max(newest, statSync(path).mtimeMs), 0);
}

function docsLocation(repoRoot) {
  const docsPath = resolve(values.docs ?? join(repoRoot, 'apps', 'docs', 'dist', 'index.html'));
  const shown = relative(repoRoot, docsPath) || docsPath;
  const link = values['docs-url'] ? ` — [download the built docs](${values['docs-url']})` : '';
  if (!existsSync(docsPath)) return `not built here (\`pnpm docs\` writes \`${shown}\`)${link}`;
  const built = statSync(docsPath).mtimeMs;
  const stale = newestContractChange() > built ? '; older than the contract in the working tree, run `pnpm docs`' : '';
  return `\`${shown}\` (built ${new Date(built).toISOString().replace(/\.\d+Z$/, 'Z')}${stale})${link}`;
}

async function main() {
  const started = performance.now();
  const sides = prepareSides({ ref, specDir });
  try {
    const headBundle = join(sides.work, 'head.json');
    // The two bundles, both linters and the diff share the cores: Spectral on the head bundle is the long pole.
    const [base, [head, spectral], redocly] = await Promise.all([
      bundleContract(sides.baseDir, join(sides.work, 'base.json'), ref),
      bundleContract(specDir, headBundle, 'the working tree').then(async (doc) => [doc, await spectralLint(headBundle)]),
      redoclyLint(specDir),
    ]);
    const changes = compareContracts(base, head);
    const { markdown, failed } = renderReport({
      changes,
      surface: packageSurface(base, head, changes),
      spectral,
      redocly,
      declared: declaredBreaks(sides.repoRoot),
      docs: docsLocation(sides.repoRoot),
      durationMs: performance.now() - started,
    });
    mkdirSync(dirname(outFile), { recursive: true });
    writeFileSync(outFile, markdown);
    console.log(markdown);
    const shown = relative(process.cwd(), outFile);
    console.log(`Report written to ${shown.startsWith('..') ? outFile : shown}`);
    process.exitCode = failed ? 1 : 0;
  } finally {
    sides.cleanup();
  }
}

try {
  await main();
} catch (error) {
  if (!(error instanceof CannotCompare)) throw error;
  console.error(`spec:review: ${error.message}`);
  process.exitCode = 2;
}
