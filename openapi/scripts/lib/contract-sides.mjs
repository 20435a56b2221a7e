// The two sides of a spec review: the contract as it is at a git ref and as it is in the working tree, each
// bundled by this checkout's Redocly (both at once). The ref's files are read with `git archive` into a
// temporary directory, so neither the index nor the worktree list of the repository is touched.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const REDOCLY = join(PACKAGE_DIR, 'scripts', 'redocly.mjs');
// No telemetry or update checks from the tools (and no network for them on CI runners that forbid it).
export const QUIET_ENV = { ...process.env, NO_UPDATE_NOTIFIER: '1', REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };

/** A failure to compare at all (unknown ref, no contract, a bundle that does not build): exit status 2. */
export class CannotCompare extends Error {}
const fail = (message) => {
  throw new CannotCompare(message);
};

export function runSync(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', env: QUIET_ENV, maxBuffer: 64 * 1024 * 1024, ...options });
  if (result.error) fail(`${command} failed to start: ${result.error.message}`);
  return result;
}

/** Runs a command without blocking, so the bundles and the linters share the machine's cores. */
export function run(command, args, options = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { env: QUIET_ENV, ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', (error) => reject(new CannotCompare(`${command} failed to start: ${error.message}`)));
    child.on('close', (status) => resolvePromise({ status, stdout, stderr }));
  });
}

/** Runs one of this package's Node tools (Redocly, Spectral) on the Node that runs this script. */
export const runNode = (script, args, options) => run(process.execPath, [script, ...args], options);

/**
 * Locates the spec directory's repository and unpacks the ref's copy of that directory.
 * Returns { repoRoot, specPrefix, work, baseDir, cleanup }.
 */
export function prepareSides({ ref, specDir }) {
  const toplevel = runSync('git', ['-C', specDir, 'rev-parse', '--show-toplevel']);
  if (toplevel.status !== 0) fail(`${specDir} is not inside a git repository`);
  const repoRoot = toplevel.stdout.trim();
  const specPrefix = relative(repoRoot, specDir);
  if (runSync('git', ['-C', repoRoot, 'rev-parse', '--verify', '--quiet', `${ref}^{commit}`]).status !== 0) {
    fail(`unknown git ref "${ref}"`);
  }
  const work = mkdtempSync(join(tmpdir(), 'spec-review-'));
  const cleanup = () => rmSync(work, { recursive: true, force: true });
  try {
    const checkout = join(work, 'ref');
    mkdirSync(checkout);
    // The ref's copy of the spec directory only (node_modules and dist are not committed).
    const archive = runSync('git', ['-C', repoRoot, 'archive', '--format=tar', ref, '--', specPrefix || '.'], { encoding: 'buffer' });
    if (archive.status !== 0) fail(`git archive ${ref} failed:\n${archive.stderr}`);
    const untar = runSync('tar', ['-x', '-C', checkout], { input: archive.stdout });
    if (untar.status !== 0) fail(`could not unpack ${ref}:\n${untar.stderr}`);
    return { repoRoot, specPrefix, work, baseDir: join(checkout, specPrefix), cleanup };
  } catch (error) {
    cleanup();
    throw error;
  }
}

/** Bundles the contract of sourceDir into output (JSON) and returns the parsed document. */
export async function bundleContract(sourceDir, output, label) {
  if (!existsSync(join(sourceDir, 'openapi.yaml'))) fail(`${label} has no openapi.yaml`);
  const result = await runNode(REDOCLY, ['bundle', 'openapi.yaml', '-o', output], { cwd: sourceDir });
  if (result.status !== 0) fail(`bundling ${label} failed:\n${result.stdout}${result.stderr}`);
  return JSON.parse(readFileSync(output, 'utf8'));
}

/** Redocly lint of the contract in sourceDir (its own redocly.yaml), as { problems: [...] }. */
export async function redoclyLint(sourceDir) {
  const result = await runNode(REDOCLY, ['lint', 'openapi.yaml', '--format=json'], { cwd: sourceDir });
  try {
    return JSON.parse(result.stdout);
  } catch {
    fail(`redocly lint did not report:\n${result.stdout}${result.stderr}`);
  }
}
