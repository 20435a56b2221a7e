import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../../src/db/client.js';
import { isUploadKey, newUploadKey, objectKeysOf, thumbnailObjectKey, uploadObjectKey } from '../../../src/resources/files/keys.js';
import {
  deriveSigningKeys,
  downloadUrl,
  loadSigningSecret,
  ownUploadKey,
  signDownload,
  signUpload,
  uploadUrl,
  verifyDownload,
  verifyUpload,
  type UploadGrant,
} from '../../../src/resources/files/signing.js';
import { openTestDatabase } from '../../support/database.js';

const keys = deriveSigningKeys('a-test-secret-of-at-least-32-characters!!');
const BASE = 'http://localhost:8080/api/v1';
const NOW = 1_795_000_000;
const grant: UploadGrant = {
  key: 'upl_7Qm2Xc9LpR4tVb8NxYz12345.pdf',
  expires: NOW + 3600,
  contentType: 'application/pdf',
  size: 2483712,
  checksumSha256: 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=',
};

const code = (fn: () => void) => {
  try {
    fn();
    return 'ok';
  } catch (err) {
    return `${(err as { statusCode: number }).statusCode} ${(err as { code: string }).code}`;
  }
};

describe('upload keys', () => {
  it('keep a short alphanumeric extension, lower-cased, and match the contract pattern', () => {
    expect(newUploadKey('Q4 Pricing.PDF')).toMatch(/^upl_[A-Za-z0-9]{24}\.pdf$/);
    expect(newUploadKey('archive.tar.gz')).toMatch(/^upl_[A-Za-z0-9]{24}\.gz$/);
    for (const name of ['README', '.env', 'weird.ext-with-dash', 'x.abcdefghijklmnopq', 'photo.jpé']) {
      const key = newUploadKey(name);
      expect(key).toMatch(/^upl_[A-Za-z0-9]{24}$/);
      expect(isUploadKey(key)).toBe(true);
    }
    expect(newUploadKey('a.pdf')).not.toBe(newUploadKey('a.pdf'));
  });

  it('store originals and thumbnails under separate prefixes', () => {
    expect(uploadObjectKey('upl_a.pdf')).toBe('uploads/upl_a.pdf');
    expect(thumbnailObjectKey('upl_a.pdf')).toBe('thumbnails/upl_a.pdf.jpg');
    expect(objectKeysOf('upl_a.pdf')).toEqual(['uploads/upl_a.pdf', 'thumbnails/upl_a.pdf.jpg']);
  });
});

describe('upload signatures', () => {
  it('accept the signed request until the expiry, and the content type case-insensitively', () => {
    const signature = signUpload(keys, grant);
    expect(signature).toMatch(/^[a-f0-9]{64}$/);
    expect(code(() => verifyUpload(keys, grant, signature, NOW))).toBe('ok');
    expect(code(() => verifyUpload(keys, grant, signature, grant.expires))).toBe('ok');
    expect(code(() => verifyUpload(keys, { ...grant, contentType: 'Application/PDF' }, signature, NOW))).toBe('ok');
  });

  it('refuse any changed field, another secret and an expired URL with a 401', () => {
    const signature = signUpload(keys, grant);
    const changed: UploadGrant[] = [
      { ...grant, key: 'upl_7Qm2Xc9LpR4tVb8NxYz12345.png' },
      { ...grant, expires: grant.expires + 1 },
      { ...grant, contentType: 'image/png' },
      { ...grant, size: grant.size + 1 },
      { ...grant, checksumSha256: null },
    ];
    for (const other of changed) expect(code(() => verifyUpload(keys, other, signature, NOW))).toBe('401 invalid_upload_signature');
    expect(code(() => verifyUpload(deriveSigningKeys('another-secret-of-at-least-32-characters'), grant, signature, NOW))).toBe('401 invalid_upload_signature');
    expect(code(() => verifyUpload(keys, grant, signature, grant.expires + 1))).toBe('401 invalid_upload_signature');
    expect(code(() => verifyUpload(keys, grant, signature.slice(0, 63), NOW))).toBe('401 invalid_upload_signature');
  });

  it('never stand for a download, nor a download for an upload', () => {
    const download = { key: grant.key, variant: 'original' as const, expires: grant.expires };
    expect(signDownload(keys, download)).not.toBe(signUpload(keys, grant));
    expect(code(() => verifyDownload(keys, download, signUpload(keys, grant), NOW))).toBe('401 invalid_upload_signature');
    expect(code(() => verifyDownload(keys, download, signDownload(keys, download), NOW))).toBe('ok');
    expect(code(() => verifyDownload(keys, { ...download, variant: 'thumbnail' }, signDownload(keys, download), NOW))).toBe('401 invalid_upload_signature');
  });

  it('build URLs whose query carries exactly the signed values', () => {
    const put = new URL(uploadUrl(BASE, keys, grant));
    expect(put.pathname).toBe(`/api/v1/uploads/${grant.key}`);
    expect(code(() => verifyUpload(keys, { ...grant, expires: Number(put.searchParams.get('expires')) }, put.searchParams.get('signature')!, NOW))).toBe('ok');
    const thumb = new URL(downloadUrl(BASE, keys, { key: grant.key, variant: 'thumbnail', expires: NOW + 60 }));
    expect(thumb.searchParams.get('variant')).toBe('thumbnail');
    expect(new URL(downloadUrl(BASE, keys, { key: grant.key, variant: 'original', expires: NOW + 60 })).searchParams.has('variant')).toBe(false);
  });
});

describe('ownUploadKey', () => {
  it('recognises the service’s own links by origin, base path and key, whatever the query', () => {
    const link = downloadUrl(BASE, keys, { key: grant.key, variant: 'original', expires: 1 });
    expect(ownUploadKey(BASE, link)).toBe(grant.key);
    expect(ownUploadKey(`${BASE}/`, `${BASE}/uploads/${grant.key}`)).toBe(grant.key);
    expect(ownUploadKey('https://api.example.com/api/v1', `https://API.example.com:443/api/v1/uploads/${grant.key}#x`)).toBe(grant.key);
  });

  it('refuses other origins, paths, credentials and malformed keys', () => {
    for (const url of [
      `http://localhost:8081/api/v1/uploads/${grant.key}`,
      `https://localhost:8080/api/v1/uploads/${grant.key}`,
      `http://localhost:8080/uploads/${grant.key}`,
      `http://localhost:8080/api/v1/uploads/${grant.key}/x`,
      `http://localhost:8080/api/v1/uploads/../files/${grant.key}`,
      `http://user:pw@localhost:8080/api/v1/uploads/${grant.key}`,
      'http://localhost:8080/api/v1/uploads/upl_short',
      'not a url',
    ]) {
      expect(ownUploadKey(BASE, url), url).toBeNull();
    }
  });
});

describe('loadSigningSecret', () => {
  let database: DatabaseHandle;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(async () => {
    await database?.close();
  });

  it('uses the configured secret, else creates one in the database once and reads it back every time', async () => {
    expect(await loadSigningSecret(database.db, 'configured-secret-of-at-least-32-chars', new Date())).toBe('configured-secret-of-at-least-32-chars');
    const first = await loadSigningSecret(database.db, undefined, new Date());
    expect(first.length).toBeGreaterThanOrEqual(43);
    // A second instance (or a restart) on the same database gets the same secret.
    const [again, concurrent] = await Promise.all([
      loadSigningSecret(database.db, undefined, new Date()),
      loadSigningSecret(database.db, undefined, new Date()),
    ]);
    expect([again, concurrent]).toEqual([first, first]);
  });
});
