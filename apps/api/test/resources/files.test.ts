import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tiers } from '../../src/db/schema/index.js';
import { reconcileCounts } from '../../src/billing/reconcile.js';
import { newId } from '../../src/lib/ids.js';
import { insertFileRow } from '../../src/resources/files/repository.js';
import { uploadObjectKey } from '../../src/resources/files/keys.js';
import { createLocalStorage } from '../../src/storage/index.js';
import type { AssignableRole } from '../../src/workspaces/roles.js';
import { errorOf, type Tenant } from '../support/harness.js';
import { openFilesStand, pathOf, sha256, upload, uploadAndRecord, type FilesStand } from './files/flow.js';

// Files and uploads (DECISIONS.md, "Files and uploads"): the PUT's checks, recording, quota, lists,
// favorites, PATCH, delete and the role matrix.

let stand: FilesStand;
let directory: string;
let owner: Tenant;
const h = new Proxy({} as FilesStand['h'], { get: (_t, p) => Reflect.get(stand.h, p, stand.h) });
const text = (s: string) => Buffer.from(s, 'utf8');
const PDF = Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n', 'latin1');

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'persona-files-'));
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

describe('POST /files/upload-url', () => {
  it('signs a PUT for the declared type, size and checksum and proposes the POST /files body', async () => {
    const res = await h.post('/files/upload-url', owner.key, {
      workspace_id: owner.workspaceId,
      file_name: 'Notes.Final.TXT',
      file_type: 'text/plain',
      file_size: 5,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'upload_url', method: 'PUT', expires_in: 3600, headers: { 'Content-Type': 'text/plain' } });
    expect(res.body.key).toMatch(/^upl_[A-Za-z0-9]{24}\.txt$/);
    expect(res.body.upload_url).toMatch(new RegExp(`^http://localhost/api/v1/uploads/${res.body.key}\\?expires=\\d+&signature=[a-f0-9]{64}$`));
    expect(res.body.next_step.body).toEqual({
      name: 'Notes.Final.TXT',
      type: 'text/plain',
      url: res.body.public_url,
      workspace_id: owner.workspaceId,
      file_size: 5,
    });
  });

  it('refuses a regular file over 10 MiB (videos may be up to 2 GiB)', async () => {
    const big = await h.post('/files/upload-url', owner.key, {
      workspace_id: owner.workspaceId,
      file_name: 'a.pdf',
      file_type: 'application/pdf',
      file_size: 10 * 1024 * 1024 + 1,
    });
    expect(errorOf(big)).toEqual({ type: 'invalid_request_error', code: 'file_too_large', param: 'file_size' });
    const video = await h.post('/files/upload-url', owner.key, {
      workspace_id: owner.workspaceId,
      file_name: 'a.mp4',
      file_type: 'video/mp4',
      file_size: 1024 * 1024 * 1024,
    });
    expect(video.status).toBe(200);
  });

  it('answers 404 for a folder the caller does not see', async () => {
    const res = await h.post('/files/upload-url', owner.key, {
      workspace_id: owner.workspaceId,
      file_name: 'a.txt',
      file_type: 'text/plain',
      file_size: 1,
      folder_id: 'fld_missing',
    });
    expect(errorOf(res)).toMatchObject({ code: 'resource_not_found', param: 'folder_id' });
  });
});

