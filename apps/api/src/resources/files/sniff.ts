import { fileTypeFromBuffer } from 'file-type';

/** How many leading bytes the sniffer looks at: enough for file-type to tell OOXML/ODF zips apart. */
export const SNIFF_BYTES = 64 * 1024;

/** The media type without parameters, lower-cased (`Text/CSV; charset=utf-8` → `text/csv`). */
export function mediaTypeEssence(value: string): string {
  return (value.split(';')[0] ?? '').trim().toLowerCase();
}

// Types whose bytes are text: file-type sniffs nothing (or a generic XML) for them, so they are accepted
// after a UTF-8 check instead.
const TEXT_TYPES = new Set([
  'application/json',
  'application/ld+json',
  'application/x-ndjson',
  'application/xml',
  'application/javascript',
  'application/x-yaml',
  'application/yaml',
  'application/sql',
  'application/x-sh',
  'application/rtf',
]);

export function isTextType(type: string): boolean {
  const essence = mediaTypeEssence(type);
  return essence.startsWith('text/') || essence.endsWith('+xml') || essence.endsWith('+json') || TEXT_TYPES.has(essence);
}

// Containers file-type may report for a more specific declared type, and names of one format.
const ZIP_CONTAINERS = new Set([
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  'application/vnd.oasis.opendocument.text',
  'application/vnd.oasis.opendocument.spreadsheet',
  'application/vnd.oasis.opendocument.presentation',
  'application/epub+zip',
  'application/java-archive',
  'application/x-zip-compressed',
]);
const CFB_CONTAINERS = new Set(['application/msword', 'application/vnd.ms-excel', 'application/vnd.ms-powerpoint', 'application/vnd.ms-outlook']);
const ALIASES: Record<string, string> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'audio/x-wav': 'audio/wav',
  'audio/wave': 'audio/wav',
  'audio/vnd.wave': 'audio/wav',
  'audio/mp3': 'audio/mpeg',
  'audio/x-m4a': 'audio/mp4',
  'audio/m4a': 'audio/mp4',
  'video/x-m4v': 'video/mp4',
  'application/x-pdf': 'application/pdf',
  'image/x-icon': 'image/vnd.microsoft.icon',
  'application/x-zip-compressed': 'application/zip',
};
const canonical = (type: string) => ALIASES[type] ?? type;

/**
 * Whether bytes sniffed as `sniffed` may be stored as `declared` (both essences). Equal types and aliases
 * match; a zip or Compound File container matches the document types built on it; `video/*` and `audio/*`
 * of one container (`video/mp4` sniffed for `audio/mp4`) match, since the container cannot say which
 * streams a file has; `application/octet-stream` claims nothing and takes any bytes.
 */
export function typesMatch(declared: string, sniffed: string): boolean {
  const d = canonical(declared);
  const s = canonical(sniffed);
  if (d === s || d === 'application/octet-stream') return true;
  if (s === 'application/zip' && ZIP_CONTAINERS.has(d)) return true;
  if (s === 'application/x-cfb' && CFB_CONTAINERS.has(d)) return true;
  if (s === 'application/xml' && isTextType(d) && (d.endsWith('+xml') || d === 'text/xml')) return true;
  const [dTop, dSub] = d.split('/');
  const [sTop, sSub] = s.split('/');
  return dSub === sSub && ((dTop === 'audio' && sTop === 'video') || (dTop === 'video' && sTop === 'audio'));
}

/** The MIME type file-type reads from the first bytes, or null when it finds none (text, unknown formats). */
export async function sniffType(head: Uint8Array): Promise<string | null> {
  const result = await fileTypeFromBuffer(head);
  return result?.mime ?? null;
}
