#!/usr/bin/env node
// pnpm spec:diff [git-ref] [--spec-dir <dir>]
//
// The breaking part of `pnpm spec:review`: bundles the contract as it is at <git-ref> (default `main`) and as
// it is in the working tree, compares the two with lib/spec-changes.js, and prints every change, breaking
// ones first with the reason. Exits 1 when a change breaks clients, 0 when none does, 2 when it cannot compare.
// (No lint and no changeset check: `pnpm spec:review` is the whole review.)
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { compareContracts, groupChanges } from '../lib/spec-changes.js';
import { CannotCompare, PACKAGE_DIR, bundleContract, prepareSides } from './lib/contract-sides.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { 'spec-dir': { type: 'string', default: PACKAGE_DIR } },
});
const ref = positionals[0] ?? 'main';
const specDir = resolve(values['spec-dir']);

/** `POST /a, GET /b and 3 more response 200: …`: one line per change, however many operations share it. */
function describe(group) {
  const ops = group.operations.length ? group.operations : ['document'];
  const shown = ops.length > 3 ? `${ops.slice(0, 3).join(', ')} and ${ops.length - 3} more` : ops.join(', ');
  return `${shown} ${group.where}: ${group.message}`;
}

async function main() {
  const sides = prepareSides({ ref, specDir });
  try {
    const [base, head] = await Promise.all([
      bundleContract(sides.baseDir, join(sides.work, 'base.json'), ref),
      bundleContract(specDir, join(sides.work, 'head.json'), 'the working tree'),
    ]);
    const changes = groupChanges(compareContracts(base, head));
    const breaking = changes.filter((change) => change.breaking);
    console.log(`Comparing the contract at ${ref} with the working tree: ${changes.length} change(s), ${breaking.length} breaking\n`);
    for (const change of breaking) console.log(`✗ ${describe(change)}. ${change.why}`);
    for (const change of changes.filter((c) => !c.breaking)) console.log(`  ${describe(change)}`);
    if (breaking.length) {
      console.log(`\nBreaking change against ${ref} (see the ✗ lines above).`);
      process.exitCode = 1;
    } else {
      console.log('\nNo breaking change.');
      process.exitCode = 0;
    }
  } finally {
    sides.cleanup();
  }
}

try {
  await main();
} catch (error) {
  if (!(error instanceof CannotCompare)) throw error;
  console.error(`spec:diff: ${error.message}`);
  process.exitCode = 2;
}
