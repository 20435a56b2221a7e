// Reading the sources AI features learn from (brand voices, persona suggestions) into text: web pages
// through the guarded fetcher with Readability over linkedom (a fast DOM; jsdom is 4× slower for the same
// article), uploaded documents from storage by type. Every parse runs in a bounded worker
// (document-parse.ts): customer bytes never block the server.
import type { Readable } from 'node:stream';
import { parseDocumentBounded } from './document-parse.js';
import { FetchError, type Fetcher } from '../lib/guarded-fetch.js';
import type { ObjectStorage } from '../storage/types.js';
import { uploadObjectKey } from '../resources/files/keys.js';
import { inSpan } from '../observability/tracing.js';

/** A second bound on a page's bytes; the fetcher's own policy (1 MiB, SOURCE_FETCH_TIMEOUT_MS) applies first. */
const MAX_PAGE_BYTES = 8 * 1024 * 1024;
const MAX_CHARS_PER_SOURCE = 200_000;
/** Fewer words than this teach nothing (about a voice, a business). */
const MIN_WORDS = 20;

/** The document types whose text can be read, by MIME type (DECISIONS.md, Brand voices). */
export const DOCUMENT_TYPES: Readonly<Record<string, 'pdf' | 'docx' | 'html' | 'markdown' | 'text'>> = {
  'application/pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'text/plain': 'text',
};
export const LEGACY_WORD = 'application/msword';

export type SourceText = { ok: true; text: string; title: string | null } | { ok: false; error: string };

const failed = (error: string): SourceText => ({ ok: false, error });

function finish(text: string, title: string | null): SourceText {
  const clean = text
    .replace(/[ \t\u00a0]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
    .slice(0, MAX_CHARS_PER_SOURCE);
  const words = clean.split(/\s+/).filter((w) => /\p{L}/u.test(w)).length;
  if (words < MIN_WORDS)
    return failed(words === 0 ? 'No readable text was found.' : `Only ${words} words of text were found; at least ${MIN_WORDS} are needed.`);
  return { ok: true, text: clean, title };
}

async function bytesOf(body: Readable, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      body.destroy();
      throw new FetchError('too_large', `larger than ${maxBytes} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

const charsetOf = (contentType: string | undefined) => {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')?.[1] ?? 'utf-8';
  try {
    return new TextDecoder(charset);
  } catch {
    return new TextDecoder('utf-8');
  }
};

const FETCH_FAILURES: Record<FetchError['reason'], string> = {
  blocked_address: 'The address is private or local; such pages are not fetched.',
  unsupported_protocol: 'Only http and https pages can be read.',
  too_many_redirects: 'The page redirected too many times.',
  too_large: 'The page is larger than the size limit for sources (1 MiB).',
  timeout: 'The page did not answer within the time limit for sources.',
  network: 'The page could not be reached.',
};

/** A web page's main text, or why it could not be read. */
export async function readUrlSource(url: string, fetcher: Fetcher, signal: AbortSignal): Promise<SourceText> {
  try {
    const response = await fetcher.get(url, {
      signal,
      headers: { accept: 'text/html, application/xhtml+xml, text/plain;q=0.9, text/markdown;q=0.9', 'user-agent': 'persona-api source reader' },
    });
    if (!response.ok) {
      response.body.destroy();
      return failed(`The page answered HTTP ${response.status}.`);
    }
    const type = response.mediaType ?? 'text/html';
    const kind = DOCUMENT_TYPES[type];
    if (!kind || kind === 'pdf' || kind === 'docx') {
      response.body.destroy();
      return failed(`The page is ${type}, not a readable web page.`);
    }
    const text = charsetOf(response.headers['content-type']).decode(await bytesOf(response.body, MAX_PAGE_BYTES));
    const page = await parseDocumentBounded(kind, new TextEncoder().encode(text), MAX_CHARS_PER_SOURCE, signal);
    return page.ok ? finish(page.text, page.title) : page;
  } catch (error) {
    if (error instanceof FetchError) return failed(FETCH_FAILURES[error.reason]);
    if (signal.aborted) return failed(FETCH_FAILURES.timeout);
    return failed('The page could not be read.');
  }
}

/** A stored document's text, or why it could not be read. */
export async function readDocumentSource(file: { storageKey: string | null; type: string }, storage: ObjectStorage, maxBytes: number): Promise<SourceText> {
  const kind = DOCUMENT_TYPES[file.type.toLowerCase()];
  if (!kind) return failed(`${file.type} documents cannot be read.`);
  if (!file.storageKey) return failed('The file has no stored content.');
  try {
    const object = await storage.get(uploadObjectKey(file.storageKey));
    if (!object) return failed('The file has no stored content.');
    const bytes = await bytesOf(object.body, maxBytes);
    const document = await inSpan(`parse ${kind}`, { 'persona.parser': kind }, () => parseDocumentBounded(kind, bytes, MAX_CHARS_PER_SOURCE));
    return document.ok ? finish(document.text, document.title) : document;
  } catch {
    return failed(`The ${kind.toUpperCase()} document could not be parsed.`);
  }
}

/** At most `max` characters (stored values must fit the contract's bounds). */
export const clip = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);
