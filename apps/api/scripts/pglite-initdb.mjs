// Part of `pnpm build`, after tsc: runs PostgreSQL's initdb inside PGlite once and keeps the data directory it
// made as dist/pglite-initdb-<PGlite version>.tar.gz, which a new DATA_DIR is unpacked from
// (src/db/pglite-template.ts). Started with V8's WebAssembly tier-up off (package.json), as the server
// opens PGlite (src/db/wasm-tiering.ts). Already there for this version: nothing to do.
import { existsSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { initdbTemplatePath } from '../dist/db/pglite-template.js';

const target = initdbTemplatePath();
if (!existsSync(target)) {
  const started = performance.now();
  const dataDir = mkdtempSync(join(tmpdir(), 'pglite-initdb-'));
  try {
    const pglite = await PGlite.create(dataDir);
    const tarball = await pglite.dumpDataDir('gzip');
    await pglite.close();
    const partial = `${target}.${process.pid}.partial`;
    writeFileSync(partial, Buffer.from(await tarball.arrayBuffer()));
    renameSync(partial, target);
    console.log(`${target}: ${(tarball.size / 2 ** 20).toFixed(1)} MiB, initdb in ${Math.round(performance.now() - started)} ms`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
