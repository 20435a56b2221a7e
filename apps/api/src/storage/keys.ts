/** A key is a relative path of `[A-Za-z0-9._-]` segments: no `..` or `.` segment, no leading or doubled `/`. */
const SEGMENT = /^[A-Za-z0-9._-]+$/;

export class InvalidStorageKeyError extends Error {
  override name = 'InvalidStorageKeyError';
}

/** Throws unless `key` is a safe object key (see ObjectStorage); a prefix may end with `/`. */
export function assertStorageKey(key: string, { prefix = false } = {}): void {
  const path = prefix && key.endsWith('/') ? key.slice(0, -1) : key;
  const segments = path.split('/');
  const valid = key.length > 0 && key.length <= 1024 && segments.every((segment) => SEGMENT.test(segment) && segment !== '.' && segment !== '..');
  if (!valid) throw new InvalidStorageKeyError(`Invalid storage key ${JSON.stringify(key)}: use relative paths of letters, digits, '.', '_' and '-' segments.`);
}
