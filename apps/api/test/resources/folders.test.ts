import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcileCounts } from '../../src/billing/reconcile.js';
import { uploadObjectKey } from '../../src/resources/files/keys.js';
import { createLocalStorage } from '../../src/storage/index.js';
import type { AssignableRole } from '../../src/workspaces/roles.js';
import { errorOf, type Tenant } from '../support/harness.js';
import { openFilesStand, pathOf, upload, uploadAndRecord, type FilesStand } from './files/flow.js';

// Folders (DECISIONS.md, "Folders"): flat, private to their creator unless shared, changed by their
// creator or an owner/manager, deleted with or without their files.

let stand: FilesStand;
let directory: string;
let owner: Tenant;
const h = new Proxy({} as FilesStand['h'], { get: (_t, p) => Reflect.get(stand.h, p, stand.h) });

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'persona-folders-'));
  stand = await openFilesStand(createLocalStorage(directory));
  owner = await stand.h.tenant();
});
afterAll(async () => {
  await stand?.close();
  await rm(directory, { recursive: true, force: true });
});

async function member(role: AssignableRole): Promise<Tenant> {
  const person = await h.tenant();
  expect((await h.post(`/workspaces/${owner.workspaceId}/members`, owner.key, { email: person.email, role })).status).toBe(200);
  return { ...person, workspaceId: owner.workspaceId };
}

const reference = (tenant: Tenant, name: string, folderId?: string) =>
  h.post('/files', tenant.key, {
    workspace_id: owner.workspaceId,
    name,
    type: 'application/pdf',
    url: `https://d.example/${encodeURIComponent(name)}`,
    source: 'url',
    ...(folderId ? { folder_id: folderId } : {}),
  });

