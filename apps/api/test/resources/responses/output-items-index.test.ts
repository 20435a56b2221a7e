import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { rowsOf } from '../../../src/db/sql.js';
import { useHarness, useTenant } from '../../support/harness.js';

// The output-item index (item_reference lookups) is a GIN index without its pending list (fastupdate off,
// DECISIONS.md, History that grows): with one, the settlement whose insert filled it (4 MB, some 30 000
// responses) merged it into the index before answering, about 176 ms on this machine. Migration 0021 turns an
// index built before it to the same, and merges what its pending list held then.

const h = useHarness();
const t = useTenant(h, { credits: 100_000 });
const INDEX = 'model_responses_output_items_idx';
const EXPRESSION = `jsonb_path_query_array(("body" -> 'output'), '$[*].id')`;

const ask = async (input: string) => {
  const answer = await h.post('/responses', t.key, { model: 'service-1', persona_id: 'persona_saas_cfo', input });
  expect(answer.status).toBe(200);
};
const optionsOfIndex = async () =>
  rowsOf<{ reloptions: string[] | null }>(await h.db.execute(sql`select reloptions from pg_class where relname = ${INDEX}`))[0]?.reloptions;
/** Merges the index's pending list into it: the pages that held something. */
const mergePendingList = async () =>
  Number(rowsOf<{ pages: number }>(await h.db.execute(sql`select gin_clean_pending_list(${INDEX}::regclass) as pages`))[0]?.pages);

it('stores each response’s output items straight into the index: nothing waits in a pending list', async () => {
  expect(await optionsOfIndex()).toEqual(['fastupdate=off']);
  await ask('First question');
  await ask('Second question');
  expect(await mergePendingList()).toBe(0);
});

it('0021 turns an index built before it off its pending list, and merges what the list held', async () => {
  // The index as 0016 built it (GIN's default, fastupdate on), with responses stored since.
  await h.db.execute(sql.raw(`drop index ${INDEX}`));
  await h.db.execute(sql.raw(`create index ${INDEX} on "model_responses" using gin (${EXPRESSION})`));
  expect(await optionsOfIndex()).toBeNull();
  await ask('Third question');
  await ask('Fourth question');

  const migration = readFileSync(new URL('../../../drizzle/0021_gin_without_pending_list.sql', import.meta.url), 'utf8');
  const merged: number[] = [];
  for (const statement of migration.split('--> statement-breakpoint')) {
    const rows = rowsOf<{ gin_clean_pending_list?: number }>(await h.db.execute(sql.raw(statement)));
    for (const row of rows) if (row.gin_clean_pending_list !== undefined) merged.push(Number(row.gin_clean_pending_list));
  }
  expect(merged.length).toBe(1);
  expect(merged[0]).toBeGreaterThan(0);
  expect(await optionsOfIndex()).toEqual(['fastupdate=off']);
  await ask('Fifth question');
  expect(await mergePendingList()).toBe(0);
});
