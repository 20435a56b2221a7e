import { eq } from 'drizzle-orm';
import { parseDocumentBounded } from '../../ai/document-parse.js';
import { readDocumentSource } from '../../ai/source-text.js';
import type { Executor } from '../../db/client.js';
import type { Fetcher } from '../../lib/guarded-fetch.js';
import type { ObjectStorage } from '../../storage/types.js';
import { files } from '../files/table.js';

/** Characters of text kept per source: enough for the engine, small enough for a prompt. */
const MAX_SOURCE_CHARS = 20_000;

/**
 * The readable text of a web page, or null when it cannot be read within the fetcher's limits
 * (unreachable, an error status, not text, a private address): DECISIONS.md skips such sources and
 * does not count them.
 */
export async function fetchSourceText(url: string, fetcher: Fetcher): Promise<string | null> {
  try {
    const response = await fetcher.get(url, {
      headers: { accept: 'text/html, text/plain, text/markdown, application/xhtml+xml;q=0.9, */*;q=0.1', 'user-agent': 'persona-api source reader' },
    });
    const type = response.mediaType ?? 'text/plain';
    if (!response.ok || !/^(text\/|application\/(xhtml\+xml|json|xml))/.test(type)) {
      response.body.destroy();
      return null;
    }
    const body = await response.text();
    // HTML is parsed in the bounded document child (SECURITY.md, Documents), never on the event loop.
    const parsed = type.includes('html') ? await parseDocumentBounded('html-all', new TextEncoder().encode(body), MAX_SOURCE_CHARS) : null;
    if (parsed && !parsed.ok) return null;
    const text = parsed?.ok ? parsed.text : body;
    const trimmed = text
      .replace(/\n{3,}/g, '\n\n')
      .trim()
      .slice(0, MAX_SOURCE_CHARS);
    return trimmed.length > 0 ? trimmed : null;
  } catch {
    return null;
  }
}

/** The file types whose text feeds a suggestion: the documents a brand voice reads, and CSV as plain text. */
const readableType = (type: string) => (type.toLowerCase() === 'text/csv' ? 'text/plain' : type.toLowerCase());
const MAX_FILE_BYTES = 10 * 1024 * 1024;

/**
 * The text of an uploaded document (PDF, DOCX, Markdown, HTML, text, CSV), read from storage like a
 * brand voice's documents; null when it cannot be read (another type, a reference without stored
 * content, no text): such sources are skipped and not counted, as unreachable URLs are.
 */
export async function readFileSourceText(db: Executor, storage: ObjectStorage, fileId: string): Promise<string | null> {
  const [file] = await db.select({ storageKey: files.storageKey, type: files.type, size: files.size }).from(files).where(eq(files.id, fileId));
  if (!file?.storageKey || (file.size ?? 0) > MAX_FILE_BYTES) return null;
  const read = await readDocumentSource({ storageKey: file.storageKey, type: readableType(file.type) }, storage, MAX_FILE_BYTES);
  return read.ok ? read.text.slice(0, MAX_SOURCE_CHARS) : null;
}
