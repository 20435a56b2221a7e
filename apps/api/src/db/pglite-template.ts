import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// A new PGlite data directory is made by PostgreSQL's initdb, run inside PGlite: seconds of work and, on its
// own, a peak of about 650 MiB. `pnpm build` runs it once (scripts/pglite-initdb.mjs) and keeps its output;
// a new DATA_DIR is unpacked from that instead. It holds initdb's output alone, before any migration, so
// nothing of an installation: secrets, accounts and keys are made at the first start, as before.

/** apps/api/dist, from src/db (tsx, vitest) and dist/db (node) alike. */
const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));

function installedPgliteVersion(): string {
  let dir = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const { name, version } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version: string };
      if (name === '@electric-sql/pglite') return version;
    }
    if (dirname(dir) === dir) throw new Error('@electric-sql/pglite: package.json not found');
    dir = dirname(dir);
  }
}

/** Where `pnpm build` keeps initdb's output: one file per PGlite version, as a data directory is PGlite's own format. */
export function initdbTemplatePath(): string {
  return join(DIST, `pglite-initdb-${installedPgliteVersion()}.tar.gz`);
}

/**
 * What a data directory should be unpacked from: initdb's output when the directory is new (PostgreSQL's
 * PG_VERSION is not there yet) and the build made it for this PGlite; otherwise undefined, and PGlite opens
 * the directory, or runs initdb itself, as before.
 */
export function initdbTemplateFor(dataDir: string): Blob | undefined {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return undefined;
  const template = initdbTemplatePath();
  return existsSync(template) ? new Blob([readFileSync(template)]) : undefined;
}
