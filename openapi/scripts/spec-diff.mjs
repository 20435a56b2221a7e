#!/usr/bin/env node
// pnpm spec:diff [git-ref] [--spec-dir <dir>]
//
// Bundles the contract as it is at <git-ref> (default `main`) and as it is in the working tree, then lets
// Optic (offline, telemetry off) compare the two with its breaking-change checks. Prints every change and
// every broken check; exits 1 when a change breaks clients, 0 when none does, 2 when it cannot compare.
//
// The ref's files are read with `git archive` into a temporary directory, so neither the index nor the
// worktree list of the repository is touched. Both sides are bundled with this checkout's Redocly.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const REDOCLY = join(PACKAGE_DIR, 'scripts', 'redocly.mjs');
const require = createRequire(import.meta.url);
const OPTIC = (() => {
  const manifestPath = require.resolve('@useoptic/optic/package.json');
  const { bin } = require(manifestPath);
  return join(dirname(manifestPath), typeof bin === 'string' ? bin : bin.optic);
})();
// Optic sends usage events and checks for updates unless told not to.
const QUIET_ENV = { ...process.env, OPTIC_TELEMETRY_LEVEL: 'off', NO_UPDATE_NOTIFIER: '1', REDOCLY_TELEMETRY: 'off' };

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { 'spec-dir': { type: 'string', default: PACKAGE_DIR } },
});
const ref = positionals[0] ?? 'main';
const specDir = resolve(values['spec-dir']);

/**
 * The bundle without its examples: they never break a client, and Optic re-parses the whole document for
 * each allOf property it merges, so the ~40% of the bundle that is examples costs a lot of time. (A
 * property that is itself named `example(s)` is kept.)
 */
function withoutExamples(bundle) {
  const strip = (node, parentKey) => {
    if (Array.isArray(node)) return node.map((item) => strip(item));
    if (typeof node !== 'object' || node === null) return node;
    const kept = Object.entries(node).filter(([key]) => parentKey === 'properties' || (key !== 'example' && key !== 'examples'));
    return Object.fromEntries(kept.map(([key, value]) => [key, strip(value, key)]));
  };
  const result = strip(bundle);
  if (result.components) delete result.components.examples;
  return result;
}

class CannotCompare extends Error {}
function fail(message) {
  throw new CannotCompare(message);
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', env: QUIET_ENV, maxBuffer: 64 * 1024 * 1024, ...options });
  if (result.error) fail(`${command} failed to start: ${result.error.message}`);
  return result;
}

function main() {
  const toplevel = run('git', ['-C', specDir, 'rev-parse', '--show-toplevel']);
  if (toplevel.status !== 0) fail(`${specDir} is not inside a git repository`);
  const repoRoot = toplevel.stdout.trim();
  const specPrefix = relative(repoRoot, specDir);

  if (run('git', ['-C', repoRoot, 'rev-parse', '--verify', '--quiet', `${ref}^{commit}`]).status !== 0) {
    fail(`unknown git ref "${ref}"`);
  }

  const work = mkdtempSync(join(tmpdir(), 'spec-diff-'));
  try {
    // The ref's copy of the spec directory only (node_modules and dist are not committed).
    const checkout = join(work, 'ref');
    mkdirSync(checkout);
    const archive = run('git', ['-C', repoRoot, 'archive', '--format=tar', ref, '--', specPrefix || '.'], { encoding: 'buffer' });
    if (archive.status !== 0) fail(`git archive ${ref} failed:\n${archive.stderr}`);
    const untar = run('tar', ['-x', '-C', checkout], { input: archive.stdout });
    if (untar.status !== 0) fail(`could not unpack ${ref}:\n${untar.stderr}`);

    const bundle = (sourceDir, output, label) => {
      if (!existsSync(join(sourceDir, 'openapi.yaml'))) fail(`${label} has no ${join(specPrefix, 'openapi.yaml')}`);
      const result = run(process.execPath, [REDOCLY, 'bundle', 'openapi.yaml', '-o', output], { cwd: sourceDir });
      if (result.status !== 0) fail(`bundling ${label} failed:\n${result.stdout}${result.stderr}`);
      writeFileSync(output, JSON.stringify(withoutExamples(JSON.parse(readFileSync(output, 'utf8')))));
    };
    bundle(join(checkout, specPrefix), join(work, 'base.json'), ref);
    bundle(specDir, join(work, 'head.json'), 'the working tree');

    console.log(`Comparing the contract at ${ref} (base.json) with the working tree (head.json)\n`);
    // Run from the temporary directory so that Optic picks up no project configuration and prints short paths.
    const diff = run(process.execPath, [OPTIC, 'diff', 'base.json', 'head.json', '--check'], { cwd: work });
    const output = `${diff.stdout}${diff.stderr}`
      .split('\n')
      .filter((line) => !line.includes('--web flag')) // the web view needs Optic's cloud
      .join('\n');
    // A run that compared prints its checks ("Checks: 3/4 passed"); anything else is Optic failing.
    if (diff.status !== 0 && !/Checks: \d+\/\d+ passed/.test(output)) fail(`optic could not compare the bundles:\n${output}`);
    console.log(output.trimEnd());
    if (diff.status === 0) {
      console.log('\nNo breaking change.');
      process.exitCode = 0;
    } else {
      console.log(`\nBreaking change against ${ref} (see the failed checks above).`);
      process.exitCode = 1;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

try {
  main();
} catch (error) {
  if (!(error instanceof CannotCompare)) throw error;
  console.error(`spec:diff: ${error.message}`);
  process.exitCode = 2;
}
