// Citations `[n]` of an answer (DECISIONS.md, Research agent): every `[n]` must be `sources[n-1]` of a
// source a tool really returned. A citation of nothing is removed, in the stream as in the stored text, so
// the concatenated deltas are always the stored content.

const CITATION = /\[(\d{1,3})\]/g;
/** The start of a citation whose number has not arrived yet: held back until it is complete. */
const OPEN_CITATION = /\[\d{0,3}$/;

/** The text with every `[n]` that names no source (n < 1 or n > `sourceCount`) removed. */
export function resolveCitations(text: string, sourceCount: number): string {
  return text.replace(CITATION, (match, digits: string) => {
    const n = Number(digits);
    return n >= 1 && n <= sourceCount ? match : '';
  });
}

/** The distinct source numbers a text cites, in order of first citation. */
export function citedNumbers(text: string): number[] {
  const seen = new Set<number>();
  for (const match of text.matchAll(CITATION)) seen.add(Number(match[1]));
  return [...seen];
}

/**
 * Filters streamed text: each `push` returns what may be sent now (citations checked against the sources
 * known at that moment), holding back a trailing `[`, `[1`… until the next delta completes or refutes it.
 */
export class CitationFilter {
  private pending = '';

  constructor(private readonly sourceCount: () => number) {}

  push(delta: string): string {
    const text = this.pending + delta;
    const open = OPEN_CITATION.exec(text);
    const ready = open ? text.slice(0, open.index) : text;
    this.pending = open ? text.slice(open.index) : '';
    return resolveCitations(ready, this.sourceCount());
  }

  /** The rest at the end of the text (an unfinished `[12` is just text). */
  end(): string {
    const rest = this.pending;
    this.pending = '';
    return rest;
  }
}
