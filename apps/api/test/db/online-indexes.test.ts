import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_FOLDER } from '../../src/db/client.js';
import { onlineIndexes } from '../../src/db/online-indexes.js';
import * as schema from '../../src/db/schema/index.js';
import { rowsOf } from '../../src/db/sql.js';
import { useHarness } from '../support/harness.js';

// An index on a table that grows is declared once, in its table's schema, marked `.concurrently()`; the server
// builds it after the migrations (CONCURRENTLY on PostgreSQL) from that declaration.

// drizzle-kit/api adds enumerable methods to Array.prototype and String.prototype as it loads (`random`,
// `snake_case`, …). Test files share a worker process (README "Tests"), where an inherited enumerable
// `random` gives every array copied with for…in a member more: fast-json-stringify's merged schemas then
// reach Ajv with holes in `required`, and a later file's lists answer 500. So what it adds is there only while
// this file runs: noted at its first load, put back when the file runs again in the same process (the module
// is then cached and adds nothing), and taken away after it.
const ADDED = Symbol.for('persona-api.test.drizzle-kit-prototype-members');
type Added = { prototype: object; name: string; descriptor: PropertyDescriptor }[];
const noted = globalThis as { [ADDED]?: Added };
const prototypes = [Array.prototype, String.prototype];
for (const { prototype, name, descriptor } of noted[ADDED] ?? []) Object.defineProperty(prototype, name, descriptor);
const ownBefore = prototypes.map((prototype) => new Set(Object.getOwnPropertyNames(prototype)));
const { generateDrizzleJson, generateMigration } = await import('drizzle-kit/api');
noted[ADDED] ??= prototypes.flatMap((prototype, i) =>
  Object.getOwnPropertyNames(prototype)
    .filter((name) => !ownBefore[i]!.has(name))
    .map((name) => ({ prototype, name, descriptor: Object.getOwnPropertyDescriptor(prototype, name)! })),
);
afterAll(() => {
  for (const { prototype, name } of noted[ADDED] ?? []) delete (prototype as Record<string, unknown>)[name];
});

type Snapshot = Parameters<typeof generateMigration>[0];

/** drizzle-kit's snapshot after the newest migration. */
function latestSnapshot(): Snapshot {
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta/_journal.json'), 'utf8')) as { entries: { idx: number }[] };
  const newest = journal.entries.at(-1)?.idx ?? 0;
  return JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, `meta/${String(newest).padStart(4, '0')}_snapshot.json`), 'utf8')) as Snapshot;
}

describe('the schema and the migrations', () => {
  const current = generateDrizzleJson(schema);

  it('agree: drizzle-kit would generate nothing from the schema as it is', async () => {
    // A schema change without its migration (or a migration hand-edited beyond leaving out an online index).
    expect(await generateMigration(latestSnapshot(), current)).toEqual([]);
  });

  it('builds each online index with the statement drizzle-kit writes for it', async () => {
    const online = onlineIndexes();
    expect(online.map((index) => index.name)).toEqual(
      expect.arrayContaining(['model_responses_output_items_idx', 'model_responses_chat_idx', 'meetings_media_due_idx', 'files_workspace_folder_idx']),
    );
    // The same schema without the online indexes: drizzle-kit's migration to the real one creates exactly them.
    const without = structuredClone(current) as unknown as { tables: Record<string, { indexes: Record<string, unknown> }> };
    for (const table of Object.values(without.tables)) {
      for (const name of Object.keys(table.indexes)) if (online.some((index) => index.name === name)) delete table.indexes[name];
    }
    const statements = await generateMigration(without as unknown as Snapshot, current);
    expect(statements.toSorted()).toEqual(
      online.map((index) => `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX CONCURRENTLY "${index.name}" ${index.definition};`).toSorted(),
    );
  });
});

describe('after the migrations', () => {
  const h = useHarness();

  it('every online index exists and is valid, and the ones they replaced are gone', async () => {
    const found = rowsOf<{ name: string; valid: boolean }>(
      await h.db.execute(sql`select c.relname as name, i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid
        where c.relnamespace = 'public'::regnamespace`),
    );
    const valid = new Map(found.map((row) => [row.name, row.valid]));
    for (const index of onlineIndexes()) expect(valid.get(index.name), index.name).toBe(true);
    expect(valid.has('generations_project_idx')).toBe(false);
    expect(valid.has('agent_threads_project_idx')).toBe(false);
    // A definition read back from the database: the partial GIN index keeps its storage option.
    const [gin] = rowsOf<{ definition: string }>(await h.db.execute(sql`select pg_get_indexdef('model_responses_output_items_idx'::regclass) as definition`));
    expect(gin?.definition).toContain('USING gin');
    expect(gin?.definition).toContain('fastupdate=off');
  });
});
