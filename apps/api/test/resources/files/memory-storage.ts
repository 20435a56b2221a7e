import { Readable } from 'node:stream';
import type { ByteRange, ObjectStorage, StoredObjectInfo } from '../../../src/storage/types.js';

/**
 * The committed ObjectStorage contract in memory, for tests of code that uses storage: an object
 * appears only once its whole body arrived; a failed body leaves what was there before.
 */
export class MemoryStorage implements ObjectStorage {
  readonly kind = 'local' as const;
  readonly objects = new Map<string, { bytes: Buffer; contentType: string | null }>();
  /** Bytes read from bodies so far, by key (to see that a refused body was not read to its end). */
  readonly bytesRead = new Map<string, number>();

  async put(key: string, body: Readable, options?: { contentType?: string | null }): Promise<{ size: number }> {
    const chunks: Buffer[] = [];
    let read = 0;
    for await (const chunk of body) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      chunks.push(buffer);
      read += buffer.length;
      this.bytesRead.set(key, read);
    }
    const bytes = Buffer.concat(chunks);
    this.objects.set(key, { bytes, contentType: options?.contentType ?? null });
    return { size: bytes.length };
  }

  async get(key: string, options?: { range?: ByteRange }): Promise<(StoredObjectInfo & { body: Readable }) | null> {
    const object = this.objects.get(key);
    if (!object) return null;
    const bytes = options?.range ? object.bytes.subarray(options.range.start, options.range.end + 1) : object.bytes;
    return { size: object.bytes.length, contentType: object.contentType, body: Readable.from([bytes]) };
  }

  async head(key: string): Promise<StoredObjectInfo | null> {
    const object = this.objects.get(key);
    return object ? { size: object.bytes.length, contentType: object.contentType } : null;
  }

  async delete(key: string): Promise<void> {
    this.objects.delete(key);
  }

  async deletePrefix(prefix: string): Promise<void> {
    for (const key of [...this.objects.keys()]) if (key.startsWith(prefix)) this.objects.delete(key);
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {}
}
