import type { ByteRange } from '../../storage/types.js';

/**
 * The one byte range of a `Range` header for an object of `size` bytes (RFC 9110 §14.1.2), as the download
 * route serves it (DECISIONS.md): `null` means serve the whole object (no header, another unit, several
 * ranges, or a malformed header, all of which a server may ignore); `'unsatisfiable'` is the 416.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | null {
  if (header === undefined) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return null;
  const [, first, last] = match as unknown as [string, string, string];
  if (first === '' && last === '') return null;
  if (first === '') {
    // A suffix: the last N bytes.
    const length = Number(last);
    if (length === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== '' && Number(last) < start) return null; // invalid: ignore it
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

/** The `Content-Range` of a 206 (`bytes 0-99/1000`) or, without a range, of a 416 (`bytes *\/1000`). */
export function contentRange(size: number, range?: ByteRange): string {
  return range ? `bytes ${range.start}-${range.end}/${size}` : `bytes */${size}`;
}
