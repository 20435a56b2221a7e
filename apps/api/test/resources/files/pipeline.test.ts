import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/http/errors.js';
import { expectedChecksum, storeUpload } from '../../../src/resources/files/pipeline.js';
import { MemoryStorage } from './memory-storage.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('base64');

/** Streams `bytes` in `chunkSize` pieces, like a request body. */
function body(bytes: Buffer, chunkSize = 16 * 1024): Readable {
  let offset = 0;
  return new Readable({
    read() {
      if (offset >= bytes.length) return this.push(null);
      this.push(bytes.subarray(offset, offset + chunkSize));
      offset += chunkSize;
    },
  });
}

async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => {
      throw new Error('expected the upload to be refused');
    },
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

let png: Buffer;
const PDF = Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n', 'latin1');
const CSV = Buffer.from('account,region,arr\nNorthwind Traders,EMEA,184000\nContoso Ltd,NA,92000\nZürich AG,EMEA,5000\n', 'utf8');

beforeAll(async () => {
  // A real PNG larger than the sniffing window, so the held-back head and the rest both flow.
  png = await sharp({ create: { width: 400, height: 300, channels: 3, background: '#000000', noise: { type: 'gaussian', mean: 128, sigma: 40 } } })
    .png()
    .toBuffer();
  expect(png.length).toBeGreaterThan(70 * 1024);
});

