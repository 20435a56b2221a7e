import { createContractAjv } from '@persona-api/openapi/ajv';
import { and, desc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createWorkspaceFor } from '../../../src/admin/accounts.js';
import { loadSpec } from '../../../src/contract/spec.js';
import type { DatabaseHandle } from '../../../src/db/client.js';
import { fileFavorites, files, folderFavorites, folders, users } from '../../../src/db/schema/index.js';
import {
  fileIsFavorite,
  fileListConditions,
  fileListValues,
  folderIsFavorite,
  folderListConditions,
  folderListValues,
  type FileListFilters,
} from '../../../src/resources/files/filters.js';
import { newUploadKey } from '../../../src/resources/files/keys.js';
import {
  newUploadGrant,
  toFavoriteResult,
  toFile,
  toFolder,
  toUploadResult,
  toUploadUrl,
  type FileRow,
  type LinkContext,
} from '../../../src/resources/files/mappers.js';
import { deriveSigningKeys, ownUploadKey, verifyDownload } from '../../../src/resources/files/signing.js';
import { openTestDatabase } from '../../support/database.js';

const ajv = createContractAjv(loadSpec(), { strict: false });
const problems = (schema: string, value: unknown) => {
  const validate = ajv.validatorAt(`#/components/schemas/${schema}`);
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
};

const now = new Date('2026-11-19T14:44:02.000Z');
const links: LinkContext = { baseUrl: 'http://localhost:8080/api/v1', keys: deriveSigningKeys('mapper-test-secret-of-32-characters!!'), now };
const nowSeconds = Math.floor(now.getTime() / 1000);

const row = (overrides: Partial<FileRow> = {}): FileRow => ({
  id: 'file_8Jk2PwQ7zL4m',
  workspaceId: 'ws_9Qx2LmTa7bV1',
  folderId: null,
  createdByUserId: 'usr_1',
  name: 'Q4 Enterprise Pricing.pdf',
  type: 'application/pdf',
  source: 'upload',
  sizeBytes: 2483712,
  size: 2483712,
  storageKey: 'upl_7Qm2Xc9LpR4tVb8NxYz12345.pdf',
  url: null,
  checksumSha256: 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=',
  thumbnailKey: null,
  metadata: { campaign: 'Q4', approved: true, revision: 3 },
  createdAt: now,
  updatedAt: now,
  ...overrides,
});

