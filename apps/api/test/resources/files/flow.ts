import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import type { DatabaseHandle } from '../../../src/db/client.js';
import { fileJobs } from '../../../src/resources/files/jobs.js';
import type { JobRuntime } from '../../../src/jobs/queue.js';
import type { ObjectStorage } from '../../../src/storage/types.js';
import { openTestDatabase } from '../../support/database.js';
import { Harness, TestClock, type ApiResponse, type Tenant } from '../../support/harness.js';
import { openTestJobQueue } from '../../support/jobs.js';

/** A harness with real storage and a job queue that runs the files module's jobs on `drain()`. */
export interface FilesStand {
  h: Harness;
  queue: JobRuntime;
  storage: ObjectStorage;
  database: DatabaseHandle;
  close(): Promise<void>;
}

export async function openFilesStand(storage: ObjectStorage): Promise<FilesStand> {
  const database = await openTestDatabase();
  const clock = new TestClock();
  const files = await Harness.fileSettings(database);
  const queue = await openTestJobQueue(database, fileJobs({ db: database.db, storage, now: clock.now, ffmpegPath: files.ffmpegPath }));
  const h = await Harness.create({ database, clock, services: { storage, files, jobs: queue } });
  return {
    h,
    queue,
    storage,
    database,
    close: async () => {
      await h.close();
      await queue.stop({ timeoutMs: 1_000 });
      await database.close();
    },
  };
}

export const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('base64');

/** The path and query of a link the server gave, for the harness (which talks to the app in-process). */
export const pathOf = (link: string) => {
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
};

export interface Uploaded {
  target: any;
  put: ApiResponse;
}

/** Steps 1 and 2 of the flow: an upload URL for `bytes`, then the PUT. */
export async function upload(
  h: Harness,
  tenant: Pick<Tenant, 'key' | 'workspaceId'>,
  bytes: Buffer,
  type: string,
  extra: { file_name?: string; folder_id?: string; checksum?: boolean } = {},
): Promise<Uploaded> {
  const target = await h.post('/files/upload-url', tenant.key, {
    workspace_id: tenant.workspaceId,
    file_name: extra.file_name ?? 'file.bin',
    file_type: type,
    file_size: bytes.length,
    ...(extra.checksum ? { checksum_sha256: sha256(bytes) } : {}),
    ...(extra.folder_id ? { folder_id: extra.folder_id } : {}),
  });
  expect(target.status, target.text).toBe(200);
  const put = await h.put(pathOf(target.body.upload_url), bytes, target.body.headers);
  return { target: target.body, put };
}

/** The whole flow: upload, then record the file with the body the upload URL proposed. */
export async function uploadAndRecord(
  h: Harness,
  tenant: Pick<Tenant, 'key' | 'workspaceId'>,
  bytes: Buffer,
  type: string,
  extra: Parameters<typeof upload>[4] = {},
) {
  const uploaded = await upload(h, tenant, bytes, type, extra);
  expect(uploaded.put.status, uploaded.put.text).toBe(200);
  const file = await h.post('/files', tenant.key, uploaded.target.next_step.body);
  expect(file.status, file.text).toBe(200);
  return { ...uploaded, file: file.body };
}