describe('storeUpload', () => {
  it('stores exactly the declared bytes with their SHA-256 and sniffed type', async () => {
    const storage = new MemoryStorage();
    const result = await storeUpload(
      body(png),
      { expectedSize: png.length, expectedSha256: sha256(png), declaredType: 'image/png' },
      storage,
      'uploads/upl_a.png',
    );
    expect(result).toEqual({ size: png.length, sha256: sha256(png), sniffedType: 'image/png' });
    expect(storage.objects.get('uploads/upl_a.png')?.bytes.equals(png)).toBe(true);
    expect(storage.objects.get('uploads/upl_a.png')?.contentType).toBe('image/png');
  });

  it('computes the hash without a declared checksum and takes the declared type case-insensitively with parameters', async () => {
    const storage = new MemoryStorage();
    const result = await storeUpload(body(PDF, 7), { expectedSize: PDF.length, declaredType: 'Application/PDF; foo=bar' }, storage, 'k');
    expect(result).toEqual({ size: PDF.length, sha256: sha256(PDF), sniffedType: 'application/pdf' });
  });

  it('accepts UTF-8 text for a text type (nothing sniffed), also split inside a multi-byte character', async () => {
    const storage = new MemoryStorage();
    // Chunks of 3 bytes cut "ü" (2 bytes) in half somewhere.
    const result = await storeUpload(body(CSV, 3), { expectedSize: CSV.length, declaredType: 'text/csv' }, storage, 'k');
    expect(result.sniffedType).toBeNull();
    expect(storage.objects.get('k')?.bytes.equals(CSV)).toBe(true);
  });

  it('refuses more bytes than declared with a 413 and stops reading early', async () => {
    const storage = new MemoryStorage();
    const big = Buffer.concat([CSV, Buffer.alloc(4 * 1024 * 1024, 0x61)]);
    const error = await refusal(storeUpload(body(big), { expectedSize: CSV.length, declaredType: 'text/csv' }, storage, 'k'));
    expect([error.statusCode, error.code, error.param]).toEqual([413, 'request_too_large', 'Content-Length']);
    expect(storage.objects.has('k')).toBe(false);
    expect(storage.bytesRead.get('k') ?? 0).toBeLessThan(big.length);
  });

  it('refuses fewer bytes than declared with a 400 naming Content-Length', async () => {
    const storage = new MemoryStorage();
    const error = await refusal(storeUpload(body(png), { expectedSize: png.length + 1, declaredType: 'image/png' }, storage, 'k'));
    expect([error.statusCode, error.code, error.param]).toEqual([400, 'invalid_parameter', 'Content-Length']);
    expect(storage.objects.has('k')).toBe(false);
  });

  it('refuses bytes that do not hash to the declared checksum and keeps the earlier upload', async () => {
    const storage = new MemoryStorage();
    await storeUpload(body(CSV), { expectedSize: CSV.length, declaredType: 'text/csv' }, storage, 'k');
    const altered = Buffer.from(CSV);
    altered[0] = 0x41;
    const error = await refusal(storeUpload(body(altered), { expectedSize: CSV.length, expectedSha256: sha256(CSV), declaredType: 'text/csv' }, storage, 'k'));
    expect([error.statusCode, error.code]).toEqual([400, 'checksum_mismatch']);
    expect(storage.objects.get('k')?.bytes.equals(CSV)).toBe(true);
  });

  it('refuses a binary format other than the declared one before storing anything', async () => {
    const storage = new MemoryStorage();
    const error = await refusal(storeUpload(body(PDF), { expectedSize: PDF.length, declaredType: 'image/png' }, storage, 'k'));
    expect([error.statusCode, error.code, error.param]).toEqual([400, 'invalid_parameter', 'Content-Type']);
    expect(error.message).toContain('application/pdf');
    expect(storage.objects.has('k')).toBe(false);
  });

  it('refuses a declared binary type whose bytes are no known format, and text that is not UTF-8', async () => {
    const noise = randomBytes(5000);
    for (const declaredType of ['application/pdf', 'text/plain']) {
      const storage = new MemoryStorage();
      const error = await refusal(storeUpload(body(noise), { expectedSize: noise.length, declaredType }, storage, 'k'));
      expect([error.statusCode, error.code, error.param]).toEqual([400, 'invalid_parameter', 'Content-Type']);
      expect(storage.objects.has('k')).toBe(false);
    }
  });

  it('refuses a PNG declared as text', async () => {
    const storage = new MemoryStorage();
    const error = await refusal(storeUpload(body(png), { expectedSize: png.length, declaredType: 'text/plain' }, storage, 'k'));
    expect(error.param).toBe('Content-Type');
  });

  it('fails and stores nothing when the body breaks off (client abort)', async () => {
    const storage = new MemoryStorage();
    let sent = 0;
    const broken = new Readable({
      read() {
        if (sent >= 100 * 1024) return this.destroy(new Error('aborted'));
        sent += 16 * 1024;
        this.push(Buffer.alloc(16 * 1024, 0x61));
      },
    });
    await expect(storeUpload(broken, { expectedSize: 1024 * 1024, declaredType: 'text/plain' }, storage, 'k')).rejects.toThrow('aborted');
    expect(storage.objects.has('k')).toBe(false);
  });
});

it('fails and stores nothing when the body closes early without an error', async () => {
  const storage = new MemoryStorage();
  let pushes = 0;
  const closed = new Readable({
    read() {
      if (++pushes > 3) return this.destroy();
      this.push(Buffer.alloc(16 * 1024, 0x61));
    },
  });
  await expect(storeUpload(closed, { expectedSize: 1024 * 1024, declaredType: 'text/plain' }, storage, 'k')).rejects.toThrow('ended before');
  expect(storage.objects.has('k')).toBe(false);
});

describe('expectedChecksum', () => {
  const declared = sha256(CSV);

  it('requires the header to equal a declared checksum', () => {
    expect(expectedChecksum(declared, declared)).toBe(declared);
    for (const header of [undefined, sha256(PDF)]) {
      expect(() => expectedChecksum(declared, header)).toThrow(expect.objectContaining({ code: 'checksum_mismatch', param: 'x-storage-checksum-sha256' }));
    }
  });

  it('checks an undeclared header against the bytes, and none at all when absent', () => {
    expect(expectedChecksum(null, declared)).toBe(declared);
    expect(expectedChecksum(null, undefined)).toBeNull();
  });
});