describe('PUT /uploads/{key}', () => {
  it('stores a JSON file as its bytes, like any other file (was a 500: the body was parsed as a request)', async () => {
    // Over the 1 MiB request limit too: the upload target takes the declared size, streamed.
    const bytes = text(`{"rows":[${Array.from({ length: 60_000 }, (_, i) => `{"id":${i},"name":"row ${i}"}`).join(',')}]}\n`);
    expect(bytes.length).toBeGreaterThan(1024 * 1024);
    const { put, file } = await uploadAndRecord(h, owner, bytes, 'application/json', { file_name: 'rows.json', checksum: true });
    expect(put.body).toMatchObject({ size: bytes.length, content_type: 'application/json', checksum_sha256: sha256(bytes) });
    const download = await h.get(pathOf(file.url));
    expect(download.status).toBe(200);
    expect(download.text).toBe(bytes.toString('utf8'));
  });

  it('refuses a tampered or expired URL with 401 invalid_upload_signature', async () => {
    const target = (
      await h.post('/files/upload-url', owner.key, { workspace_id: owner.workspaceId, file_name: 'a.txt', file_type: 'text/plain', file_size: 5 })
    ).body;
    const tampered = target.upload_url.replace(/signature=./, (m: string) => `${m.slice(0, -1)}${m.endsWith('0') ? '1' : '0'}`);
    expect(errorOf(await h.put(pathOf(tampered), text('hello'), { 'content-type': 'text/plain' }))).toEqual({
      type: 'authentication_error',
      code: 'invalid_upload_signature',
      param: 'signature',
    });
    const download = target.public_url.replace(`/uploads/${target.key}`, `/uploads/${target.key}`);
    expect((await h.put(pathOf(download), text('hello'), { 'content-type': 'text/plain' })).status).toBe(401); // a download link is no upload URL
    h.clock.advance(3601_000);
    try {
      expect(errorOf(await h.put(pathOf(target.upload_url), text('hello'), { 'content-type': 'text/plain' })).code).toBe('invalid_upload_signature');
    } finally {
      h.clock.advance(-3601_000);
    }
  });

  it('checks Content-Type, size and checksum, storing nothing on a failure', async () => {
    const bytes = text('hello world');
    const target = (
      await h.post('/files/upload-url', owner.key, {
        workspace_id: owner.workspaceId,
        file_name: 'a.txt',
        file_type: 'text/plain',
        file_size: bytes.length,
        checksum_sha256: sha256(bytes),
      })
    ).body;
    const url = pathOf(target.upload_url);
    const headers = target.headers;
    expect(errorOf(await h.put(url, bytes, { ...headers, 'content-type': 'text/csv' }))).toMatchObject({ code: 'invalid_parameter', param: 'Content-Type' });
    expect(errorOf(await h.put(url, bytes, { 'content-type': 'text/plain' }))).toMatchObject({ code: 'checksum_mismatch' });
    expect(errorOf(await h.put(url, text('hello WORLD'), headers))).toMatchObject({ code: 'checksum_mismatch', param: 'x-storage-checksum-sha256' });
    expect(errorOf(await h.put(url, text('hello'), headers))).toMatchObject({ code: 'invalid_parameter', param: 'Content-Length' });
    const tooLong = await h.put(url, text('hello world!!'), headers);
    expect(tooLong.status).toBe(413);
    expect(errorOf(tooLong).code).toBe('request_too_large');
    expect(await stand.storage.head(uploadObjectKey(target.key))).toBeNull();
    expect((await h.put(url, bytes, headers)).status).toBe(200);
  });

  it('refuses bytes of another type than declared (sniffed), and non-UTF-8 text', async () => {
    const pdfAsPng = await upload(h, owner, PDF, 'image/png');
    expect(errorOf(pdfAsPng.put)).toMatchObject({ code: 'invalid_parameter', param: 'Content-Type' });
    const latin1 = await upload(h, owner, Buffer.from('caf\xe9 cr\xe8me', 'latin1'), 'text/plain');
    expect(errorOf(latin1.put)).toMatchObject({ code: 'invalid_parameter', param: 'Content-Type' });
    expect((await upload(h, owner, PDF, 'application/pdf')).put.status).toBe(200);
  });

  it('replaces the bytes when repeated before the record, and is a 409 after it', async () => {
    const first = await upload(h, owner, text('version one'), 'text/plain');
    // A PUT that fails leaves the upload unrecordable (its bytes may be half replaced) until one succeeds.
    const notUtf8 = Buffer.from('versi\xf3n one', 'latin1');
    expect(notUtf8.length).toBe(11);
    expect((await h.put(pathOf(first.target.upload_url), notUtf8, first.target.headers)).status).toBe(400);
    expect(errorOf(await h.post('/files', owner.key, first.target.next_step.body)).code).toBe('upload_not_found');
    expect((await h.put(pathOf(first.target.upload_url), text('version two'), first.target.headers)).status).toBe(200);
    const file = await h.post('/files', owner.key, first.target.next_step.body);
    expect((await h.get(pathOf(file.body.url))).text).toBe('version two');
    const again = await h.put(pathOf(first.target.upload_url), text('version 3!!'), first.target.headers);
    expect(again.status).toBe(409);
    expect(errorOf(again).code).toBe('invalid_state');
  });
});

