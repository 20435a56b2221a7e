// The parsers of customer documents, run inside a child process (document-parse.ts starts it with heap
// limits, a time limit and a memory watchdog, and kills it on any of them). Nothing here may block the
// server: a PDF stream or a zip entry can inflate to gigabytes. Only package imports: under the test
// runner Node loads this file itself (type stripping), outside the bundler's resolution. Each parser is
// imported when its kind is parsed, so a worker loads only what it needs.
import type { Entry } from 'yauzl';

/** `html` is a page's main text (Readability); `html-all` all of its text. */
export type DocumentKind = 'pdf' | 'docx' | 'html' | 'html-all' | 'markdown' | 'text';

export interface DocumentJob {
  kind: DocumentKind;
  bytes: Uint8Array;
  /** Characters of text kept; parsing stops once this many are read. */
  maxChars: number;
}

export type DocumentResult = { ok: true; text: string; title: string | null } | { ok: false; error: string };

/** SECURITY.md, Documents: the bounds of a DOCX (a zip) and a PDF. */
export const DOCUMENT_BOUNDS = {
  zipEntries: 2_000,
  /** Inflated bytes of all entries together, counted as they inflate (a zip's directory can lie). */
  zipInflatedBytes: 64 * 1024 * 1024,
  pdfPages: 1_000,
} as const;

class Refused extends Error {}

/** The main text of an HTML page (Readability), else all of its text. */
async function htmlText(html: string): Promise<{ text: string; title: string | null }> {
  const [{ Readability }, { convert }, { parseHTML }] = await Promise.all([import('@mozilla/readability'), import('html-to-text'), import('linkedom')]);
  const { document } = parseHTML(html);
  const title = document.querySelector('title')?.textContent?.trim() || null;
  // Readability mutates the document it parses; the fallback reads the original markup.
  const article = new Readability(document as unknown as Document).parse();
  // The article's HTML, not its textContent: textContent runs paragraphs together ("bite.Grab").
  const options = {
    wordwrap: false as const,
    selectors: [
      { selector: 'a', options: { ignoreHref: true } },
      { selector: 'img', format: 'skip' },
    ],
  };
  const text = article?.content && article.textContent?.trim() ? convert(article.content, options) : convert(html, options);
  return { text, title: article?.title?.trim() || title };
}

