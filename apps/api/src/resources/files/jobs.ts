import { Readable } from 'node:stream';
import { and, asc, eq, inArray, isNull, lt } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import type { JobDefinition } from '../../jobs/types.js';
import type { ObjectStorage } from '../../storage/types.js';
import { objectKeysOf, thumbnailObjectKey, uploadObjectKey } from './keys.js';
import { renderThumbnail, thumbnailKind } from './thumbnails.js';
import { files, uploads } from './table.js';

/** Queue names of the files module's jobs. */
export const FILE_JOBS = {
  /** Payload `{ keys }`: upload keys whose rows were deleted (a file, or a folder with delete_files). */
  deleteBytes: 'files.delete-bytes',
  /** Scheduled: uploads older than 24 hours without a record. */
  cleanupUploads: 'files.cleanup-uploads',
  /** Payload `{ fileId }`: renders and stores the thumbnail of an image or video after POST /files. */
  thumbnail: 'files.thumbnail',
} as const;

/** DECISIONS.md: uploads with no file record after 24 hours are deleted. */
export const UNRECORDED_UPLOAD_TTL_MS = 24 * 60 * 60 * 1000;
// One sweep deletes at most this many uploads; the hourly schedule picks up the rest.
const CLEANUP_BATCH = 500;

export interface FileJobDeps {
  db: Database;
  storage: ObjectStorage;
  now(): Date;
  /** FFMPEG_PATH. */
  ffmpegPath: string;
}

/** Deletes the stored objects of upload keys (original and thumbnail); missing objects are fine. */
export async function deleteUploadObjects(storage: ObjectStorage, keys: readonly string[]): Promise<void> {
  for (const key of keys) for (const objectKey of objectKeysOf(key)) await storage.delete(objectKey);
}

/**
 * One sweep of the 24-hour cleanup: bytes first, then the row, so a crash in between leaves a row the
 * next sweep deletes again (POST /files refuses uploads older than 24 hours, so none gets recorded
 * meanwhile). Returns the keys deleted.
 */
export async function cleanupUnrecordedUploads(deps: Pick<FileJobDeps, 'db' | 'storage' | 'now'>): Promise<string[]> {
  const cutoff = new Date(deps.now().getTime() - UNRECORDED_UPLOAD_TTL_MS);
  const stale = await deps.db
    .select({ key: uploads.key })
    .from(uploads)
    .where(and(isNull(uploads.fileId), lt(uploads.createdAt, cutoff)))
    .orderBy(asc(uploads.createdAt))
    .limit(CLEANUP_BATCH);
  const deleted: string[] = [];
  for (const { key } of stale) {
    await deleteUploadObjects(deps.storage, [key]);
    const gone = await deps.db
      .delete(uploads)
      .where(and(eq(uploads.key, key), isNull(uploads.fileId)))
      .returning({ key: uploads.key });
    if (gone.length > 0) deleted.push(key);
  }
  return deleted;
}

/**
 * Renders a recorded file's thumbnail and stores it. A file deleted (or already rendered) meanwhile is
 * left alone; a thumbnail stored for a file deleted during rendering is removed again.
 */
export async function renderFileThumbnail(deps: FileJobDeps, fileId: string, signal?: AbortSignal): Promise<'stored' | 'skipped'> {
  const [file] = await deps.db.select().from(files).where(eq(files.id, fileId));
  if (!file || file.storageKey === null || file.thumbnailKey !== null || thumbnailKind(file.type) === null) return 'skipped';
  const thumbnail = await renderThumbnail(deps.storage, uploadObjectKey(file.storageKey), file.type, {
    ffmpegPath: deps.ffmpegPath,
    ...(signal ? { signal } : {}),
  });
  if (thumbnail === null) return 'skipped';
  const objectKey = thumbnailObjectKey(file.storageKey);
  await deps.storage.put(objectKey, Readable.from([thumbnail]), { contentType: 'image/jpeg' });
  const updated = await deps.db
    .update(files)
    .set({ thumbnailKey: objectKey })
    .where(and(eq(files.id, fileId), eq(files.storageKey, file.storageKey)))
    .returning({ id: files.id });
  if (updated.length === 0) {
    await deps.storage.delete(objectKey);
    return 'skipped';
  }
  return 'stored';
}

// The queue keeps definitions of every payload type in one list; each run gets the payload its kind was
// enqueued with, so widening the parameter type is safe.
const erase = <P extends Record<string, unknown>>(definition: JobDefinition<P>) => definition as unknown as JobDefinition;

/** The files module's job definitions, for the queue to register. */
export function fileJobs(deps: FileJobDeps): JobDefinition[] {
  const deleteBytes: JobDefinition<{ keys: string[] }> = {
    kind: FILE_JOBS.deleteBytes,
    deadlineSeconds: 300,
    retryLimit: 10,
    retryDelaySeconds: 30,
    async run({ keys }) {
      // A key that has a row again (never reused in practice) keeps its bytes.
      const live = keys.length === 0 ? [] : await deps.db.select({ key: uploads.key }).from(uploads).where(inArray(uploads.key, keys));
      const liveKeys = new Set(live.map((row) => row.key));
      await deleteUploadObjects(
        deps.storage,
        keys.filter((key) => !liveKeys.has(key)),
      );
    },
  };
  const cleanup: JobDefinition = {
    kind: FILE_JOBS.cleanupUploads,
    schedule: '17 * * * *',
    deadlineSeconds: 900,
    retryLimit: 0,
    async run(_payload, context) {
      const deleted = await cleanupUnrecordedUploads(deps);
      if (deleted.length > 0) context.log.info({ count: deleted.length }, 'deleted unrecorded uploads older than 24 hours');
    },
  };
  const thumbnail: JobDefinition<{ fileId: string }> = {
    kind: FILE_JOBS.thumbnail,
    deadlineSeconds: 300,
    retryLimit: 1,
    retryDelaySeconds: 60,
    async run({ fileId }, context) {
      await renderFileThumbnail(deps, fileId, context.signal);
    },
    // A file whose thumbnail cannot be rendered simply has none (DECISIONS.md).
    async onFailure({ fileId }, error, context) {
      context.log.warn({ err: error, fileId }, 'thumbnail rendering failed; the file keeps no thumbnail');
    },
  };
  return [erase(deleteBytes), cleanup, erase(thumbnail)];
}
