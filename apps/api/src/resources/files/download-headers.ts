// Headers that make a stored file harmless to open on the API's own origin (SECURITY.md, Downloads):
// customers upload HTML, SVG and XHTML under their own types, and a signed link is shared freely, so
// a download must never render as an active document of this origin.
import { mediaTypeEssence } from './sniff.js';

/** A sandbox with nothing allowed: an opened file loads nothing and runs no script, whatever its type. */
export const DOWNLOAD_CSP = "default-src 'none'; sandbox";

// Types browsers show as passive media or text; everything else (HTML, SVG, XML, XHTML, JavaScript,
// unknown types) is sent as an attachment.
const INLINE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'application/pdf', 'text/plain', 'text/csv']);

/** Whether a file of `type` may be shown inline. */
export function isInlineSafe(type: string): boolean {
  const essence = mediaTypeEssence(type);
  return INLINE_TYPES.has(essence) || essence.startsWith('audio/') || essence.startsWith('video/');
}

/** The security headers of a download of `key` (an ASCII upload key, so it is a safe file name) sent as `type`. */
export function downloadHeaders(key: string, type: string): Record<string, string> {
  return {
    'x-content-type-options': 'nosniff',
    'content-security-policy': DOWNLOAD_CSP,
    'content-disposition': isInlineSafe(type) ? 'inline' : `attachment; filename="${key}"`,
  };
}
