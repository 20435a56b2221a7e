import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { Executor } from '../../src/db/client.js';
import { newId } from '../../src/lib/ids.js';
import { newUploadKey, uploadObjectKey } from '../../src/resources/files/keys.js';
import { insertFileRow } from '../../src/resources/files/repository.js';
import type { ObjectStorage } from '../../src/storage/types.js';

/**
 * A stored upload of a workspace, as the files flow (upload-url → PUT → POST /files) leaves it: the object
 * under a real upload key and its row. `content` is the bytes, or the path of a local file to stream.
 * Returns the file id.
 */
export async function storeFile(
  db: Executor,
  storage: ObjectStorage,
  upload: { workspaceId: string; name: string; type: string; content: Buffer | string; now?: Date },
): Promise<string> {
  const id = newId('file');
  const key = newUploadKey(upload.name);
  const size = typeof upload.content === 'string' ? (await stat(upload.content)).size : upload.content.length;
  const body = typeof upload.content === 'string' ? createReadStream(upload.content) : Readable.from([upload.content]);
  await storage.put(uploadObjectKey(key), body, { contentType: upload.type });
  const now = upload.now ?? new Date();
  await insertFileRow(db, {
    id,
    workspaceId: upload.workspaceId,
    name: upload.name,
    type: upload.type,
    sizeBytes: size,
    size,
    storageKey: key,
    createdAt: now,
    updatedAt: now,
  });
  return id;
}
