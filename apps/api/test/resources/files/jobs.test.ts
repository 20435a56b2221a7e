import { eq } from 'drizzle-orm';
import { pino } from 'pino';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createWorkspaceFor } from '../../../src/admin/accounts.js';
import type { DatabaseHandle } from '../../../src/db/client.js';
import { files, uploads } from '../../../src/db/schema/index.js';
import { cleanupUnrecordedUploads, FILE_JOBS, fileJobs, renderFileThumbnail, type FileJobDeps } from '../../../src/resources/files/jobs.js';
import { thumbnailObjectKey, uploadObjectKey } from '../../../src/resources/files/keys.js';
import { openTestDatabase } from '../../support/database.js';
import { MemoryStorage } from './memory-storage.js';

const HOUR = 60 * 60 * 1000;
let database: DatabaseHandle;
let workspaceId: string;
let clock: Date;
const storage = new MemoryStorage();
const deps = (): FileJobDeps => ({ db: database.db, storage, now: () => clock, ffmpegPath: 'ffmpeg' });
const put = (objectKey: string, bytes: Buffer, contentType = 'application/octet-stream') => storage.objects.set(objectKey, { bytes, contentType });
const context = { jobId: 'job_1', attempt: 0, signal: new AbortController().signal, log: pino({ level: 'silent' }) };

const upload = (key: string, createdAt: Date, fileId: string | null = null) => ({
  key,
  workspaceId,
  fileName: key,
  contentType: 'text/plain',
  declaredSize: 3,
  expiresAt: new Date(createdAt.getTime() + HOUR),
  createdAt,
  fileId,
  uploadedAt: createdAt,
  storedSize: 3,
});

beforeAll(async () => {
  database = await openTestDatabase();
  const account = await createAccount(database.db, { name: 'Jobs', email: `jobs.${process.pid}@example.com`, tier: 'professional', credits: 0 });
  workspaceId = await createWorkspaceFor(database.db, { accountId: account.accountId, name: 'W' });
  clock = new Date('2026-11-20T12:00:00.000Z');
});
afterAll(async () => {
  await database?.close();
});

describe('files jobs', () => {
  it('declares a scheduled cleanup and the two per-file jobs', () => {
    const definitions = fileJobs(deps());
    expect(definitions.map((d) => d.kind).sort()).toEqual(Object.values(FILE_JOBS).sort());
    expect(definitions.find((d) => d.kind === FILE_JOBS.cleanupUploads)?.schedule).toMatch(/^\S+ \* \* \* \*$/);
  });

  it('deletes unrecorded uploads older than 24 hours, bytes and row, and keeps younger or recorded ones', async () => {
    const old = new Date(clock.getTime() - 25 * HOUR);
    const young = new Date(clock.getTime() - 23 * HOUR);
    await database.db
      .insert(uploads)
      .values([
        upload('upl_oldAAAAAAAAAAAAAAAA.txt', old),
        upload('upl_youngAAAAAAAAAAAAAA.txt', young),
        upload('upl_recordedAAAAAAAAAAA.txt', old, 'file_recorded'),
      ]);
    for (const key of ['upl_oldAAAAAAAAAAAAAAAA.txt', 'upl_youngAAAAAAAAAAAAAA.txt', 'upl_recordedAAAAAAAAAAA.txt'])
      put(uploadObjectKey(key), Buffer.from('abc'));
    put(thumbnailObjectKey('upl_oldAAAAAAAAAAAAAAAA.txt'), Buffer.from('jpg'));

    const definition = fileJobs(deps()).find((d) => d.kind === FILE_JOBS.cleanupUploads)!;
    await definition.run({}, context);
    const left = await database.db.select({ key: uploads.key }).from(uploads);
    expect(left.map((r) => r.key).sort()).toEqual(['upl_recordedAAAAAAAAAAA.txt', 'upl_youngAAAAAAAAAAAAAA.txt']);
    expect([...storage.objects.keys()].sort()).toEqual([uploadObjectKey('upl_recordedAAAAAAAAAAA.txt'), uploadObjectKey('upl_youngAAAAAAAAAAAAAA.txt')]);
    // Running again finds nothing; an hour later the young one is due.
    expect(await cleanupUnrecordedUploads(deps())).toEqual([]);
    clock = new Date(clock.getTime() + 2 * HOUR);
    expect(await cleanupUnrecordedUploads(deps())).toEqual(['upl_youngAAAAAAAAAAAAAA.txt']);
  });

  it('deletes the bytes of deleted files but never of a key that still has an upload row', async () => {
    put(uploadObjectKey('upl_goneAAAAAAAAAAAAAAA.png'), Buffer.from('x'));
    put(thumbnailObjectKey('upl_goneAAAAAAAAAAAAAAA.png'), Buffer.from('y'));
    const definition = fileJobs(deps()).find((d) => d.kind === FILE_JOBS.deleteBytes)!;
    await definition.run({ keys: ['upl_goneAAAAAAAAAAAAAAA.png', 'upl_recordedAAAAAAAAAAA.txt', 'upl_neverStoredAAAAAAAA.pdf'] }, context);
    expect(storage.objects.has(uploadObjectKey('upl_goneAAAAAAAAAAAAAAA.png'))).toBe(false);
    expect(storage.objects.has(thumbnailObjectKey('upl_goneAAAAAAAAAAAAAAA.png'))).toBe(false);
    expect(storage.objects.has(uploadObjectKey('upl_recordedAAAAAAAAAAA.txt'))).toBe(true);
  });

  it('renders and records an image thumbnail once, and skips files that get none', async () => {
    const key = 'upl_imageAAAAAAAAAAAAAA.png';
    put(
      uploadObjectKey(key),
      await sharp({ create: { width: 1280, height: 960, channels: 3, background: '#884422' } })
        .png()
        .toBuffer(),
      'image/png',
    );
    const row = { workspaceId, name: 'image.png', sizeBytes: 1, size: 1, createdAt: clock, updatedAt: clock };
    await database.db.insert(files).values([
      { ...row, id: 'file_image', type: 'image/png', storageKey: key },
      { ...row, id: 'file_pdf', type: 'application/pdf', storageKey: 'upl_pdfAAAAAAAAAAAAAAAA.pdf' },
      { ...row, id: 'file_ref', type: 'image/png', source: 'google_drive', sizeBytes: 0, url: 'https://drive.google.com/x' },
    ]);
    expect(await renderFileThumbnail(deps(), 'file_image')).toBe('stored');
    const [stored] = await database.db.select({ thumbnailKey: files.thumbnailKey }).from(files).where(eq(files.id, 'file_image'));
    expect(stored?.thumbnailKey).toBe(thumbnailObjectKey(key));
    const thumb = storage.objects.get(thumbnailObjectKey(key))!;
    expect(thumb.contentType).toBe('image/jpeg');
    expect((await sharp(thumb.bytes).metadata()).width).toBe(640);
    expect(await renderFileThumbnail(deps(), 'file_image')).toBe('skipped');
    expect(await renderFileThumbnail(deps(), 'file_pdf')).toBe('skipped');
    expect(await renderFileThumbnail(deps(), 'file_ref')).toBe('skipped');
    expect(await renderFileThumbnail(deps(), 'file_missing')).toBe('skipped');
  });
});