/** Markdown as prose: headings, emphasis, links, images, code and tables reduced to their words. */
function markdownText(markdown: string): string {
  return markdown
    .replace(/```[\s\S]*?```/g, '\n')
    .replace(/!\[[^\]]*\]\([^)]*\)/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^\s{0,3}(#{1,6}|>|[-*+]|\d+[.)])\s+/gm, '')
    .replace(/[*_`~]+/g, '')
    .replace(/^\s*\|?[-:| ]+\|?\s*$/gm, '')
    .replace(/\|/g, ' ');
}

/**
 * Checks a zip before mammoth (which inflates every part at once): at most `zipEntries` entries and
 * `zipInflatedBytes` declared, and every entry inflated once with yauzl, which fails an entry that inflates
 * to more than its directory declares — so the real total is bounded too, without ever holding it.
 */
async function checkZip(bytes: Uint8Array): Promise<void> {
  const { default: yauzl } = await import('yauzl');
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), { lazyEntries: true, validateEntrySizes: true }, (error, zip) => {
      if (error || !zip) return reject(new Refused('The DOCX is not a readable zip archive.'));
      if (zip.entryCount > DOCUMENT_BOUNDS.zipEntries)
        return reject(new Refused(`The DOCX has ${zip.entryCount} parts; at most ${DOCUMENT_BOUNDS.zipEntries} are read.`));
      let declared = 0;
      const tooLarge = () =>
        new Refused(`The DOCX inflates to more than ${DOCUMENT_BOUNDS.zipInflatedBytes / 1024 / 1024} MiB; larger documents are not read.`);
      zip.on('error', (zipError: Error) =>
        reject(zipError instanceof Refused ? zipError : new Refused(`The DOCX is damaged or lies about its sizes (${zipError.message}).`)),
      );
      zip.on('end', () => resolve());
      zip.on('entry', (entry: Entry) => {
        declared += entry.uncompressedSize;
        if (declared > DOCUMENT_BOUNDS.zipInflatedBytes) {
          zip.close();
          return reject(tooLarge());
        }
        if (entry.fileName.endsWith('/')) return zip.readEntry();
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError || !stream) return reject(new Refused(`The DOCX part ${entry.fileName} cannot be read (${streamError?.message ?? 'no stream'}).`));
          stream.on('error', (inflateError: Error) => {
            zip.close();
            reject(new Refused(`The DOCX part ${entry.fileName} inflates to more than its directory declares, or is damaged (${inflateError.message}).`));
          });
          stream.on('end', () => zip.readEntry());
          stream.resume();
        });
      });
      zip.readEntry();
    });
  });
}

async function pdfText(bytes: Uint8Array, maxChars: number): Promise<string> {
  const { getDocumentProxy } = await import('unpdf');
  // Text only: no font faces, no system fonts.
  const pdf = await getDocumentProxy(bytes, { disableFontFace: true, useSystemFonts: false });
  if (pdf.numPages > DOCUMENT_BOUNDS.pdfPages) throw new Refused(`The PDF has ${pdf.numPages} pages; at most ${DOCUMENT_BOUNDS.pdfPages} are read.`);
  const pages: string[] = [];
  let length = 0;
  for (let number = 1; number <= pdf.numPages && length < maxChars; number += 1) {
    // A page's text as unpdf's extractText joins it: items in order, a line break where pdf.js saw one.
    const content = await (await pdf.getPage(number)).getTextContent();
    const text = content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : '')).join('');
    pages.push(text);
    length += text.length;
  }
  return pages.join('\n');
}

export async function parseDocument(job: DocumentJob): Promise<DocumentResult> {
  const label = job.kind.toUpperCase();
  try {
    switch (job.kind) {
      case 'pdf':
        // pdf.js refuses a Buffer: a plain view of the same bytes.
        return { ok: true, text: await pdfText(new Uint8Array(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength), job.maxChars), title: null };
      case 'docx': {
        await checkZip(job.bytes);
        const buffer = Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength);
        const { default: mammoth } = await import('mammoth');
        return { ok: true, text: (await mammoth.extractRawText({ buffer })).value, title: null };
      }
      case 'html': {
        const page = await htmlText(new TextDecoder().decode(job.bytes));
        return { ok: true, text: page.text, title: page.title };
      }
      case 'html-all': {
        const { convert } = await import('html-to-text');
        const text = convert(new TextDecoder().decode(job.bytes), {
          wordwrap: false,
          selectors: [
            { selector: 'a', options: { ignoreHref: true } },
            { selector: 'img', format: 'skip' },
          ],
        });
        return { ok: true, text, title: null };
      }
      case 'markdown':
        return { ok: true, text: markdownText(new TextDecoder().decode(job.bytes)), title: null };
      case 'text':
        return { ok: true, text: new TextDecoder().decode(job.bytes), title: null };
    }
  } catch (error) {
    if (error instanceof Refused) return { ok: false, error: error.message };
    return { ok: false, error: `The ${label} document could not be parsed.` };
  }
}

// Started as a child process (document-parse.ts): parse the one job given, report, and exit.
if (process.send && process.env.PERSONA_DOCUMENT_WORKER === '1') {
  // The host that bounds this parse is gone (killed, crashed): nothing would stop it any more.
  process.once('disconnect', () => process.exit(1));
  process.once('message', (job: DocumentJob) => {
    parseDocument(job)
      .catch((): DocumentResult => ({ ok: false, error: `The ${job.kind.toUpperCase()} document could not be parsed.` }))
      .then((result) => process.send!(result, () => process.exit(0)));
  });
}