describe('mappers', () => {
  it('an upload becomes a File with a fresh signed url and no folder or thumbnail fields', () => {
    const file = toFile(row(), { folder: null, isFavorite: false }, links);
    expect(problems('File', file)).toEqual([]);
    expect(file).not.toHaveProperty('folder_id');
    expect(file).not.toHaveProperty('thumbnail_url');
    const url = new URL(file.url);
    expect(ownUploadKey(links.baseUrl, file.url)).toBe('upl_7Qm2Xc9LpR4tVb8NxYz12345.pdf');
    const expires = Number(url.searchParams.get('expires'));
    // Read at 14:44:02: valid to the first five-minute mark at least an hour later.
    expect(expires).toBe(Date.parse('2026-11-19T15:45:00Z') / 1000);
    expect(() =>
      verifyDownload(links.keys, { key: 'upl_7Qm2Xc9LpR4tVb8NxYz12345.pdf', variant: 'original', expires }, url.searchParams.get('signature')!, nowSeconds),
    ).not.toThrow();
  });

  it('gives every read within the same five minutes the same links, and a new link after the mark', () => {
    const at = (iso: string) => toFile(row({ thumbnailKey: 'thumbnails/t.jpg' }), { folder: null, isFavorite: false }, { ...links, now: new Date(iso) });
    const first = at('2026-11-19T14:44:02Z');
    const later = at('2026-11-19T14:44:59Z');
    expect([later.url, later.thumbnail_url]).toEqual([first.url, first.thumbnail_url]);
    expect(later.thumbnail_url).not.toBe(later.url);
    const next = at('2026-11-19T14:45:01Z');
    expect(new URL(next.url).searchParams.get('expires')).toBe(String(Date.parse('2026-11-19T15:50:00Z') / 1000));
    // Another signing secret never gets a link signed with the first.
    const other = toFile(row(), { folder: null, isFavorite: false }, { ...links, keys: deriveSigningKeys('another-secret-of-at-least-32-chars!!') });
    expect(new URL(other.url).searchParams.get('signature')).not.toBe(new URL(first.url).searchParams.get('signature'));
  });

  it('an image in a folder carries folder, folder_id and a thumbnail link; a reference keeps its link and may have no size', () => {
    const image = toFile(
      row({
        type: 'image/png',
        storageKey: 'upl_K4tR8wXz2Nq6Lp1VabcdEFGH.png',
        thumbnailKey: 'thumbnails/upl_K4tR8wXz2Nq6Lp1VabcdEFGH.png.jpg',
        folderId: 'fld_3Rt8VxQ2mN5k',
      }),
      { folder: { id: 'fld_3Rt8VxQ2mN5k', name: 'Q4 Campaign Assets' }, isFavorite: true },
      links,
    );
    expect(problems('File', image)).toEqual([]);
    expect(image.folder).toEqual({ id: 'fld_3Rt8VxQ2mN5k', name: 'Q4 Campaign Assets' });
    expect(new URL(image.thumbnail_url!).searchParams.get('variant')).toBe('thumbnail');
    const drive = toFile(
      row({
        source: 'google_drive',
        storageKey: null,
        url: 'https://docs.google.com/document/d/1xK9/edit',
        size: null,
        sizeBytes: 0,
        type: 'application/vnd.google-apps.document',
        checksumSha256: null,
      }),
      { folder: null, isFavorite: false },
      links,
    );
    expect(problems('File', drive)).toEqual([]);
    expect([drive.url, drive.size]).toEqual(['https://docs.google.com/document/d/1xK9/edit', null]);
  });

  it('upload URL, upload result, folder and favorite results match the contract', () => {
    const key = newUploadKey('Q4 Enterprise Pricing.pdf');
    const grant = newUploadGrant(
      key,
      { file_type: 'application/pdf', file_size: 2483712, checksum_sha256: 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=' },
      now,
    );
    const upload = toUploadUrl(grant, { file_name: 'Q4 Enterprise Pricing.pdf', workspace_id: 'ws_9Qx2LmTa7bV1', folder_id: 'fld_3Rt8VxQ2mN5k' }, links);
    expect(problems('UploadUrl', upload)).toEqual([]);
    expect(upload.expires_in).toBe(3600);
    expect(upload.headers['x-storage-checksum-sha256']).toBe(grant.checksumSha256);
    expect(upload.next_step.body).toMatchObject({ url: upload.public_url, file_size: 2483712, folder_id: 'fld_3Rt8VxQ2mN5k' });
    // The ready-made body is a valid POST /files body that the server recognises as its own upload.
    expect(problems('FileCreateRequest', upload.next_step.body)).toEqual([]);
    expect(ownUploadKey(links.baseUrl, upload.next_step.body.url)).toBe(key);
    const noChecksum = toUploadUrl(newUploadGrant(key, { file_type: 'text/csv', file_size: 10 }, now), { file_name: 'a.csv', workspace_id: 'ws_1' }, links);
    expect(noChecksum.headers).toEqual({ 'Content-Type': 'text/csv' });
    expect(noChecksum.next_step.body).not.toHaveProperty('folder_id');
    expect(problems('UploadResult', toUploadResult({ key, contentType: 'application/pdf' }, { size: 2483712, sha256: grant.checksumSha256! }, links))).toEqual(
      [],
    );
    const folderRow = {
      id: 'fld_3Rt8VxQ2mN5k',
      workspaceId: 'ws_9Qx2LmTa7bV1',
      createdByUserId: 'usr_1',
      name: 'Q4',
      isShared: true,
      fileCount: 2,
      createdAt: now,
      updatedAt: now,
    };
    expect(problems('Folder', toFolder(folderRow, { fileCount: 2, isFavorite: false }))).toEqual([]);
    expect(
      problems(
        'Folder',
        toFolder(folderRow, {
          fileCount: 1,
          isFavorite: true,
          files: { object: 'list', data: [toFile(row(), { folder: null, isFavorite: false }, links)], has_more: false, next_cursor: null },
        }),
      ),
    ).toEqual([]);
    expect(toFavoriteResult('file_1', true)).toEqual({ id: 'file_1', is_favorite: true, message: 'File added to favorites' });
    expect(problems('FileFavoriteResult', toFavoriteResult('file_1', false))).toEqual([]);
  });
});

describe('list filters (on the database)', () => {
  let database: DatabaseHandle;
  let me: string;
  let other: string;
  let workspaceId: string;

  const listFiles = async (userId: string, filters: FileListFilters) => {
    // The conditions are placeholders (GET /files keeps its statement per shape): run with the list's values.
    const rows = await database.db
      .select({ id: files.id, favorite: fileIsFavorite(userId) })
      .from(files)
      .where(and(eq(files.workspaceId, workspaceId), ...fileListConditions(filters)))
      .orderBy(desc(files.createdAt), desc(files.id))
      .prepare('files_filters_test')
      .execute(fileListValues(userId, filters));
    return rows.map((r) => r.id);
  };

  beforeAll(async () => {
    database = await openTestDatabase();
    const db = database.db;
    const account = await createAccount(db, { name: 'Filters', email: `filters.${process.pid}@example.com`, tier: 'professional', credits: 0 });
    me = account.userId;
    other = 'usr_other_member';
    await db.insert(users).values({ id: other, email: `other.${process.pid}@example.com`, accountId: account.accountId, createdAt: now });
    workspaceId = await createWorkspaceFor(db, { accountId: account.accountId, name: 'W' });
    const at = (minutes: number) => new Date(now.getTime() + minutes * 60_000);
    // Fixture rows bypass the writers: each folder's file_count is set to the one file put in it below.
    await db.insert(folders).values([
      { id: 'fld_shared', workspaceId, createdByUserId: other, name: 'Shared', isShared: true, fileCount: 1, createdAt: at(0), updatedAt: at(0) },
      { id: 'fld_mine', workspaceId, createdByUserId: me, name: 'Mine (private)', isShared: false, fileCount: 1, createdAt: at(1), updatedAt: at(1) },
      { id: 'fld_theirs', workspaceId, createdByUserId: other, name: 'Theirs (private)', isShared: false, fileCount: 1, createdAt: at(2), updatedAt: at(2) },
    ]);
    const file = (id: string, minutes: number, name: string, type: string, folderId: string | null) => ({
      id,
      workspaceId,
      folderId,
      name,
      type,
      sizeBytes: 10,
      size: 10,
      createdAt: at(minutes),
      updatedAt: at(minutes),
    });
    await db
      .insert(files)
      .values([
        file('file_root_png', 10, 'Logo.PNG', 'image/png', null),
        file('file_root_pdf', 11, 'Pricing 100%.pdf', 'application/pdf', null),
        file('file_shared_jpg', 12, 'Team photo.jpg', 'IMAGE/JPEG', 'fld_shared'),
        file('file_mine_csv', 13, 'accounts_2026.csv', 'text/csv', 'fld_mine'),
        file('file_theirs_mp4', 14, 'Their demo.mp4', 'video/mp4', 'fld_theirs'),
        file('file_imagex', 15, 'odd', 'imagex/custom', null),
      ]);
    await db.insert(fileFavorites).values([
      { userId: me, fileId: 'file_root_pdf', createdAt: now },
      { userId: other, fileId: 'file_root_png', createdAt: now },
    ]);
    await db.insert(folderFavorites).values({ userId: me, folderId: 'fld_shared', createdAt: now });
  });
  afterAll(async () => {
    await database?.close();
  });

  it('hides files in another member’s private folder, newest first', async () => {
    expect(await listFiles(me, {})).toEqual(['file_imagex', 'file_mine_csv', 'file_shared_jpg', 'file_root_pdf', 'file_root_png']);
    expect(await listFiles(other, {})).toEqual(['file_imagex', 'file_theirs_mp4', 'file_shared_jpg', 'file_root_pdf', 'file_root_png']);
  });

  it('filters by folder, no folder, favorites (per user) and both', async () => {
    expect(await listFiles(me, { folder_id: 'fld_shared' })).toEqual(['file_shared_jpg']);
    expect(await listFiles(me, { folder_id: 'fld_theirs' })).toEqual([]);
    expect(await listFiles(me, { folder_id: 'none' })).toEqual(['file_imagex', 'file_root_pdf', 'file_root_png']);
    expect(await listFiles(me, { is_favorite: true })).toEqual(['file_root_pdf']);
    expect(await listFiles(other, { is_favorite: true })).toEqual(['file_root_png']);
    expect(await listFiles(me, { is_favorite: false, folder_id: 'none' })).toEqual(['file_imagex', 'file_root_png']);
  });

  it('matches the type as a case-insensitive MIME prefix, a bare top-level type meaning type/', async () => {
    expect(await listFiles(me, { type: 'image' })).toEqual(['file_shared_jpg', 'file_root_png']);
    expect(await listFiles(me, { type: 'Image/' })).toEqual(['file_shared_jpg', 'file_root_png']);
    expect(await listFiles(me, { type: 'application/pdf' })).toEqual(['file_root_pdf']);
    expect(await listFiles(me, { type: 'image/j' })).toEqual(['file_shared_jpg']);
  });

  it('searches names case-insensitively with % and _ taken literally', async () => {
    expect(await listFiles(me, { search: 'logo' })).toEqual(['file_root_png']);
    expect(await listFiles(me, { search: '100%' })).toEqual(['file_root_pdf']);
    expect(await listFiles(me, { search: 's_2' })).toEqual(['file_mine_csv']);
    expect(await listFiles(me, { search: 'demo' })).toEqual([]);
  });

  it('reports is_favorite per user', async () => {
    const rows = await database.db
      .select({ id: files.id, favorite: fileIsFavorite(me) })
      .from(files)
      .where(eq(files.workspaceId, workspaceId));
    expect(rows.filter((r) => r.favorite).map((r) => r.id)).toEqual(['file_root_pdf']);
  });

  it('lists the folders a member can see with file counts, favorites and search', async () => {
    const list = (userId: string, filters: { is_favorite?: boolean; search?: string }) =>
      database.db
        .select({ id: folders.id, count: folders.fileCount, favorite: folderIsFavorite(userId) })
        .from(folders)
        .where(and(eq(folders.workspaceId, workspaceId), ...folderListConditions(filters)))
        .orderBy(desc(folders.createdAt), desc(folders.id))
        .prepare('folders_filters_test')
        .execute(folderListValues(userId, filters));
    expect(await list(me, {})).toEqual([
      { id: 'fld_mine', count: 1, favorite: false },
      { id: 'fld_shared', count: 1, favorite: true },
    ]);
    expect((await list(other, {})).map((f) => f.id)).toEqual(['fld_theirs', 'fld_shared']);
    expect((await list(me, { is_favorite: true })).map((f) => f.id)).toEqual(['fld_shared']);
    expect((await list(me, { is_favorite: false, search: 'PRIVATE' })).map((f) => f.id)).toEqual(['fld_mine']);
  });
});
