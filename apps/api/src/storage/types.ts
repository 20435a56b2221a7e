import type { Readable } from 'node:stream';

/** What a stored object is, without its bytes. */
export interface StoredObjectInfo {
  size: number;
  contentType: string | null;
}

/** A byte range of an object, both ends inclusive (as HTTP `Range: bytes=start-end`). */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Bytes behind one interface: local disk under DATA_DIR (default) or an S3-compatible bucket.
 * Bytes are streamed both ways; an implementation never buffers a whole object.
 * Keys are relative paths of `[A-Za-z0-9._/-]` segments (no `..`, no leading `/`).
 */
export interface ObjectStorage {
  readonly kind: 'local' | 's3';
  /**
   * Streams `body` to `key`, replacing what was there only once the whole body arrived (a failed or
   * aborted write leaves no partial object). Resolves with the number of bytes written.
   */
  put(key: string, body: Readable, options?: { contentType?: string | null }): Promise<{ size: number }>;
  /** The object's bytes as a stream (optionally a range); `null` when there is no such object. */
  get(key: string, options?: { range?: ByteRange }): Promise<(StoredObjectInfo & { body: Readable }) | null>;
  head(key: string): Promise<StoredObjectInfo | null>;
  /** Deletes the object; deleting a missing object is not an error. */
  delete(key: string): Promise<void>;
  /** Deletes every object whose key starts with `prefix` (e.g. a file's thumbnails). */
  deletePrefix(prefix: string): Promise<void>;
  /** Checks the backend answers (for /readyz). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
