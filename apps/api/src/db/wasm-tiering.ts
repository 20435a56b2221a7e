import { setFlagsFromString } from 'node:v8';

// V8 runs WebAssembly first as baseline code (Liftoff) and recompiles the functions that get hot with its
// optimizing compiler (TurboFan). Optimizing one 105 KB function of PGlite's PostgreSQL takes about 600 MiB
// for half a second, shortly after the first queries: most of an embedded server's peak memory
// (bench/README.md, "Cold start"). Two V8 flags decide it, read at different times:
// - `--wasm-dynamic-tiering` (hot functions are optimized) is fixed for a module when it is compiled: PGlite
//   is compiled without it, and it is back on for every module compiled after (tesseract's, undici's);
// - `--wasm-tier-up`, for a module without dynamic tiering, is read each time one of its functions is first
//   compiled (V8's GetDefaultTiersPerModule), and would then optimize it at once: it stays off. Modules
//   with dynamic tiering do not read it.
// test/db/wasm-tiering.test.ts reads V8's own compilation trace, so a Node upgrade that changes this fails there.

let compilingBaselineOnly = 0;

/** Whether the process was started with its own choice of this flag, which is then left as given. */
function givenOnCommandLine(flag: string): boolean {
  return process.execArgv.some((arg) => arg.replace(/_/g, '-').replace(/^--no-/, '--') === `--${flag}`);
}

/**
 * Runs `compile` (what compiles and instantiates PGlite's WebAssembly: `PGlite.create`) so that V8 never
 * optimizes that module's functions; modules compiled afterwards are optimized as usual. Overlapping calls
 * share one period.
 */
export async function compiledWithoutTierUp<T>(compile: () => Promise<T>): Promise<T> {
  const dynamicTiering = !givenOnCommandLine('wasm-dynamic-tiering');
  if (compilingBaselineOnly++ === 0) {
    if (!givenOnCommandLine('wasm-tier-up')) setFlagsFromString('--no-wasm-tier-up');
    if (dynamicTiering) setFlagsFromString('--no-wasm-dynamic-tiering');
  }
  try {
    return await compile();
  } finally {
    if (--compilingBaselineOnly === 0 && dynamicTiering) setFlagsFromString('--wasm-dynamic-tiering');
  }
}
