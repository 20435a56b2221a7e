// The artifact grammar of DECISIONS.md ("Responses"): at most one short paragraph, then exactly one
// `<artifact identifier="kebab-id" type="text/markdown|text/html|text/plain" title="…">`, a line break, the
// content (not escaped), a line break, `</artifact>`, and nothing after it.

export const ARTIFACT_TYPES = ['text/markdown', 'text/html', 'text/plain'] as const;
export type ArtifactType = (typeof ARTIFACT_TYPES)[number];

/** Longest preface accepted before the opening tag ("one short paragraph"). */
export const MAX_ARTIFACT_PREFACE = 400;

export interface Artifact {
  /** The short paragraph before the opening tag ('' when there is none). */
  preface: string;
  identifier: string;
  type: ArtifactType;
  title: string;
  content: string;
}

/** Attribute values are double-quoted with `&`, `<` and `"` written as entities. */
export function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
}

function unescapeAttribute(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&amp;/g, '&');
}

export function artifactOpenTag(artifact: Pick<Artifact, 'identifier' | 'type' | 'title'>): string {
  return `<artifact identifier="${artifact.identifier}" type="${artifact.type}" title="${escapeAttribute(artifact.title)}">`;
}

export const ARTIFACT_CLOSE_TAG = '</artifact>';

/** The message text for an artifact: preface (if any), a blank line, the element. */
export function formatArtifact(artifact: Artifact): string {
  const element = `${artifactOpenTag(artifact)}\n${artifact.content}\n${ARTIFACT_CLOSE_TAG}`;
  return artifact.preface ? `${artifact.preface}\n\n${element}` : element;
}

const ARTIFACT_TEXT =
  /^(?:([^\n][\s\S]*?)\n\n?)?<artifact identifier="([a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?)" type="(text\/markdown|text\/html|text\/plain)" title="([^"<]*)">\n([\s\S]*)\n<\/artifact>$/;

/** Parses a message text that follows the grammar exactly; null when it does not. */
export function parseArtifact(text: string): Artifact | null {
  const match = ARTIFACT_TEXT.exec(text);
  if (!match) return null;
  const [, preface = '', identifier = '', type = '', title = '', content = ''] = match;
  if (preface.includes('\n\n') || preface.length > MAX_ARTIFACT_PREFACE || preface.includes('<artifact')) return null;
  if (content.includes('<artifact ') || content.includes(ARTIFACT_CLOSE_TAG)) return null;
  // Entities in the title must be exactly the three the grammar allows.
  if (/&(?!amp;|lt;|quot;)/.test(title)) return null;
  return { preface: preface.trim(), identifier, type: type as ArtifactType, title: unescapeAttribute(title), content };
}

/**
 * Wraps a model's Markdown document into the artifact grammar while it streams: text is held until the
 * first line (the "# Title" heading the model was asked to start with) is complete, then the opening tag
 * and everything after pass through as they arrive; `finish()` adds the closing tag.
 */
export class ArtifactStreamWriter {
  private held = '';
  private opened = false;
  private readonly fallbackTitle: string;
  private readonly slug: (title: string) => string;

  constructor(fallbackTitle: string, slug: (title: string) => string) {
    this.fallbackTitle = fallbackTitle;
    this.slug = slug;
  }

  /** Text to emit for a delta of the model's output ('' while the title line is still incomplete). */
  push(delta: string): string {
    if (this.opened) return delta;
    this.held += delta;
    const body = this.held.replace(/^\s+/, '');
    if (!body.includes('\n') && body.length < 300) return '';
    return this.open();
  }

  /** The rest: the held text if the title line never ended, then the closing tag ('' when nothing was written). */
  finish(): string {
    if (!this.opened) {
      if (this.held.trim().length === 0) return '';
      return `${this.open()}\n${ARTIFACT_CLOSE_TAG}`;
    }
    return `\n${ARTIFACT_CLOSE_TAG}`;
  }

  private open(): string {
    this.opened = true;
    const content = this.held.replace(/^\s+/, '');
    const firstLine = content.split('\n', 1)[0] ?? '';
    const heading = firstLine
      .replace(/^#+\s*/, '')
      .replace(/[*_`"]/g, '')
      .trim();
    const title = (/^#/.test(firstLine) && heading.length > 0 ? heading : this.fallbackTitle).slice(0, 200);
    return `${artifactOpenTag({ identifier: this.slug(title), type: 'text/markdown', title })}\n${content}`;
  }
}
