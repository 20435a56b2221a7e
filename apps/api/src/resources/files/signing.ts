import { hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { ApiError } from '../../http/errors.js';
import { hmacSha256Hex } from '../../lib/hmac.js';
import { isUploadKey } from './keys.js';
import { serverSecrets } from './table.js';

/**
 * Signed upload (PUT) and download (GET) links for /uploads/{key} (DECISIONS.md, Files and uploads):
 * HMAC-SHA256 as lowercase hex in `signature`, Unix seconds in `expires`. The two kinds use keys derived
 * from one secret with different labels, so a download link can never authorise an upload or the reverse.
 */
export interface SigningKeys {
  readonly upload: Buffer;
  readonly download: Buffer;
}

/** What an upload URL is signed for: the PUT must match every field. */
export interface UploadGrant {
  key: string;
  /** Unix seconds. */
  expires: number;
  contentType: string;
  size: number;
  /** Base64 SHA-256, or null when none was declared. */
  checksumSha256: string | null;
}

export type DownloadVariant = 'original' | 'thumbnail';

export interface DownloadGrant {
  key: string;
  variant: DownloadVariant;
  /** Unix seconds. */
  expires: number;
}

/** How long upload URLs and (at least) download links stay valid (the contract's `expires_in`, and File.url's hour). */
export const UPLOAD_URL_TTL_SECONDS = 3600;
export const DOWNLOAD_URL_TTL_SECONDS = 3600;
/** Download links expire on these marks, so reads within one step share a link (DECISIONS.md, Files and uploads). */
export const DOWNLOAD_URL_STEP_SECONDS = 300;
/** Links kept signed per process and step; past it the memo starts again (each entry is a link of ~150 bytes). */
const SIGNED_LINKS_KEPT = 20_000;

/** The `expires` of a download link read at `nowSeconds`: the first step mark at least DOWNLOAD_URL_TTL_SECONDS later. */
export function downloadExpiry(nowSeconds: number): number {
  return Math.ceil((nowSeconds + DOWNLOAD_URL_TTL_SECONDS) / DOWNLOAD_URL_STEP_SECONDS) * DOWNLOAD_URL_STEP_SECONDS;
}

/** `Cache-Control` of a download whose link expires at `expires`: kept by the browser until then, never by shared caches. */
export function downloadCacheControl(expires: number, nowSeconds: number): string {
  return `private, max-age=${Math.max(0, expires - nowSeconds)}, immutable`;
}

// Links already signed with these keys for one expiry: every read in a step asks for the same ones.
const signedLinks = new WeakMap<SigningKeys, { expires: number; links: Map<string, string> }>();

/** The link `sign` makes for `id` at `expires`, made once per keys, expiry and id while the memo holds. */
function memoisedLink(keys: SigningKeys, expires: number, id: string, sign: () => string): string {
  let memo = signedLinks.get(keys);
  if (!memo || memo.expires !== expires || memo.links.size >= SIGNED_LINKS_KEPT) {
    memo = { expires, links: new Map() };
    signedLinks.set(keys, memo);
  }
  let link = memo.links.get(id);
  if (link === undefined) {
    link = sign();
    memo.links.set(id, link);
  }
  return link;
}

const SIGNING_SECRET_NAME = 'upload_signing';

/** Derives the PUT and GET keys from the configured or stored secret (HKDF-SHA256, one label each). */
export function deriveSigningKeys(secret: string): SigningKeys {
  const derive = (label: string) => Buffer.from(hkdfSync('sha256', secret, 'persona-api/uploads', label, 32));
  return { upload: derive('upload-put-v1'), download: derive('download-get-v1') };
}

/**
 * The signing secret: UPLOAD_SIGNING_SECRET when set, else a random one created once in the database and
 * shared by every instance on it (the first instance to start inserts it; the others read the same row).
 */
export async function loadSigningSecret(db: Executor, configured: string | undefined, now: Date): Promise<string> {
  if (configured !== undefined) return configured;
  await db
    .insert(serverSecrets)
    .values({ name: SIGNING_SECRET_NAME, value: randomBytes(32).toString('base64url'), createdAt: now })
    .onConflictDoNothing();
  const rows = await db.select({ value: serverSecrets.value }).from(serverSecrets).where(sql`${serverSecrets.name} = ${SIGNING_SECRET_NAME}`);
  const value = rows[0]?.value;
  if (!value) throw new Error('server_secrets has no upload signing secret after inserting it');
  return value;
}

// JSON of an array: unambiguous whatever the fields contain, and the first element names the kind.
const hmac = (key: Buffer, fields: unknown[]) => hmacSha256Hex(key, JSON.stringify(fields));

export function signUpload(keys: SigningKeys, grant: UploadGrant): string {
  return hmac(keys.upload, ['put', grant.key, grant.expires, grant.contentType.toLowerCase(), grant.size, grant.checksumSha256 ?? '']);
}

export function signDownload(keys: SigningKeys, grant: DownloadGrant): string {
  return hmac(keys.download, ['get', grant.key, grant.variant, grant.expires]);
}

function sameSignature(expected: string, given: string): boolean {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(given, 'utf8');
  // Lengths are public (always 64); the comparison of the bytes is constant-time.
  return a.length === b.length && timingSafeEqual(a, b);
}

const invalidSignature = (message: string) => new ApiError(401, 'invalid_upload_signature', message, 'signature');

/**
 * Every signed link is checked the same way: the signature before the expiry, so a forged link learns
 * nothing from "expired". 401 `invalid_upload_signature` otherwise, with what to do next.
 */
function verifySigned(
  expected: string,
  signature: string,
  expires: number,
  nowSeconds: number,
  messages: { forged: string; expired: (at: string) => string },
): void {
  if (!sameSignature(expected, signature)) throw invalidSignature(messages.forged);
  if (nowSeconds > expires) throw invalidSignature(messages.expired(new Date(expires * 1000).toISOString()));
}

/** Checks a PUT against the signature of its URL. */
export function verifyUpload(keys: SigningKeys, grant: UploadGrant, signature: string, nowSeconds: number): void {
  verifySigned(signUpload(keys, grant), signature, grant.expires, nowSeconds, {
    forged: 'The upload URL signature does not match this request (altered URL, or another Content-Type). Request a new one with POST /files/upload-url.',
    expired: (at) => `This upload URL expired at ${at}. Request a new one with POST /files/upload-url.`,
  });
}

export function verifyDownload(keys: SigningKeys, grant: DownloadGrant, signature: string, nowSeconds: number): void {
  verifySigned(signDownload(keys, grant), signature, grant.expires, nowSeconds, {
    forged: 'The download link signature is not valid. Read the file again (GET /files/{id}) for a fresh url.',
    expired: (at) => `This download link expired at ${at}. Read the file again (GET /files/{id}) for a fresh url.`,
  });
}

/** A chunk frame of a video analysis (GET /video-analyses/{id}/frames/{index}): its own first field, so never an /uploads link. */
export interface FrameGrant {
  analysisId: string;
  chunkIndex: number;
  /** Unix seconds. */
  expires: number;
}

export function signFrame(keys: SigningKeys, grant: FrameGrant): string {
  return hmac(keys.download, ['get-frame', grant.analysisId, grant.chunkIndex, grant.expires]);
}

export function verifyFrame(keys: SigningKeys, grant: FrameGrant, signature: string, nowSeconds: number): void {
  verifySigned(signFrame(keys, grant), signature, grant.expires, nowSeconds, {
    forged: 'The frame link signature is not valid. Read the video analysis again for a fresh frame_url.',
    expired: (at) => `This frame link expired at ${at}. Read the video analysis again for a fresh frame_url.`,
  });
}

/** A chunk's `frame_url`: `{base}/video-analyses/{id}/frames/{index}?expires=…&signature=…`. */
export function frameUrl(baseUrl: string, keys: SigningKeys, grant: FrameGrant): string {
  return memoisedLink(keys, grant.expires, `frame\u0000${baseUrl}\u0000${grant.analysisId}\u0000${grant.chunkIndex}`, () => {
    const query = new URLSearchParams({ expires: String(grant.expires), signature: signFrame(keys, grant) });
    return `${baseUrl}/video-analyses/${grant.analysisId}/frames/${grant.chunkIndex}?${query}`;
  });
}

/** `PUT` target of an upload: `{base}/uploads/{key}?expires=…&signature=…`. */
export function uploadUrl(baseUrl: string, keys: SigningKeys, grant: UploadGrant): string {
  const query = new URLSearchParams({ expires: String(grant.expires), signature: signUpload(keys, grant) });
  return `${baseUrl}/uploads/${grant.key}?${query}`;
}

/** A download link (`public_url`, `url`, `thumbnail_url`); the variant is in the query only when not the original. */
export function downloadUrl(baseUrl: string, keys: SigningKeys, grant: DownloadGrant): string {
  return memoisedLink(keys, grant.expires, `${grant.variant}\u0000${baseUrl}\u0000${grant.key}`, () => {
    const query = new URLSearchParams();
    if (grant.variant !== 'original') query.set('variant', grant.variant);
    query.set('expires', String(grant.expires));
    query.set('signature', signDownload(keys, grant));
    return `${baseUrl}/uploads/${grant.key}?${query}`;
  });
}

/**
 * The upload key when `url` is one of this service's own links (same origin and base path, then
 * `/uploads/{key}`), else null. Query, fragment and the link's expiry are ignored: POST /files is
 * authorised by the API key and the upload row, and reads the bytes from storage, never over HTTP.
 */
export function ownUploadKey(baseUrl: string, url: string): string | null {
  let given: URL;
  let base: URL;
  try {
    given = new URL(url);
    base = new URL(baseUrl);
  } catch {
    return null;
  }
  if (given.origin !== base.origin || given.username !== '' || given.password !== '') return null;
  const prefix = `${base.pathname.replace(/\/+$/, '')}/uploads/`;
  if (!given.pathname.startsWith(prefix)) return null;
  const key = given.pathname.slice(prefix.length);
  return isUploadKey(key) ? key : null;
}
