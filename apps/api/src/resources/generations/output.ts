// What a generation's text goes through between the engine and the client, as it streams: the brand
// voice's avoided terms removed in code (a term may span deltas, so a tail as long as the longest term,
// plus the word in progress, is held back), then for HTML apps the Markdown rendered and sanitised block by
// block (marked, raw HTML escaped; sanitize-html with an allowlist). What is emitted is final: the deltas
// concatenate exactly to the stored output (GenerationOutputTextDeltaEvent), safe as it is sent.
import type sanitizeHtml from 'sanitize-html';
import { loadedOnFirstUse, onFirstUse } from '../../lib/first-use.js';

// Loaded by the first generation of an HTML app, not at start.
const marked = loadedOnFirstUse<typeof import('marked')>('marked');
const sanitizer = loadedOnFirstUse<typeof import('sanitize-html')>('sanitize-html');

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * Removes every word that starts with an avoided term (case-insensitive; `cheap` also takes `cheaper`),
 * with the space before it, so the text reads on. Holds back what a later delta could still change.
 */
export class AvoidTermsFilter {
  private readonly pattern: RegExp | null;
  private readonly hold: number;
  private pending = '';

  constructor(terms: readonly string[]) {
    const clean = [...new Set(terms.map((term) => term.trim().toLowerCase()).filter((term) => term.length > 0))].sort((a, b) => b.length - a.length);
    this.hold = Math.max(0, ...clean.map((term) => term.length)) + 1;
    this.pattern =
      clean.length === 0
        ? null
        : new RegExp(`([ \\t]*)(?<![\\p{L}\\p{N}_])(?:${clean.map((term) => escapeRegExp(term).replace(/\s+/g, '\\s+')).join('|')})[\\p{L}\\p{N}_'’-]*`, 'giu');
  }

  /** The text to remove terms from, as it arrives; returns what can no longer change. */
  push(delta: string): string {
    this.pending += delta;
    if (!this.pattern) return this.take(this.pending.length);
    let cut = this.pending.length - this.hold;
    // Never split a word: the text before the cut ends with whitespace.
    while (cut > 0 && !/\s/.test(this.pending[cut - 1]!)) cut -= 1;
    if (cut <= 0) return '';
    // A match (fully present: the tail is longer than any term) must not straddle the cut.
    for (const match of this.pending.matchAll(this.pattern)) {
      if (match.index < cut && match.index + match[0].length > cut) {
        cut = match.index;
        break;
      }
    }
    return this.take(cut);
  }

  /** The rest, at the end of the text. */
  finish(): string {
    return this.take(this.pending.length);
  }

  /** Filters a complete text (a title). */
  apply(text: string): string {
    if (!this.pattern) return text;
    return text.replace(this.pattern, (match: string, lead: string, offset: number, whole: string) => {
      const next = whole[offset + match.length];
      return lead && next !== undefined && /[\p{L}\p{N}]/u.test(next) ? ' ' : '';
    });
  }

  private take(cut: number): string {
    const head = this.pending.slice(0, cut);
    this.pending = this.pending.slice(cut);
    return this.apply(head);
  }
}

const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: [
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'p',
    'br',
    'hr',
    'ul',
    'ol',
    'li',
    'a',
    'strong',
    'em',
    'b',
    'i',
    'del',
    'blockquote',
    'code',
    'pre',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
    'img',
  ],
  allowedAttributes: { a: ['href', 'title'], img: ['src', 'alt', 'title'], ol: ['start'], th: ['align'], td: ['align'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['https'] },
  allowProtocolRelative: false,
  disallowedTagsMode: 'escape',
};

// Raw HTML in the model's Markdown is shown as text, never passed through (marked passes it by default).
const markdownParser = onFirstUse(() => new (marked().Marked)({ gfm: true, async: false, renderer: { html: ({ text }) => escapeHtml(text) } }));

/** One Markdown block as safe HTML ('' when it renders to nothing). */
export function renderBlock(block: string): string {
  const html = sanitizer()(markdownParser().parse(block, { async: false }) as string, SANITIZE).trim();
  return html.length > 0 ? `${html}\n` : '';
}

/** Splits streamed Markdown at blank lines outside fenced code and renders each complete block. */
export class HtmlBlockRenderer {
  private buffer = '';

  push(text: string): string {
    this.buffer += text;
    let out = '';
    let from = 0;
    const blank = /\n[ \t]*\n/g;
    for (let match = blank.exec(this.buffer); match; match = blank.exec(this.buffer)) {
      const block = this.buffer.slice(from, match.index);
      // Inside an open ``` fence a blank line does not end the block.
      if ((block.match(/^\s{0,3}(```|~~~)/gm) ?? []).length % 2 === 1) continue;
      out += renderBlock(block);
      from = match.index + match[0].length;
    }
    this.buffer = this.buffer.slice(from);
    return out;
  }

  finish(): string {
    const out = this.buffer.trim() ? renderBlock(this.buffer) : '';
    this.buffer = '';
    return out;
  }
}

/** The whole way from the engine's deltas to what is emitted and stored, for a content type. */
export class GenerationOutput {
  private readonly filter: AvoidTermsFilter;
  private readonly html: HtmlBlockRenderer | null;
  /** Everything emitted so far: the stored output. */
  text = '';

  constructor(avoidTerms: readonly string[], contentType: 'markdown' | 'html') {
    this.filter = new AvoidTermsFilter(avoidTerms);
    this.html = contentType === 'html' ? new HtmlBlockRenderer() : null;
  }

  push(delta: string): string {
    const safe = this.filter.push(delta);
    return this.record(this.html ? this.html.push(safe) : safe);
  }

  finish(): string {
    const rest = this.filter.finish();
    return this.record(this.html ? this.html.push(rest) + this.html.finish() : rest);
  }

  private record(text: string): string {
    this.text += text;
    return text;
  }
}
