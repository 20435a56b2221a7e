import { convert } from 'html-to-text';
import type { Fetcher } from '../../lib/guarded-fetch.js';

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
    const text = type.includes('html')
      ? convert(body, {
          wordwrap: false,
          selectors: [
            { selector: 'a', options: { ignoreHref: true } },
            { selector: 'img', format: 'skip' },
          ],
        })
      : body;
    const trimmed = text
      .replace(/\n{3,}/g, '\n\n')
      .trim()
      .slice(0, MAX_SOURCE_CHARS);
    return trimmed.length > 0 ? trimmed : null;
  } catch {
    return null;
  }
}
