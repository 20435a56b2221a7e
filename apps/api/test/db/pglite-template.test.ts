import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { rowsOf } from '../../src/db/sql.js';
import { initdbTemplateFor, initdbTemplatePath } from '../../src/db/pglite-template.js';

// A new PGlite directory is unpacked from initdb's output that `pnpm build` keeps (src/db/pglite-template.ts;
// the tests run after the build). initdb gives every cluster a new system identifier, so two directories
// that share one were both unpacked from the same template.

const scratch = mkdtempSync(join(tmpdir(), 'pglite-template-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function systemIdentifierOfNew(name: string): Promise<string> {
  const database = await openDatabase({ driver: 'pglite', dataDir: join(scratch, name) });
  try {
    await database.migrate();
    const accounts = rowsOf<{ count: number }>(await database.db.execute(sql`select count(*)::int as count from accounts`));
    expect(accounts).toEqual([{ count: 0 }]);
    const [cluster] = rowsOf<{ id: string }>(await database.db.execute(sql`select system_identifier::text as id from pg_control_system()`));
    expect(cluster?.id).toMatch(/^\d+$/);
    return cluster?.id ?? '';
  } finally {
    await database.close();
  }
}

describe('a new PGlite directory from the build', () => {
  it('is unpacked from the build’s initdb output, then migrated; an existing one is opened as it is', { timeout: 120_000 }, async () => {
    const template = initdbTemplatePath();
    expect(existsSync(template), `${template}: run pnpm build`).toBe(true);
    expect(statSync(template).size).toBeGreaterThan(1_000_000);
    const first = await systemIdentifierOfNew('first');
    const second = await systemIdentifierOfNew('second');
    expect(second).toBe(first);
    // Once made, the directory is PostgreSQL's: reopened, not unpacked again (the migrations' rows stay).
    expect(initdbTemplateFor(join(scratch, 'first'))).toBeUndefined();
    expect(initdbTemplateFor(join(scratch, 'third'))).toBeInstanceOf(Blob);
    const reopened = await openDatabase({ driver: 'pglite', dataDir: join(scratch, 'first') });
    try {
      const [migrations] = rowsOf<{ count: number }>(await reopened.db.execute(sql`select count(*)::int as count from drizzle.__drizzle_migrations`));
      expect(migrations?.count).toBeGreaterThan(20);
    } finally {
      await reopened.close();
    }
  });
});
