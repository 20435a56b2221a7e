import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FILE_JOBS } from '../../src/resources/files/jobs.js';
import { thumbnailObjectKey, uploadObjectKey } from '../../src/resources/files/keys.js';
import { createLocalStorage } from '../../src/storage/index.js';
import { createS3Storage } from '../../src/storage/s3.js';
import type { ObjectStorage } from '../../src/storage/types.js';
import { errorOf, type Tenant } from '../support/harness.js';
import { openFilesStand, pathOf, sha256, upload, uploadAndRecord, type FilesStand } from './files/flow.js';

// The upload flow end to end (upload URL → PUT → POST /files → signed download, Range, thumbnail job,
// delete and the bytes job, the 24-hour cleanup) on each storage backend.

interface Backend {
  storage: ObjectStorage;
  close(): Promise<void>;
}

const backends: [string, () => Promise<Backend>][] = [
  [
    'local disk',
    async () => {
      const directory = await mkdtemp(join(tmpdir(), 'persona-uploads-local-'));
      return { storage: createLocalStorage(directory), close: () => rm(directory, { recursive: true, force: true }) };
    },
  ],
  [
    'S3 (s3rver)',
    async () => {
      const directory = await mkdtemp(join(tmpdir(), 'persona-uploads-s3rver-'));
      const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: 'persona-uploads' }] });
      const { port } = await server.run();
      const storage = createS3Storage({
        bucket: 'persona-uploads',
        region: 'us-east-1',
        endpoint: `http://127.0.0.1:${port}`,
        accessKeyId: 'S3RVER',
        secretAccessKey: 'S3RVER',
        forcePathStyle: true,
      });
      return {
        storage,
        close: async () => {
          await storage.close();
          await server.close();
          await rm(directory, { recursive: true, force: true });
        },
      };
    },
  ],
];

