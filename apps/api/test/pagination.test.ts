import { describe, expect, it } from 'vitest';
import { type SQL, sql } from 'drizzle-orm';
import { workspaces } from '../src/db/schema/index.js';
import { decodeCursor, encodeCursor, listPage } from '../src/lib/pagination.js';
import { errorOf, useHarness, useTenant, type ApiResponse } from './support/harness.js';

// One cursor helper for every list; opaque cursors, a stable order with a unique
// tie-breaker, keyset queries, bounds from the spec.

const h = useHarness();
const t = useTenant(h);

async function pageThrough(path: string, limit: number, key = t.key): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const res: ApiResponse = await h.get(`${path}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, key);
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeLessThanOrEqual(limit);
    // next_cursor is null exactly when has_more is false.
    expect(res.body.next_cursor === null).toBe(!res.body.has_more);
    ids.push(...res.body.data.map((item: { id?: string; user_id?: string }) => item.id ?? item.user_id));
    cursor = res.body.next_cursor;
    pages++;
  } while (cursor);
  return { ids, pages };
}

describe('cursors', () => {
  it('round-trip opaquely and only for their own list', () => {
    const cursor = encodeCursor('workspaces', new Date('2026-11-15T12:00:00.123Z'), 'ws_abc');
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor('workspaces', cursor)).toEqual({ sortKey: new Date('2026-11-15T12:00:00.123Z'), id: 'ws_abc' });
    expect(() => decodeCursor('projects:*', cursor)).toThrow(expect.objectContaining({ statusCode: 400, code: 'invalid_cursor' }));
    for (const bad of ['garbage', Buffer.from('{"l":"workspaces","t":"x","id":"a"}').toString('base64url'), Buffer.from('[]').toString('base64url')]) {
      expect(() => decodeCursor('workspaces', bad)).toThrow(expect.objectContaining({ code: 'invalid_cursor' }));
    }
  });
});

describe('lists', () => {
  it("refuse another account's cursor, and a cursor used with other filters (400 invalid_cursor)", async () => {
    const owner = await h.tenant();
    for (let i = 0; i < 3; i++) await h.post('/workspaces', owner.key, { name: `Cursor scope ${i}` });
    const other = await h.tenant();
    for (let i = 0; i < 3; i++) await h.post('/workspaces', other.key, { name: `Cursor scope ${i}` });
    const first = await h.get('/workspaces?limit=1&search=Cursor', owner.key);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const cursor = first.body.next_cursor as string;
    // The owner pages on; the same cursor from another account, or with another search, is refused.
    expect((await h.get(`/workspaces?limit=1&search=Cursor&cursor=${cursor}`, owner.key)).status).toBe(200);
    const foreign = await h.get(`/workspaces?limit=1&search=Cursor&cursor=${cursor}`, other.key);
    expect(foreign.status).toBe(400);
    expect(errorOf(foreign)).toEqual({ type: 'invalid_request_error', code: 'invalid_cursor', param: 'cursor' });
    const refiltered = await h.get(`/workspaces?limit=1&search=scope&cursor=${cursor}`, owner.key);
    expect(errorOf(refiltered).code).toBe('invalid_cursor');
    // A different page size is the same list.
    expect((await h.get(`/workspaces?limit=2&search=Cursor&cursor=${cursor}`, owner.key)).status).toBe(200);
  });

  it('visit every item exactly once, newest first, with ties broken by id', async () => {
    const created: { id: string; at: number }[] = [];
    for (let i = 0; i < 7; i++) {
      // Three items share each timestamp, so the id has to break ties.
      if (i % 3 === 0) h.clock.advance(1_000);
      const res = await h.post('/projects', t.key, { workspace_id: t.workspaceId, name: `Page item ${i}` });
      created.push({ id: res.body.id, at: h.clock.ms() });
    }
    const expected = [...created].sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : -1)).map((item) => item.id);
    const { ids, pages } = await pageThrough(`/projects?workspace_id=${t.workspaceId}`, 3);
    expect(ids).toEqual(expected);
    expect(pages).toBe(3);
  });

  it('visit every item exactly once through a statement built once per shape (agent threads), for each caller', async () => {
    const other = await h.tenant();
    const made: Record<string, { id: string; at: number }[]> = { mine: [], theirs: [] };
    for (let i = 0; i < 7; i++) {
      if (i % 3 === 0) h.clock.advance(1_000);
      for (const [who, tenant] of [
        ['mine', t],
        ['theirs', other],
      ] as const) {
        const res = await h.post('/agent/threads', tenant.key, { workspace_id: tenant.workspaceId, title: `Shaped ${who} ${i}` });
        made[who]!.push({ id: res.body.id, at: h.clock.ms() });
      }
    }
    const newestFirst = (items: { id: string; at: number }[]) => [...items].sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : -1)).map((item) => item.id);
    // Both shapes (first page and after a cursor), with and without the workspace filter and a search, each
    // caller seeing exactly their own threads through the same kept statements.
    for (const [who, tenant] of [
      ['mine', t],
      ['theirs', other],
      ['mine', t],
    ] as const) {
      const expected = newestFirst(made[who]!);
      const across = (await pageThrough(`/agent/threads?search=Shaped`, 3, tenant.key)).ids;
      expect(across).toEqual(expected);
      expect((await pageThrough(`/agent/threads?workspace_id=${tenant.workspaceId}&search=Shaped%20${who}`, 2, tenant.key)).ids).toEqual(expected);
    }
  });

  /** A workspaces list kept as `name` with these placeholder values and filters (the refusals below). */
  const preparedWorkspaces = (name: string, values: Record<string, string>, filters: SQL[]) =>
    listPage(
      { limit: 5 },
      {
        list: name,
        keyset: { sortKey: workspaces.createdAt, id: workspaces.id },
        prepared: { db: h.db, name, values },
        filters,
        rows: (page) =>
          h.db
            .select()
            .from(workspaces)
            .where(page.where)
            .orderBy(...page.orderBy)
            .limit(page.fetch),
        keyOf: (row) => ({ sortKey: row.createdAt, id: row.id }),
        toItem: (row) => row.id,
      },
    );

  it('refuse to keep a list statement that holds a value instead of a placeholder', async () => {
    const held = () =>
      preparedWorkspaces('held_value_test', { name: 'x' }, [sql`${workspaces.name} <> ${'a literal'}`, sql`${workspaces.name} <> ${sql.placeholder('name')}`]);
    await expect(held()).rejects.toThrow(/holds values \(1\)/);
  });

  it('refuse a list statement whose placeholders are not exactly the values given (a shape named by other filters)', async () => {
    // A value given whose filter the statement does not carry: the next call with that value would
    // reuse a statement that ignores it.
    const unused = () => preparedWorkspaces('unused_value_test', { name: 'x', workspace_id: 'ws_x' }, [sql`${workspaces.name} <> ${sql.placeholder('name')}`]);
    await expect(unused()).rejects.toThrow(/uses \[name\] but was given \[name, workspace_id\]/);
  });

  it('keep a cursor valid when the item it points at is deleted', async () => {
    const res = await h.get(`/projects?workspace_id=${t.workspaceId}&limit=2`, t.key);
    const [, last] = res.body.data;
    await h.delete(`/projects/${last.id}`, t.key);
    const next = await h.get(`/projects?workspace_id=${t.workspaceId}&limit=2&cursor=${res.body.next_cursor}`, t.key);
    expect(next.status).toBe(200);
    expect(next.body.data.map((p: { id: string }) => p.id)).not.toContain(last.id);
    expect(next.body.data).toHaveLength(2);
  });

  it('page through workspaces and members the same way', async () => {
    for (let i = 0; i < 4; i++) {
      h.clock.advance(10);
      await h.post('/workspaces', t.key, { name: `W${i}` });
      await h.post(`/workspaces/${t.workspaceId}/members`, t.key, { email: `member${i}@pages.example`, role: 'viewer' });
    }
    const workspaces = await pageThrough('/workspaces', 2);
    expect(workspaces.ids).toHaveLength(5);
    expect(new Set(workspaces.ids).size).toBe(5);
    const members = await pageThrough(`/workspaces/${t.workspaceId}/members`, 2);
    expect(members.ids).toHaveLength(5);
    expect(members.ids.at(-1)).toBe(t.userId); // the owner joined first
  });

  it('refuse a cursor of another list with 400 invalid_cursor', async () => {
    const page = await h.get('/workspaces?limit=1', t.key);
    expect(page.body.next_cursor).toBeTruthy();
    const res = await h.get(`/projects?cursor=${page.body.next_cursor}`, t.key);
    expect(res.status).toBe(400);
    expect(errorOf(res)).toEqual({ type: 'invalid_request_error', code: 'invalid_cursor', param: 'cursor' });
    const otherWorkspace = await h.get(`/workspaces/${t.workspaceId}/members?limit=1`, t.key);
    const second = (await h.post('/workspaces', t.key, { name: 'Other' })).body.id;
    const crossed = await h.get(`/workspaces/${second}/members?cursor=${otherWorkspace.body.next_cursor}`, t.key);
    expect(errorOf(crossed).code).toBe('invalid_cursor');
  });

  it('enforce the bounds of the contract: limit 1 to 100, default 50', async () => {
    for (const limit of ['0', '101', '-1', 'abc']) {
      const res = await h.get(`/workspaces?limit=${limit}`, t.key);
      expect(res.status).toBe(400);
      expect(errorOf(res).param).toBe('limit');
    }
    const cursorTooLong = await h.get(`/workspaces?cursor=${'a'.repeat(513)}`, t.key);
    expect(errorOf(cursorTooLong).param).toBe('cursor');
    for (let i = 0; i < 55; i++) await h.post(`/workspaces/${t.workspaceId}/members`, t.key, { email: `bulk${i}@pages.example`, role: 'viewer' });
    const page = await h.get(`/workspaces/${t.workspaceId}/members`, t.key);
    expect(page.body.data).toHaveLength(50);
    expect(page.body.has_more).toBe(true);
  });
});