describe('folders', () => {
  it('creates flat folders (names need not be unique), lists them with search and favorites', async () => {
    const a = await h.post('/folders', owner.key, { workspace_id: owner.workspaceId, name: 'Campaign' });
    expect(a.body).toMatchObject({ object: 'folder', name: 'Campaign', workspace_id: owner.workspaceId, file_count: 0, is_shared: false, is_favorite: false });
    expect(a.body.files).toBeUndefined();
    h.clock.advance(1000);
    const b = await h.post('/folders', owner.key, { workspace_id: owner.workspaceId, name: 'Campaign', is_shared: true });
    h.clock.advance(1000);
    const c = await h.post('/folders', owner.key, { workspace_id: owner.workspaceId, name: 'Invoices 100%' });
    expect((await h.patch(`/folders/${b.body.id}`, owner.key, { is_favorite: true })).body.is_favorite).toBe(true);
    const ids = async (query: string) =>
      (await h.get(`/folders?workspace_id=${owner.workspaceId}${query}`, owner.key)).body.data.map((f: { id: string }) => f.id);
    expect(await ids('')).toEqual([c.body.id, b.body.id, a.body.id]);
    expect(await ids('&search=campaign')).toEqual([b.body.id, a.body.id]);
    expect(await ids('&search=100%25')).toEqual([c.body.id]);
    expect(await ids('&is_favorite=true')).toEqual([b.body.id]);
    expect(await ids('&is_favorite=false')).toEqual([c.body.id, a.body.id]);
    const page = await h.get(`/folders?workspace_id=${owner.workspaceId}&limit=2`, owner.key);
    expect(page.body).toMatchObject({ has_more: true });
  });

  it('keeps a private folder, and the files in it, to its creator; a shared one is seen by every member', async () => {
    const editor = await member('editor');
    const mine = (await h.post('/folders', editor.key, { workspace_id: owner.workspaceId, name: 'Drafts' })).body;
    const file = (await reference(editor, 'secret draft.pdf', mine.id)).body;
    expect((await h.get(`/folders/${mine.id}`, owner.key)).status).toBe(404);
    expect((await h.get(`/files/${file.id}`, owner.key)).status).toBe(404);
    const listed = await h.get(`/files?workspace_id=${owner.workspaceId}`, owner.key);
    expect(listed.body.data.map((f: { id: string }) => f.id)).not.toContain(file.id);
    expect((await h.get(`/folders?workspace_id=${owner.workspaceId}`, owner.key)).body.data.map((f: { id: string }) => f.id)).not.toContain(mine.id);
    expect((await h.patch(`/folders/${mine.id}`, editor.key, { is_shared: true })).body.is_shared).toBe(true);
    expect((await h.get(`/files/${file.id}`, owner.key)).status).toBe(200);
    expect((await h.get(`/folders/${mine.id}`, owner.key)).body.file_count).toBe(1);
  });

  it('pages a folder’s files newest first, with file_count the total; include_files=false leaves them out', async () => {
    const folder = (await h.post('/folders', owner.key, { workspace_id: owner.workspaceId, name: 'Paged', is_shared: true })).body;
    const names = ['one', 'two', 'three'];
    for (const name of names) {
      h.clock.advance(1000);
      await reference(owner, name, folder.id);
    }
    const first = await h.get(`/folders/${folder.id}?limit=2`, owner.key);
    expect(first.body.file_count).toBe(3);
    expect(first.body.files.data.map((f: { name: string }) => f.name)).toEqual(['three', 'two']);
    const next = await h.get(`/folders/${folder.id}?limit=2&cursor=${first.body.files.next_cursor}`, owner.key);
    expect(next.body.files.data.map((f: { name: string }) => f.name)).toEqual(['one']);
    expect((await h.get(`/folders/${folder.id}?include_files=false`, owner.key)).body.files).toBeUndefined();
  });

  it('lets the creator or an owner/manager rename, share or delete; anyone who sees it may favorite it', async () => {
    const editor = await member('editor');
    const manager = await member('manager');
    const viewer = await member('viewer');
    const folder = (await h.post('/folders', editor.key, { workspace_id: owner.workspaceId, name: 'Team', is_shared: true })).body;
    const other = await member('editor');
    expect(errorOf(await h.patch(`/folders/${folder.id}`, other.key, { name: 'Mine now' }))).toEqual({
      type: 'invalid_request_error',
      code: 'permission_denied',
      param: 'name',
    });
    expect(errorOf(await h.delete(`/folders/${folder.id}`, other.key)).code).toBe('permission_denied');
    expect((await h.patch(`/folders/${folder.id}`, viewer.key, { is_favorite: true })).body).toMatchObject({ name: 'Team', is_favorite: true });
    expect((await h.get(`/folders/${folder.id}`, editor.key)).body.is_favorite).toBe(false);
    expect((await h.patch(`/folders/${folder.id}`, editor.key, { name: 'Team A' })).body.name).toBe('Team A');
    expect((await h.patch(`/folders/${folder.id}`, manager.key, { name: 'Team B' })).body.name).toBe('Team B');
    expect(errorOf(await h.post('/folders', viewer.key, { workspace_id: owner.workspaceId, name: 'x' })).code).toBe('permission_denied');
    expect((await h.delete(`/folders/${folder.id}`, manager.key)).body).toEqual({ id: folder.id, object: 'folder', deleted: true });
  });

  it('deletes a folder leaving its files in no folder, or with delete_files=true deleting them and their bytes', async () => {
    const keep = (await h.post('/folders', owner.key, { workspace_id: owner.workspaceId, name: 'Keep files', is_shared: true })).body;
    const kept = (await reference(owner, 'stays.pdf', keep.id)).body;
    expect((await h.delete(`/folders/${keep.id}`, owner.key)).status).toBe(200);
    const after = await h.get(`/files/${kept.id}`, owner.key);
    expect(after.status).toBe(200);
    expect(after.body.folder_id).toBeUndefined();
    expect((await h.get(`/folders/${keep.id}`, owner.key)).status).toBe(404);

    const drop = (await h.post('/folders', owner.key, { workspace_id: owner.workspaceId, name: 'Drop files', is_shared: true })).body;
    const uploaded = await uploadAndRecord(h, owner, Buffer.from('bytes to drop'), 'text/plain', { folder_id: drop.id });
    const ref = (await reference(owner, 'goes.pdf', drop.id)).body;
    const creative = await member('creative_specialist');
    expect(errorOf(await h.delete(`/folders/${drop.id}?delete_files=true`, creative.key)).code).toBe('permission_denied');
    expect((await h.delete(`/folders/${drop.id}?delete_files=true`, owner.key)).status).toBe(200);
    expect((await h.get(`/files/${uploaded.file.id}`, owner.key)).status).toBe(404);
    expect((await h.get(`/files/${ref.id}`, owner.key)).status).toBe(404);
    expect((await h.get(pathOf(uploaded.file.url))).status).toBe(404);
    await stand.queue.drain();
    expect(await stand.storage.head(uploadObjectKey(uploaded.target.key))).toBeNull();
  });

  it('keeps file_count by every write that puts a file in a folder or takes it out, concurrent moves included', async () => {
    const tenant = await h.tenant();
    const folder = async (name: string) =>
      (await h.post('/folders', tenant.key, { workspace_id: tenant.workspaceId, name, is_shared: true })).body.id as string;
    const [a, b, c] = [await folder('A'), await folder('B'), await folder('C')];
    const counts = async () => {
      const listed = (await h.get(`/folders?workspace_id=${tenant.workspaceId}&limit=100`, tenant.key)).body.data as { id: string; file_count: number }[];
      const byId = Object.fromEntries(listed.map((f) => [f.id, f.file_count]));
      for (const id of Object.keys(byId)) expect((await h.get(`/folders/${id}?include_files=false`, tenant.key)).body.file_count).toBe(byId[id]);
      return byId;
    };
    const move = (fileId: string, folderId: string | null) => h.patch(`/files/${fileId}`, tenant.key, { folder_id: folderId });
    const ref = async (name: string, folderId?: string) =>
      (
        await h.post('/files', tenant.key, {
          workspace_id: tenant.workspaceId,
          name,
          type: 'application/pdf',
          url: `https://d.example/${name}`,
          source: 'url',
          ...(folderId ? { folder_id: folderId } : {}),
        })
      ).body.id as string;

    // An upload URL given a folder puts nothing in it until the file is recorded.
    const pending = await upload(h, tenant, Buffer.from('pending'), 'text/plain', { folder_id: a });
    expect(await counts()).toEqual({ [a]: 0, [b]: 0, [c]: 0 });
    const recorded = (await h.post('/files', tenant.key, pending.target.next_step.body)).body.id as string;
    const one = await ref('one', b);
    const loose = await ref('loose');
    expect(await counts()).toEqual({ [a]: 1, [b]: 1, [c]: 0 });

    expect((await move(recorded, b)).status).toBe(200);
    expect(await counts()).toEqual({ [a]: 0, [b]: 2, [c]: 0 });
    expect((await move(recorded, null)).status).toBe(200);
    expect((await move(loose, c)).status).toBe(200);
    expect(await counts()).toEqual({ [a]: 0, [b]: 1, [c]: 1 });
    // A PATCH that leaves the folder (or names the one the file is in) counts nothing.
    expect((await h.patch(`/files/${one}`, tenant.key, { name: 'renamed', metadata: { k: 1 } })).status).toBe(200);
    expect((await move(one, b)).status).toBe(200);
    expect((await move(recorded, null)).status).toBe(200);
    expect(await counts()).toEqual({ [a]: 0, [b]: 1, [c]: 1 });
    expect((await h.delete(`/files/${one}`, tenant.key)).status).toBe(200);
    expect(await counts()).toEqual({ [a]: 0, [b]: 0, [c]: 1 });

    // Concurrent: one file moved to two folders at once lands in one of them, counted once; two files
    // crossing between the same two folders both arrive; a file moving out of a folder being deleted.
    const racer = await ref('racer', a);
    const results = await Promise.all([move(racer, b), move(racer, c)]);
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    const landed = (await h.get(`/files/${racer}`, tenant.key)).body.folder_id as string;
    expect(await counts()).toEqual({ [a]: 0, [b]: landed === b ? 1 : 0, [c]: landed === c ? 2 : 1 });
    const [x, y] = [await ref('x', a), await ref('y', c)];
    for (let round = 0; round < 3; round++) {
      const crossed = await Promise.all([move(x, round % 2 === 0 ? c : a), move(y, round % 2 === 0 ? a : c)]);
      expect(crossed.map((r) => r.status)).toEqual([200, 200]);
    }
    expect(await counts()).toEqual({ [a]: 1, [b]: landed === b ? 1 : 0, [c]: landed === c ? 3 : 2 });
    const leaving = await ref('leaving', b);
    const [moved, gone] = await Promise.all([move(leaving, a), h.delete(`/folders/${b}`, tenant.key)]);
    expect([moved.status, gone.status]).toEqual([200, 200]);
    for (let round = 0; round < 5; round++) {
      const doomed = await folder(`doomed ${round}`);
      const [out, stays] = [await ref(`out-${round}`, doomed), await ref(`stays-${round}`, doomed)];
      const raced = await Promise.all([move(out, a), h.delete(`/folders/${doomed}`, tenant.key), move(stays, c)]);
      expect(raced.map((r) => r.status)).toEqual([200, 200, 200]);
    }
    const after = await counts();
    expect(after[b]).toBeUndefined();
    const files = (await h.get(`/files?workspace_id=${tenant.workspaceId}&limit=100`, tenant.key)).body.data as { folder_id?: string }[];
    expect(after).toEqual({ [a]: files.filter((f) => f.folder_id === a).length, [c]: files.filter((f) => f.folder_id === c).length });
    expect(after).toEqual({ [a]: 7, [c]: (landed === c ? 3 : 2) + 5 });

    // Deleting the workspace takes its folders with their files; nothing is left to miscount.
    const [ws, wsKey] = [tenant.workspaceId, tenant.key];
    const second = (await h.post('/workspaces', wsKey, { name: 'Second' })).body.id as string;
    const elsewhere = (await h.post('/folders', wsKey, { workspace_id: second, name: 'Elsewhere' })).body.id as string;
    await h.post('/files', wsKey, {
      workspace_id: second,
      name: 'e',
      type: 'application/pdf',
      url: 'https://d.example/e',
      source: 'url',
      folder_id: elsewhere,
    });
    expect((await h.get(`/folders/${elsewhere}`, wsKey)).body.file_count).toBe(1);
    expect((await h.delete(`/workspaces/${second}`, wsKey)).status).toBe(200);
    const mine = (m: { id: string }) => [a, b, c, elsewhere, ws, second, tenant.accountId].includes(m.id);
    expect((await reconcileCounts(stand.database.db)).filter(mine)).toEqual([]);
  });
});
