import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { assertStorageKey } from './keys.js';
import type { ByteRange, ObjectStorage, StoredObjectInfo } from './types.js';

export interface S3StorageOptions {
  bucket: string;
  region: string;
  /** An S3-compatible server's URL; unset for AWS itself. */
  endpoint?: string | undefined;
  accessKeyId?: string | undefined;
  secretAccessKey?: string | undefined;
  forcePathStyle?: boolean;
  /** Multipart part size (default 8 MiB, at least 5 MiB): memory per upload is about partSize × queueSize. */
  partSize?: number;
}

const notFound = (err: unknown) =>
  err instanceof S3ServiceException && (err.$metadata.httpStatusCode === 404 || err.name === 'NoSuchKey' || err.name === 'NotFound');

/** Objects in one S3-compatible bucket; uploads stream as multipart (lib-storage `Upload`). */
export function createS3Storage(options: S3StorageOptions): ObjectStorage {
  const client = new S3Client({
    region: options.region,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    forcePathStyle: options.forcePathStyle ?? false,
    // Bounded like the database (DECISIONS.md, Dependency faults): an unreachable store is a 503 in seconds.
    requestHandler: { connectionTimeout: 2_000, requestTimeout: 15_000 },
    ...(options.accessKeyId && options.secretAccessKey ? { credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } } : {}),
    // Since 3.729 the SDK adds CRC32 checksums by default, which many S3-compatible servers reject.
    ...(options.endpoint ? { requestChecksumCalculation: 'WHEN_REQUIRED' as const, responseChecksumValidation: 'WHEN_REQUIRED' as const } : {}),
  });
  const Bucket = options.bucket;

  const head = async (key: string): Promise<StoredObjectInfo | null> => {
    assertStorageKey(key);
    try {
      const out = await client.send(new HeadObjectCommand({ Bucket, Key: key }));
      return { size: out.ContentLength ?? 0, contentType: out.ContentType ?? null };
    } catch (err) {
      if (notFound(err)) return null;
      throw err;
    }
  };

  return {
    kind: 's3',

    async put(key, body, putOptions = {}) {
      assertStorageKey(key);
      let size = 0;
      const counted = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          size += chunk.length;
          callback(null, chunk);
        },
      });
      // pipeline() carries an error or a premature close of `body` into the stream the Upload reads.
      const piping = pipeline(body, counted);
      const upload = new Upload({
        client,
        params: { Bucket, Key: key, Body: counted, ...(putOptions.contentType ? { ContentType: putOptions.contentType } : {}) },
        partSize: Math.max(options.partSize ?? 8 * 1024 * 1024, 5 * 1024 * 1024),
        queueSize: 2,
        // A failed multipart upload is aborted, so no partial object ever appears under the key.
        leavePartsOnError: false,
      });
      try {
        await Promise.all([upload.done(), piping]);
      } catch (err) {
        await upload.abort().catch(() => {});
        throw err;
      }
      return { size };
    },

    async get(key, getOptions: { range?: ByteRange } = {}) {
      assertStorageKey(key);
      const { range } = getOptions;
      if (range && (range.start < 0 || range.end < range.start)) throw new RangeError(`Invalid range ${range.start}-${range.end}.`);
      try {
        const out = await client.send(new GetObjectCommand({ Bucket, Key: key, ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }));
        return { size: out.ContentLength ?? 0, contentType: out.ContentType ?? null, body: out.Body as Readable };
      } catch (err) {
        if (notFound(err)) return null;
        if (err instanceof S3ServiceException && err.$metadata.httpStatusCode === 416)
          throw new RangeError(`Range ${range?.start}-${range?.end} is outside the object.`);
        throw err;
      }
    },

    head,

    async delete(key) {
      assertStorageKey(key);
      await client.send(new DeleteObjectCommand({ Bucket, Key: key }));
    },

    async deletePrefix(prefix) {
      assertStorageKey(prefix, { prefix: true });
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket, Prefix: prefix, ContinuationToken: token }));
        const keys = (page.Contents ?? []).flatMap((object) => (object.Key ? [{ Key: object.Key }] : []));
        if (keys.length > 0) await client.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects: keys, Quiet: true } }));
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    },

    async ping() {
      await client.send(new HeadBucketCommand({ Bucket }));
    },

    async close() {
      client.destroy();
    },
  };
}