describe('POST /files', () => {
  it('records only a completed upload of this workspace, once, with its size and type', async () => {
    const target = (
      await h.post('/files/upload-url', owner.key, { workspace_id: owner.workspaceId, file_name: 'a.txt', file_type: 'text/plain', file_size: 3 })
    ).body;
    expect(errorOf(await h.post('/files', owner.key, target.next_step.body))).toEqual({
      type: 'invalid_request_error',
      code: 'upload_not_found',
      param: 'url',
    });
    const done = await upload(h, owner, text('abc'), 'text/plain');
    const body = done.target.next_step.body;
    expect(errorOf(await h.post('/files', owner.key, { ...body, file_size: 4 }))).toMatchObject({ code: 'invalid_parameter', param: 'file_size' });
    expect(errorOf(await h.post('/files', owner.key, { ...body, type: 'text/csv' }))).toMatchObject({ code: 'invalid_parameter', param: 'type' });
    const { file_size: _size, ...withoutSize } = body;
    expect(errorOf(await h.post('/files', owner.key, withoutSize))).toMatchObject({ code: 'missing_parameter', param: 'file_size' });
    expect(errorOf(await h.post('/files', owner.key, { ...body, url: body.url.replace('http://localhost', 'http://elsewhere.example') }))).toMatchObject({
      code: 'upload_not_found',
    });
    const other = await h.tenant();
    expect(errorOf(await h.post('/files', other.key, { ...body, workspace_id: other.workspaceId })).code).toBe('upload_not_found');
    // Expired link parameters do not matter: the key and the API key authorise the record.
    const stale = new URL(body.url);
    stale.searchParams.set('expires', '1');
    const created = await h.post('/files', owner.key, {
      ...body,
      url: stale.toString(),
      name: 'Renamed at record',
      metadata: { campaign: 'q4', pages: 3, final: true },
    });
    expect(created.body).toMatchObject({ name: 'Renamed at record', size: 3, type: 'text/plain', metadata: { campaign: 'q4', pages: 3, final: true } });
    expect(created.body.folder_id).toBeUndefined();
    expect(errorOf(await h.post('/files', owner.key, body))).toEqual({ type: 'invalid_request_error', code: 'duplicate_resource', param: 'url' });
  });

  it('records references by https link only, with or without a size, using no storage', async () => {
    const plain = await h.post('/files', owner.key, {
      workspace_id: owner.workspaceId,
      name: 'Deck',
      type: 'application/pdf',
      url: 'http://drive.example/deck.pdf',
      source: 'google_drive',
    });
    expect(errorOf(plain)).toMatchObject({ code: 'invalid_parameter', param: 'url' });
    const ref = await h.post('/files', owner.key, {
      workspace_id: owner.workspaceId,
      name: 'Deck',
      type: 'application/pdf',
      url: 'https://drive.example/deck.pdf',
      source: 'google_drive',
    });
    expect(ref.body).toMatchObject({ source: 'google_drive', url: 'https://drive.example/deck.pdf', size: null });
    expect(ref.body.thumbnail_url).toBeUndefined();
  });

  it('puts the file in the upload’s folder unless folder_id says otherwise (null: none)', async () => {
    const folder = (await h.post('/folders', owner.key, { workspace_id: owner.workspaceId, name: 'Briefs', is_shared: true })).body;
    const inherited = await uploadAndRecord(h, owner, text('one'), 'text/plain', { folder_id: folder.id });
    expect(inherited.file).toMatchObject({ folder_id: folder.id, folder: { id: folder.id, name: 'Briefs' } });
    const second = await upload(h, owner, text('two'), 'text/plain', { folder_id: folder.id });
    const none = await h.post('/files', owner.key, { ...second.target.next_step.body, folder_id: null });
    expect(none.body.folder_id).toBeUndefined();
  });
});

