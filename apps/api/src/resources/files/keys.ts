import { randomBase62 } from '../../lib/ids.js';

/** `upl_` + random + optional extension: the contract's pattern for `key` (DECISIONS.md, storage keys). */
export const UPLOAD_KEY_PATTERN = /^upl_[A-Za-z0-9]{16,32}(\.[A-Za-z0-9]{1,16})?$/;

// 24 base62 characters ≈ 143 bits: a key cannot be guessed, even though links, not keys, authorise reads.
const KEY_RANDOM_LENGTH = 24;

/**
 * A new upload key for `fileName`: its extension is kept (lower-cased) when it is 1–16 letters or digits,
 * so the key stays one path segment and the contract's pattern holds for any name a client sends.
 */
export function newUploadKey(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  const extension = dot > 0 ? fileName.slice(dot + 1).toLowerCase() : '';
  const suffix = /^[a-z0-9]{1,16}$/.test(extension) ? `.${extension}` : '';
  return `upl_${randomBase62(KEY_RANDOM_LENGTH)}${suffix}`;
}

export function isUploadKey(value: string): boolean {
  return UPLOAD_KEY_PATTERN.test(value);
}

/** Where an upload's bytes are stored. */
export function uploadObjectKey(key: string): string {
  return `uploads/${key}`;
}

/** Where an upload's thumbnail (a JPEG) is stored; the thumbnails/ prefix keeps previews apart from originals. */
export function thumbnailObjectKey(key: string): string {
  return `thumbnails/${key}.jpg`;
}

/** Both objects of an upload, for deleting a file's bytes. */
export function objectKeysOf(key: string): string[] {
  return [uploadObjectKey(key), thumbnailObjectKey(key)];
}
