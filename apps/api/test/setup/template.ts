import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { basePersonas } from '@persona-api/engine';
import { MIGRATIONS_FOLDER } from '../../src/db/client.js';
import { onlineIndexes } from '../../src/db/online-indexes.js';

/** Changes whenever a migration, an online index or the seeded catalogs change, so a cached template is never stale. */
export function templateFingerprint(): string {
  const hash = createHash('sha256');
  for (const name of readdirSync(MIGRATIONS_FOLDER, { recursive: true }).map(String).sort()) {
    if (!name.endsWith('.sql') && !name.endsWith('.json')) continue;
    hash.update(name).update(readFileSync(join(MIGRATIONS_FOLDER, name)));
  }
  hash.update(readFileSync(new URL('../../src/db/seed.ts', import.meta.url)));
  // Indexes built after the migrations are part of the template too.
  hash.update(JSON.stringify(onlineIndexes()));
  // The seeded base personas come from the engine's catalog.
  hash.update(JSON.stringify(basePersonas));
  return hash.digest('hex').slice(0, 16);
}