describe('storage quota', () => {
  it('is checked at upload-url and at record time, reported by GET /usage and freed by delete; two records racing for the last bytes do not both succeed', async () => {
    const tenant = await h.tenant({ tier: 'starter' });
    const [tier] = await stand.database.db.select().from(tiers).where(eq(tiers.id, 'starter'));
    const included = Number(tier!.storageBytesIncluded);
    // Fill the account to 100 bytes below its quota with an (already stored) upload row.
    const now = h.clock.now();
    await insertFileRow(stand.database.db, {
      id: newId('file'),
      workspaceId: tenant.workspaceId,
      name: 'big.mp4',
      type: 'video/mp4',
      source: 'upload',
      sizeBytes: included - 100,
      size: included - 100,
      storageKey: 'upl_fillerAAAAAAAAAAAAAAAA.mp4',
      createdAt: now,
      updatedAt: now,
    });
    const usage = await h.get('/usage', tenant.key);
    expect(usage.body.storage.gb_used).toBeCloseTo((included - 100) / 1e9, 3);

    const over = await h.post('/files/upload-url', tenant.key, {
      workspace_id: tenant.workspaceId,
      file_name: 'a.txt',
      file_type: 'text/plain',
      file_size: 101,
    });
    expect(over.status).toBe(402);
    expect(errorOf(over)).toEqual({ type: 'insufficient_credits', code: 'usage_limit_exceeded', param: 'file_size' });

    // Each fits alone; together they pass the quota.
    const first = await upload(h, tenant, Buffer.alloc(60, 'a'), 'text/plain');
    const second = await upload(h, tenant, Buffer.alloc(60, 'b'), 'text/plain');
    const results = await Promise.all([h.post('/files', tenant.key, first.target.next_step.body), h.post('/files', tenant.key, second.target.next_step.body)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 402]);
    const kept = results.find((r) => r.status === 200)!.body;
    // Deleting frees the bytes at once: the refused one now fits.
    expect((await h.delete(`/files/${kept.id}`, tenant.key)).status).toBe(200);
    const refused = results[0]!.status === 402 ? first : second;
    expect((await h.post('/files', tenant.key, refused.target.next_step.body)).status).toBe(200);
    await stand.queue.drain();
  });
});

describe('stored bytes', () => {
  it('follow every write of a file: record, reference, delete, a folder deleted with its files, a workspace deleted', async () => {
    const tenant = await h.tenant();
    // GET /usage reports GB with three decimals: sizes in whole megabytes.
    const megabytesUsed = async () => Math.round((await h.get('/usage', tenant.key)).body.storage.gb_used * 1e3);
    const second = { ...tenant, workspaceId: (await h.post('/workspaces', tenant.key, { name: 'Second' })).body.id as string };
    const folder = (await h.post('/folders', tenant.key, { workspace_id: tenant.workspaceId, name: 'Drafts', is_shared: true })).body.id;
    const a = (await uploadAndRecord(h, tenant, Buffer.alloc(1e6, 'a'), 'text/plain')).file.id;
    await uploadAndRecord(h, tenant, Buffer.alloc(2e6, 'b'), 'text/plain', { folder_id: folder });
    await uploadAndRecord(h, tenant, Buffer.alloc(3e6, 'c'), 'text/plain', { folder_id: folder });
    await uploadAndRecord(h, second, Buffer.alloc(4e6, 'd'), 'text/plain');
    // A reference to another service stores no bytes here, whatever size it declares.
    const reference = {
      workspace_id: tenant.workspaceId,
      name: 'Deck',
      type: 'application/pdf',
      url: 'https://d.example/deck',
      source: 'dropbox',
      file_size: 1e6,
    };
    expect((await h.post('/files', tenant.key, reference)).status).toBe(200);
    expect(await megabytesUsed()).toBe(10);

    expect((await h.delete(`/files/${a}`, tenant.key)).status).toBe(200);
    expect((await h.delete(`/files/${a}`, tenant.key)).status).toBe(404);
    expect(await megabytesUsed()).toBe(9);
    expect((await h.delete(`/folders/${folder}?delete_files=true`, tenant.key)).status).toBe(200);
    expect(await megabytesUsed()).toBe(4);
    expect((await h.delete(`/workspaces/${second.workspaceId}`, tenant.key)).status).toBe(200);
    expect(await megabytesUsed()).toBe(0);

    // A member's upload to another account's workspace counts on the workspace's account.
    const guest = await h.tenant();
    expect((await h.post(`/workspaces/${tenant.workspaceId}/members`, tenant.key, { email: guest.email, role: 'editor' })).status).toBe(200);
    await uploadAndRecord(h, { key: guest.key, workspaceId: tenant.workspaceId }, Buffer.alloc(5e6, 'e'), 'text/plain');
    expect(await megabytesUsed()).toBe(5);
    expect((await h.get('/usage', guest.key)).body.storage.gb_used).toBe(0);
    expect((await reconcileCounts(stand.database.db)).filter((m) => [tenant.accountId, guest.accountId].includes(m.id))).toEqual([]);
    await stand.queue.drain();
  });
});

