import { createHash } from 'node:crypto';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { ApiError, errors } from '../../http/errors.js';
import type { ObjectStorage } from '../../storage/types.js';
import { isTextType, mediaTypeEssence, SNIFF_BYTES, sniffType, typesMatch } from './sniff.js';

export interface UploadExpectations {
  /** The declared `file_size`: exactly this many bytes must arrive. */
  expectedSize: number;
  /** The declared base64 SHA-256, when one was given at upload-url time. */
  expectedSha256?: string | null;
  /** The declared `file_type`. */
  declaredType: string;
}

export interface StoredUpload {
  size: number;
  /** Base64 SHA-256 of the stored bytes. */
  sha256: string;
  /** What file-type read from the bytes; null for text (nothing sniffed, valid UTF-8). */
  sniffedType: string | null;
}

export const CHECKSUM_HEADER = 'x-storage-checksum-sha256';

/**
 * The PUT's checksum header against the declared checksum (DECISIONS.md): required and equal when one was
 * declared, 400 `checksum_mismatch` otherwise; sent without a declared one it must still be well-formed
 * and is then checked against the bytes too.
 */
export function expectedChecksum(declared: string | null, header: string | undefined): string | null {
  if (declared !== null && header !== declared) {
    throw new ApiError(
      400,
      'checksum_mismatch',
      `The ${CHECKSUM_HEADER} header must be the checksum the upload URL was issued for (${declared}). Nothing was stored.`,
      CHECKSUM_HEADER,
    );
  }
  return header ?? null;
}

/**
 * Counts, hashes, sniffs and checks the bytes as they pass; an error here aborts the storage write.
 * The first SNIFF_BYTES are held back until the type is known, so a wrong type fails before anything
 * reaches storage; text types are checked to be UTF-8 over the whole body.
 */
class VerifyingStream extends Transform {
  size = 0;
  sha256 = '';
  sniffedType: string | null = null;
  private readonly hash = createHash('sha256');
  private head: Buffer[] = [];
  private headLength = 0;
  private sniffed = false;
  private utf8: TextDecoder | null = null;

  constructor(private readonly expect: UploadExpectations) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.expect.expectedSize) {
      callback(
        new ApiError(
          413,
          'request_too_large',
          `The body is longer than the ${this.expect.expectedSize} bytes the upload URL was issued for. Nothing was stored.`,
          'Content-Length',
        ),
      );
      return;
    }
    this.hash.update(chunk);
    if (this.sniffed) {
      this.forward(chunk, callback);
      return;
    }
    this.head.push(chunk);
    this.headLength += chunk.length;
    if (this.headLength < SNIFF_BYTES) {
      callback();
      return;
    }
    this.releaseHead(callback);
  }

  override _flush(callback: TransformCallback): void {
    const finish = (err?: Error | null) => {
      if (err) return callback(err);
      try {
        this.utf8?.decode(); // throws on a truncated multi-byte sequence at the end
      } catch {
        callback(this.notText());
        return;
      }
      if (this.size < this.expect.expectedSize) {
        return callback(
          errors.invalidParameter(
            'Content-Length',
            `Received ${this.size} bytes but the upload URL was issued for ${this.expect.expectedSize} bytes. Nothing was stored.`,
          ),
        );
      }
      const digest = this.hash.digest('base64');
      if (this.expect.expectedSha256 && digest !== this.expect.expectedSha256) {
        return callback(
          new ApiError(
            400,
            'checksum_mismatch',
            `The bytes hash to ${digest}, not to the declared checksum ${this.expect.expectedSha256}. Nothing was stored.`,
            CHECKSUM_HEADER,
          ),
        );
      }
      this.sha256 = digest;
      callback();
    };
    if (this.sniffed) finish();
    else this.releaseHead(finish);
  }

  /** Sniffs the held-back head, then passes it on (or fails the stream on a mismatch). */
  private releaseHead(callback: TransformCallback): void {
    const head = Buffer.concat(this.head, this.headLength);
    this.head = [];
    this.sniffed = true;
    sniffType(head).then(
      (sniffed) => {
        const declared = mediaTypeEssence(this.expect.declaredType);
        this.sniffedType = sniffed;
        if (sniffed === null) {
          // Nothing recognisable: only a text type is believable, and its bytes must be UTF-8.
          if (!isTextType(declared) && declared !== 'application/octet-stream') return callback(this.mismatch(declared, null));
          if (isTextType(declared)) this.utf8 = new TextDecoder('utf-8', { fatal: true });
        } else if (!typesMatch(declared, sniffed)) {
          return callback(this.mismatch(declared, sniffed));
        }
        this.forward(head, callback);
      },
      (err: unknown) => callback(err instanceof Error ? err : new Error(String(err))),
    );
  }

  private forward(chunk: Buffer, callback: TransformCallback): void {
    if (this.utf8) {
      try {
        this.utf8.decode(chunk, { stream: true });
      } catch {
        callback(this.notText());
        return;
      }
    }
    // push + callback() rather than callback(null, chunk): _flush's callback takes no data.
    this.push(chunk);
    callback();
  }

  private mismatch(declared: string, sniffed: string | null): ApiError {
    const found = sniffed === null ? 'no known binary format' : sniffed;
    return errors.invalidParameter('Content-Type', `The bytes are ${found}, not the declared ${declared}. Nothing was stored.`);
  }

  private notText(): ApiError {
    return errors.invalidParameter(
      'Content-Type',
      `The bytes are not UTF-8 text, as the declared ${mediaTypeEssence(this.expect.declaredType)} requires. Nothing was stored.`,
    );
  }
}

/**
 * Streams an upload's body to `key`, verifying it on the way (DECISIONS.md, Files and uploads): more
 * bytes than declared is a 413 (the read stops there), fewer a 400, a hash other than the declared
 * checksum a 400 `checksum_mismatch`, bytes of another type than declared a 400 `invalid_parameter`
 * (`param: Content-Type`). Storage replaces the object only when the whole verified body arrived, so a
 * failed upload leaves no partial object (and an earlier good upload under the key stays).
 */
export async function storeUpload(body: Readable, expect: UploadExpectations, storage: ObjectStorage, key: string): Promise<StoredUpload> {
  const verifier = new VerifyingStream(expect);
  let failure: unknown;
  verifier.once('error', (err) => {
    failure = err;
  });
  // A body that fails or closes before its end (client abort) fails the verifier, and with it the storage
  // write. Not stream.pipeline: it would destroy the request, and with it the socket the 4xx goes out on.
  body.once('error', (err) => verifier.destroy(err));
  body.once('close', () => {
    if (!body.readableEnded) verifier.destroy(new Error('The request body ended before all its bytes arrived.'));
  });
  body.pipe(verifier);
  try {
    await storage.put(key, verifier, { contentType: mediaTypeEssence(expect.declaredType) });
  } catch (err) {
    // Report why the verifier stopped the write, not how the backend saw the aborted stream.
    body.unpipe(verifier);
    throw failure ?? err;
  }
  if (failure !== undefined) {
    // A backend that resolved despite the aborted stream must not keep what it got.
    await storage.delete(key);
    throw failure;
  }
  return { size: verifier.size, sha256: verifier.sha256, sniffedType: verifier.sniffedType };
}
