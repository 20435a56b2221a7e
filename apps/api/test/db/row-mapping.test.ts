import { Column, getTableName, is, SQL, sql } from 'drizzle-orm';
import * as drizzleUtils from 'drizzle-orm/utils';
import { describe, expect, it } from 'vitest';
import { files, folders } from '../../src/resources/files/table.js';
import { workspaceMembers } from '../../src/resources/workspaces/table.js';

// drizzle-orm is patched (patches/drizzle-orm@0.45.4.patch) to map a selection's rows with a plan worked out
// once, then, after 64 rows, with a function compiled for its shape. Both must give drizzle's own results:
// upstream's loop, copied below as it is in 0.45.4, is the reference for the same selections and rows.

type Ordered = { path: string[]; field: unknown }[];
// Not in drizzle's type declarations, but exported by the module its sessions import.
const { mapResultRow, orderSelectedFields } = drizzleUtils as unknown as {
  mapResultRow(columns: Ordered, row: unknown[], joinsNotNullableMap: Record<string, boolean> | undefined): unknown;
  orderSelectedFields(fields: Record<string, unknown>): Ordered;
};

function upstreamMapResultRow(columns: Ordered, row: unknown[], joinsNotNullableMap: Record<string, boolean> | undefined) {
  const nullifyMap: Record<string, string | false> = {};
  const result = columns.reduce<Record<string, any>>((result, { path, field }, columnIndex) => {
    let decoder: { mapFromDriverValue(value: unknown): unknown };
    if (is(field, Column)) decoder = field;
    else if (is(field, SQL)) decoder = (field as any).decoder;
    else decoder = (field as any).sql.decoder;
    let node = result;
    for (const [pathChunkIndex, pathChunk] of path.entries()) {
      if (pathChunkIndex < path.length - 1) {
        if (!(pathChunk in node)) node[pathChunk] = {};
        node = node[pathChunk];
      } else {
        const rawValue = row[columnIndex];
        const value = (node[pathChunk] = rawValue === null ? null : decoder.mapFromDriverValue(rawValue));
        if (joinsNotNullableMap && is(field, Column) && path.length === 2) {
          const objectName = path[0]!;
          if (!(objectName in nullifyMap)) nullifyMap[objectName] = value === null ? getTableName(field.table) : false;
          else if (typeof nullifyMap[objectName] === 'string' && nullifyMap[objectName] !== getTableName(field.table)) nullifyMap[objectName] = false;
        }
      }
    }
    return result;
  }, {});
  if (joinsNotNullableMap && Object.keys(nullifyMap).length > 0) {
    for (const [objectName, tableName] of Object.entries(nullifyMap)) {
      if (typeof tableName === 'string' && !joinsNotNullableMap[tableName]) result[objectName] = null;
    }
  }
  return result;
}

/** A driver row for `columns`: each column's value as the driver returns it, or null where `nulls` says. */
function rowFor(columns: Ordered, nulls: (path: string[]) => boolean): unknown[] {
  return columns.map(({ path, field }, index) => {
    if (nulls(path)) return null;
    if (!is(field, Column)) return index % 2 === 0;
    const type = (field as Column).getSQLType();
    if (type.startsWith('timestamp')) return `2026-11-${String(10 + (index % 19)).padStart(2, '0')} 08:30:00.123+00`;
    if (type === 'integer') return 7 + index;
    if (type === 'bigint') return String(9_007_199_254_740_000 + index);
    if (type === 'boolean') return index % 2 === 0;
    if (type === 'jsonb') return { kind: 'driver-parsed', index };
    return `text ${index}`;
  });
}

describe('drizzle row mapping (patched)', () => {
  const selections: [string, Record<string, unknown>, Record<string, boolean> | undefined][] = [
    ['a table', { ...files }, undefined],
    [
      'nested tables, a left join and computed fields',
      { file: files, folder: folders, folderName: folders.name, role: workspaceMembers.role, isFavorite: sql<boolean>`true`.mapWith(Boolean) },
      { files: true, folders: false, workspace_members: true },
    ],
    ['a field of each object nested deeper', { outer: { file: files, extra: { name: folders.name } } }, { files: true, folders: false }],
  ];

  it.each(selections)('maps %s as drizzle does, nulls of a left join included', (_name, fields, joins) => {
    const columns = orderSelectedFields(fields);
    const cases = [
      () => false,
      (path: string[]) => path[0] === 'folder',
      (path: string[]) => path.at(-1) === 'id',
      (path: string[]) => path.length > 1 && path.at(-1) !== 'id',
    ];
    for (const nulls of cases) {
      // A selection of its own per case (as a query built again has), so each case goes through both paths.
      const columns = orderSelectedFields(fields);
      const row = rowFor(columns, nulls);
      // A selection's first rows go through the plan's loop, the later ones through the function compiled
      // for its shape (after 64 rows): both are held to upstream.
      for (let i = 0; i < 70; i++) {
        const mapped = mapResultRow(columns, row, joins);
        const expected = upstreamMapResultRow(columns, row, joins);
        expect(mapped).toEqual(expected);
        expect(JSON.stringify(mapped)).toBe(JSON.stringify(expected));
      }
    }
    // Timestamps are decoded (Dates), not passed through.
    const mapped = mapResultRow(
      columns,
      rowFor(columns, () => false),
      joins,
    ) as Record<string, any>;
    const file = mapped.file ?? mapped.outer?.file ?? mapped;
    expect(file.createdAt).toBeInstanceOf(Date);
  });
});