describe('GET /files', () => {
  it('filters by folder (and none), favorite, MIME prefix and name, newest first with paging', async () => {
    const tenant = await h.tenant();
    const folder = (await h.post('/folders', tenant.key, { workspace_id: tenant.workspaceId, name: 'Assets', is_shared: true })).body;
    const made: Record<string, string> = {};
    for (const [name, type, url] of [
      ['Q4 plan.pdf', 'application/pdf', 'https://d.example/1'],
      ['Logo 50%.png', 'image/PNG', 'https://d.example/2'],
      ['Intro.mp4', 'video/mp4', 'https://d.example/3'],
      ['notes_v2.txt', 'text/plain', 'https://d.example/4'],
    ] as const) {
      h.clock.advance(1000);
      made[name] = (
        await h.post('/files', tenant.key, {
          workspace_id: tenant.workspaceId,
          name,
          type,
          url,
          source: 'dropbox',
          ...(name.startsWith('Logo') || name.startsWith('Intro') ? { folder_id: folder.id } : {}),
        })
      ).body.id;
    }
    await h.post(`/files/${made['Intro.mp4']}/favorite`, tenant.key);
    const names = async (query: string) =>
      (await h.get(`/files?workspace_id=${tenant.workspaceId}${query}`, tenant.key)).body.data.map((f: { name: string }) => f.name);
    expect(await names('')).toEqual(['notes_v2.txt', 'Intro.mp4', 'Logo 50%.png', 'Q4 plan.pdf']);
    expect(await names(`&folder_id=${folder.id}`)).toEqual(['Intro.mp4', 'Logo 50%.png']);
    expect(await names('&folder_id=none')).toEqual(['notes_v2.txt', 'Q4 plan.pdf']);
    expect(await names('&is_favorite=true')).toEqual(['Intro.mp4']);
    expect(await names('&is_favorite=false')).toEqual(['notes_v2.txt', 'Logo 50%.png', 'Q4 plan.pdf']);
    expect(await names('&type=image')).toEqual(['Logo 50%.png']);
    expect(await names('&type=IMAGE/p')).toEqual(['Logo 50%.png']);
    expect(await names('&type=video/mp4')).toEqual(['Intro.mp4']);
    expect(await names('&search=50%25')).toEqual(['Logo 50%.png']);
    expect(await names('&search=_v')).toEqual(['notes_v2.txt']);
    const page1 = await h.get(`/files?workspace_id=${tenant.workspaceId}&limit=3`, tenant.key);
    expect(page1.body.has_more).toBe(true);
    const page2 = await h.get(`/files?workspace_id=${tenant.workspaceId}&limit=3&cursor=${page1.body.next_cursor}`, tenant.key);
    expect(page2.body.data.map((f: { name: string }) => f.name)).toEqual(['Q4 plan.pdf']);
  });
});

