import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../support/processes.js';

// PGlite's WebAssembly stays baseline code unless PGLITE_WASM_TIER_UP=on (src/db/wasm-tiering.ts), and a
// module compiled after it is still optimized. Read from V8's own trace of each compilation
// (--trace-wasm-compilation-times) in a process of its own (test/db/fixtures/open-pglite.ts): PGlite's
// functions are those of its module, the fixture's hot loop is function #0 of a module of 25 bytes of code.
// Each optimization's line gives the memory it took, which is what the setting is for.

const scratch = mkdtempSync(join(tmpdir(), 'wasm-tiering-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Compiles {
  /** PGlite's functions compiled as baseline code (Liftoff). */
  pgliteBaseline: number;
  /** The most memory one optimization of a PGlite function took (TurboFan's zone, bytes). */
  pgliteLargestOptimization: number;
  /** Optimizations of the fixture's own hot loop. */
  spinOptimized: number;
  log: string;
}

// "Compiled function 0x…#2272 using TurboFan, took 427 ms and 603850776 / 637873304 max/total bytes; bodysize 104930 …"
const COMPILED = /^Compiled function \S+#(\d+) using (TurboFan|Liftoff), took \d+ ms and (\d+) .*bodysize (\d+)/gm;
const isSpin = (index: string | undefined, bodySize: string | undefined) => index === '0' && bodySize === '25';

/** Creates `flag` once `stdout` shows one of PGlite's functions optimized in more than 64 MiB, or gives up when the process exits. */
async function flagOnceOptimized(stdout: () => string, exited: Promise<unknown>, flag: string): Promise<void> {
  let done = false;
  void exited.then(() => (done = true));
  while (!done) {
    const optimized = [...stdout().matchAll(COMPILED)].some(
      ([, index, compiler, bytes, bodySize]) => compiler === 'TurboFan' && !isSpin(index, bodySize) && Number(bytes) > 64 * 1024 * 1024,
    );
    if (optimized) return writeFileSync(flag, '');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function openPgliteWith(tierUp: 'on' | 'off'): Promise<Compiles> {
  const flag = join(scratch, `${tierUp}.optimized`);
  const child = run(join(import.meta.dirname, 'fixtures/open-pglite.ts'), [join(scratch, tierUp), tierUp, flag], {}, ['--trace-wasm-compilation-times']);
  if (tierUp === 'on') void flagOnceOptimized(child.stdout, child.exited, flag);
  expect(await child.exited, child.output()).toBe(0);
  const stdout = child.stdout();
  const compiles: Compiles = {
    pgliteBaseline: 0,
    pgliteLargestOptimization: 0,
    spinOptimized: 0,
    log: child
      .output()
      .split('\n')
      .filter((line) => !line.startsWith('Compiled '))
      .join('\n')
      .trim(),
  };
  for (const [, index, compiler, bytes, bodySize] of stdout.matchAll(COMPILED)) {
    if (isSpin(index, bodySize)) {
      if (compiler === 'TurboFan') compiles.spinOptimized++;
    } else if (compiler === 'Liftoff') {
      compiles.pgliteBaseline++;
    } else {
      compiles.pgliteLargestOptimization = Math.max(compiles.pgliteLargestOptimization, Number(bytes));
    }
  }
  return compiles;
}

describe('PGlite WebAssembly tiering', () => {
  it('off by default: PGlite stays baseline code, a module compiled later is optimized; on: PGlite is optimized too', { timeout: 180_000 }, async () => {
    const [off, on] = await Promise.all([openPgliteWith('off'), openPgliteWith('on')]);
    const MiB = 1024 * 1024;
    // The same queries make V8 optimize PGlite's hot functions when tier-up is on, one of them in hundreds of MiB…
    expect(on.pgliteLargestOptimization / MiB, on.log).toBeGreaterThan(256);
    // …and not when it is off, although they ran (compiled at first call, as baseline code). What is still
    // optimized then are the few small functions the baseline compiler cannot compile (a few MiB each).
    expect(off.pgliteBaseline, off.log).toBeGreaterThan(100);
    expect(off.pgliteLargestOptimization / MiB, off.log).toBeLessThan(32);
    // Tier-up is back on for what is compiled afterwards, in both.
    expect(off.spinOptimized, off.log).toBeGreaterThan(0);
    expect(on.spinOptimized, on.log).toBeGreaterThan(0);
  });
});