describe.each(backends)('the upload flow on %s', (_name, openBackend) => {
  let backend: Backend;
  let stand: FilesStand;
  let owner: Tenant;
  beforeAll(async () => {
    backend = await openBackend();
    stand = await openFilesStand(backend.storage);
    owner = await stand.h.tenant();
  });
  afterAll(async () => {
    await stand?.close();
    await backend?.close();
  });

  it('uploads, records, serves (whole and ranges), renders a thumbnail, deletes and frees the bytes', async () => {
    const { h, queue, storage } = stand;
    const png = await sharp({ create: { width: 1200, height: 800, channels: 3, background: '#3366cc' } })
      .png()
      .toBuffer();
    const { target, put, file } = await uploadAndRecord(h, owner, png, 'image/png', { file_name: 'Banner.PNG', checksum: true });
    expect(target.key).toMatch(/^upl_[A-Za-z0-9]{24}\.png$/);
    expect(target.headers).toEqual({ 'Content-Type': 'image/png', 'x-storage-checksum-sha256': sha256(png) });
    expect(put.body).toMatchObject({ object: 'upload', key: target.key, size: png.length, content_type: 'image/png', checksum_sha256: sha256(png) });
    expect(file).toMatchObject({ object: 'file', name: 'Banner.PNG', type: 'image/png', size: png.length, source: 'upload', metadata: {}, is_favorite: false });
    expect(file.thumbnail_url).toBeUndefined();
    expect(await storage.head(uploadObjectKey(target.key))).toMatchObject({ size: png.length });

    const whole = await h.get(pathOf(file.url));
    expect(whole.status).toBe(200);
    expect(whole.headers['content-type']).toBe('image/png');
    expect(whole.headers['accept-ranges']).toBe('bytes');
    expect(whole.headers['content-length']).toBe(String(png.length));
    expect((await h.app.inject({ method: 'GET', url: pathOf(file.url) })).rawPayload.equals(png)).toBe(true);
    const part = await h.get(pathOf(file.url), undefined, { range: 'bytes=0-7' });
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 0-7/${png.length}`);
    expect(part.headers['content-length']).toBe('8');
    expect((await h.app.inject({ method: 'GET', url: pathOf(file.url), headers: { range: 'bytes=0-7' } })).rawPayload.equals(png.subarray(0, 8))).toBe(true);
    const suffix = await h.get(pathOf(file.url), undefined, { range: 'bytes=-4' });
    expect(suffix.status).toBe(206);
    expect(suffix.headers['content-range']).toBe(`bytes ${png.length - 4}-${png.length - 1}/${png.length}`);
    const outside = await h.get(pathOf(file.url), undefined, { range: `bytes=${png.length}-` });
    expect(outside.status).toBe(416);
    expect(outside.headers['content-range']).toBe(`bytes */${png.length}`);
    expect(errorOf(outside)).toEqual({ type: 'invalid_request_error', code: 'range_not_satisfiable', param: 'Range' });
    const several = await h.get(pathOf(file.url), undefined, { range: 'bytes=0-1,4-5' });
    expect(several.status).toBe(200);

    // The thumbnail: a job after POST /files; the link 404s until then.
    const thumbnailLink = new URL(file.url);
    thumbnailLink.searchParams.set('variant', 'thumbnail');
    expect((await h.get(pathOf(thumbnailLink.toString()))).status).toBe(401); // the variant is signed
    expect(await queue.drain()).toEqual({ completed: 1, failed: 0 });
    const read = await h.get(`/files/${file.id}`, owner.key);
    expect(read.body.thumbnail_url).toEqual(expect.stringContaining('variant=thumbnail'));
    const thumbnail = await h.app.inject({ method: 'GET', url: pathOf(read.body.thumbnail_url) });
    expect(thumbnail.statusCode).toBe(200);
    expect(thumbnail.headers['content-type']).toBe('image/jpeg');
    const meta = await sharp(thumbnail.rawPayload).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 640, 427]);

    // Delete: the rows at once (the link 404s), the bytes by the job.
    const deleted = await h.delete(`/files/${file.id}`, owner.key);
    expect(deleted.body).toEqual({ id: file.id, object: 'file', deleted: true });
    expect((await h.get(pathOf(read.body.url))).status).toBe(404);
    expect(await storage.head(uploadObjectKey(target.key))).not.toBeNull();
    expect(await queue.drain()).toEqual({ completed: 1, failed: 0 });
    expect(await storage.head(uploadObjectKey(target.key))).toBeNull();
    expect(await storage.head(thumbnailObjectKey(target.key))).toBeNull();
  });

  it('renders a video thumbnail with ffmpeg', async () => {
    const { h, queue } = stand;
    const { readFile } = await import('node:fs/promises');
    const { execFileSync } = await import('node:child_process');
    const directory = await mkdtemp(join(tmpdir(), 'persona-video-'));
    try {
      const path = join(directory, 'clip.mp4');
      execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=10:duration=2', '-pix_fmt', 'yuv420p', path]);
      const mp4 = await readFile(path);
      const { file } = await uploadAndRecord(h, owner, mp4, 'video/mp4', { file_name: 'clip.mp4' });
      expect(await queue.drain()).toEqual({ completed: 1, failed: 0 });
      const read = await h.get(`/files/${file.id}`, owner.key);
      const thumbnail = await h.app.inject({ method: 'GET', url: pathOf(read.body.thumbnail_url) });
      expect(thumbnail.statusCode).toBe(200);
      expect((await sharp(thumbnail.rawPayload).metadata()).width).toBe(320);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('deletes an upload left without a record after 24 hours, bytes and row', async () => {
    const { h, queue, storage } = stand;
    const { target, put } = await upload(h, owner, Buffer.from('draft notes'), 'text/plain', { file_name: 'draft.txt' });
    expect(put.status).toBe(200);
    const recorded = await uploadAndRecord(h, owner, Buffer.from('kept notes'), 'text/plain');
    h.clock.advance(25 * 60 * 60 * 1000);
    // Past 24 hours the link is a 404 even before the sweep, and the upload can no longer be recorded.
    expect((await h.get(pathOf(target.public_url))).status).toBe(401); // the hour-long link expired
    expect(errorOf(await h.post('/files', owner.key, target.next_step.body)).code).toBe('upload_not_found');
    await queue.enqueue(stand.database.db, FILE_JOBS.cleanupUploads, {});
    expect(await queue.drain()).toEqual({ completed: 1, failed: 0 });
    expect(await storage.head(uploadObjectKey(target.key))).toBeNull();
    expect(await storage.head(uploadObjectKey(recorded.target.key))).not.toBeNull();
    const fresh = await h.get(`/files/${recorded.file.id}`, owner.key);
    expect((await h.get(pathOf(fresh.body.url))).text).toBe('kept notes');
  });
});