describe('favorites, PATCH and delete', () => {
  it('keeps favorites per user; a replayed Idempotency-Key does not flip back', async () => {
    const editor = await member('editor');
    const file = (
      await h.post('/files', owner.key, {
        workspace_id: owner.workspaceId,
        name: 'Shared.pdf',
        type: 'application/pdf',
        url: 'https://d.example/s',
        source: 'onedrive',
      })
    ).body;
    const on = await h.post(`/files/${file.id}/favorite`, editor.key, undefined, { 'idempotency-key': 'fav-1' });
    expect(on.body).toEqual({ id: file.id, is_favorite: true, message: 'File added to favorites' });
    expect((await h.post(`/files/${file.id}/favorite`, editor.key, undefined, { 'idempotency-key': 'fav-1' })).body.is_favorite).toBe(true);
    expect((await h.get(`/files/${file.id}`, editor.key)).body.is_favorite).toBe(true);
    expect((await h.get(`/files/${file.id}`, owner.key)).body.is_favorite).toBe(false);
    expect((await h.post(`/files/${file.id}/favorite`, editor.key)).body).toEqual({ id: file.id, is_favorite: false, message: 'File removed from favorites' });
  });

  it('renames, moves and replaces metadata; a folder the caller does not see is a 404', async () => {
    const file = (
      await h.post('/files', owner.key, {
        workspace_id: owner.workspaceId,
        name: 'a.pdf',
        type: 'application/pdf',
        url: 'https://d.example/p',
        source: 'onedrive',
        metadata: { a: 1 },
      })
    ).body;
    const folder = (await h.post('/folders', owner.key, { workspace_id: owner.workspaceId, name: 'Target' })).body;
    const moved = await h.patch(`/files/${file.id}`, owner.key, { name: 'b.pdf', folder_id: folder.id, metadata: { b: 'two' } });
    expect(moved.body).toMatchObject({ name: 'b.pdf', folder_id: folder.id, folder: { id: folder.id, name: 'Target' }, metadata: { b: 'two' } });
    const out = await h.patch(`/files/${file.id}`, owner.key, { folder_id: null });
    expect(out.body.folder_id).toBeUndefined();
    expect(out.body.name).toBe('b.pdf');
    const editor = await member('editor');
    const privateFolder = (await h.post('/folders', editor.key, { workspace_id: owner.workspaceId, name: 'Mine' })).body;
    expect(errorOf(await h.patch(`/files/${file.id}`, owner.key, { folder_id: privateFolder.id }))).toMatchObject({
      code: 'resource_not_found',
      param: 'folder_id',
    });
    const other = await h.tenant();
    const foreign = (await h.post('/folders', other.key, { workspace_id: other.workspaceId, name: 'Foreign' })).body;
    expect(errorOf(await h.patch(`/files/${file.id}`, owner.key, { folder_id: foreign.id }))).toMatchObject({ code: 'resource_not_found', param: 'folder_id' });
  });

  it('applies the role matrix: viewers read, creative specialists create but do not delete', async () => {
    const viewer = await member('viewer');
    const creative = await member('creative_specialist');
    const file = (
      await h.post('/files', owner.key, {
        workspace_id: owner.workspaceId,
        name: 'r.pdf',
        type: 'application/pdf',
        url: 'https://d.example/r',
        source: 'onedrive',
      })
    ).body;
    expect((await h.get(`/files/${file.id}`, viewer.key)).status).toBe(200);
    expect(
      errorOf(await h.post('/files/upload-url', viewer.key, { workspace_id: owner.workspaceId, file_name: 'a.txt', file_type: 'text/plain', file_size: 1 }))
        .code,
    ).toBe('permission_denied');
    expect(
      errorOf(
        await h.post('/files', viewer.key, {
          workspace_id: owner.workspaceId,
          name: 'x',
          type: 'application/pdf',
          url: 'https://d.example/x',
          source: 'onedrive',
        }),
      ).code,
    ).toBe('permission_denied');
    expect(errorOf(await h.patch(`/files/${file.id}`, viewer.key, { name: 'x' })).code).toBe('permission_denied');
    expect((await h.post(`/files/${file.id}/favorite`, viewer.key)).status).toBe(200);
    expect((await h.patch(`/files/${file.id}`, creative.key, { name: 'renamed.pdf' })).status).toBe(200);
    expect(errorOf(await h.delete(`/files/${file.id}`, creative.key)).code).toBe('permission_denied');
    expect((await h.delete(`/files/${file.id}`, owner.key)).status).toBe(200);
    expect((await h.get(`/files/${file.id}`, owner.key)).status).toBe(404);
  });
});
