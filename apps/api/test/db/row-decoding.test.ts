import { sql, type SQL } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import { rowsOf } from '../../src/db/sql.js';
import { driverName, openTestDatabase } from '../support/database.js';

// postgres.js is patched (patches/postgres@3.4.9.patch) to cut the ASCII columns of a row of at most 2 048
// bytes from one latin1 string of its message, and to decode every other column (any byte of 0x80 or more,
// or a longer row) with Buffer#toString as upstream does. Whatever a row mixes, each value must come back
// as the database holds it, on both drivers (PGlite has its own decoder: the same values, the reference).

let handle: DatabaseHandle;
beforeAll(async () => {
  handle = await openTestDatabase();
}, 60_000);
afterAll(async () => {
  await handle?.close();
});

/** The rows of a statement as objects, whichever driver ran it. */
const rowsRead = async (statement: SQL): Promise<Record<string, unknown>[]> => rowsOf(await handle.db.execute(statement));

const LONG = 'x'.repeat(3000);
const mixed = {
  ascii: 'file_AbCdEfGhIjKlMnOp',
  empty: '',
  missing: null,
  latin: 'naïve café',
  cjk: '東京の会議',
  emoji: 'ok 🙂 done',
  del: `${String.fromCharCode(127)}edge`,
  number: 42,
  flag: true,
  ratio: 1.5,
  json_ascii: { n: 1, s: 'plain' },
  json_utf8: { name: 'Zoë', tags: ['café'] },
  list_ascii: ['a', 'b c'],
  list_utf8: ['é', 'plain', '東'],
};

describe(`row decoding (${driverName()})`, () => {
  it('gives back ASCII, multi-byte UTF-8, empty and null columns of one row, each as stored', async () => {
    const [row] = await rowsRead(sql`select
      ${mixed.ascii}::text as ascii, ''::text as empty, null::text as missing, ${mixed.latin}::text as latin,
      ${mixed.cjk}::text as cjk, ${mixed.emoji}::text as emoji, chr(127) || 'edge' as del, 42::int4 as number,
      true as flag, 1.5::float8 as ratio, ${JSON.stringify(mixed.json_ascii)}::jsonb as json_ascii,
      ${JSON.stringify(mixed.json_utf8)}::jsonb as json_utf8, array['a', 'b c']::text[] as list_ascii,
      array['é', 'plain', '東']::text[] as list_utf8`);
    expect(row).toEqual(mixed);
  });

  it('decodes a row longer than the cut-from-one-string limit, ASCII and UTF-8 columns alike', async () => {
    const [row] = await rowsRead(sql`select repeat('x', 3000) as long, 'né' || repeat('y', 2100) as long_utf8, 'id_1' as short`);
    expect(row).toEqual({ long: LONG, long_utf8: `né${'y'.repeat(2100)}`, short: 'id_1' });
  });

  it('starts every row of a result afresh: ASCII and UTF-8 rows interleaved', async () => {
    const rows = await rowsRead(sql`select g as n, case when g % 3 = 0 then 'é' || g when g % 3 = 1 then 'a' || g end as label,
      'row-' || g || '-' || repeat('z', g % 40) as tail from generate_series(1, 300) g order by g`);
    expect(rows).toHaveLength(300);
    for (const [index, row] of rows.entries()) {
      const n = index + 1;
      expect(row).toEqual({ n, label: n % 3 === 0 ? `é${n}` : n % 3 === 1 ? `a${n}` : null, tail: `row-${n}-${'z'.repeat(n % 40)}` });
    }
  });

  it('maps the same values through a typed select (rows as arrays, the list queries’ path)', async () => {
    const [row] = await handle.db
      .select({
        ascii: sql<string>`${mixed.ascii}::text`,
        latin: sql<string>`${mixed.latin}::text`,
        missing: sql<string | null>`null::text`,
        list: sql<string[]>`array['é', 'plain', '東']::text[]`,
        json: sql<unknown>`${JSON.stringify(mixed.json_utf8)}::jsonb`,
        emoji: sql<string>`${mixed.emoji}::text`,
      })
      .from(sql`(select 1) as one`);
    expect(row).toEqual({ ascii: mixed.ascii, latin: mixed.latin, missing: null, list: mixed.list_utf8, json: mixed.json_utf8, emoji: mixed.emoji });
  });
});
