import { describe, expect, it } from 'vitest';
import { AvoidTermsFilter, GenerationOutput, renderBlock } from '../../src/resources/generations/output.js';

// The output pipeline of a generation on its own: however the model's text is cut into deltas, what is
// emitted is the same, has no avoided term, and (for HTML) is the sanitised rendering, block by block.

const TEXT = [
  '# A world class launch',
  '',
  'Our cheap-looking tin hides a World  Class brew. It is not cheap; it is worldclass? No: world',
  'class, and CHEAPER by the cup. Synergy! synergies, synergistic.',
  '',
  '```',
  'code with cheap inside',
  '',
  'still code',
  '```',
  '',
  '- one <script>alert(1)</script>',
  '- [two](javascript:alert(2)) and [three](https://example.com)',
  '',
  'Last line without a break: synergy',
].join('\n');
const TERMS = ['cheap', 'world class', 'synergy'];
const AVOIDED = /(?<![\p{L}\p{N}_])(cheap|world\s+class|synergy)/iu;

/** `text` cut at `cuts` random places (seeded, so a failure can be replayed). */
function randomSplit(text: string, seed: number): string[] {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const pieces: string[] = [];
  for (let at = 0; at < text.length; ) {
    const size = 1 + Math.floor(next() * 12);
    pieces.push(text.slice(at, at + size));
    at += size;
  }
  return pieces;
}

function run(pieces: string[], contentType: 'markdown' | 'html', terms = TERMS) {
  const output = new GenerationOutput(terms, contentType);
  const emitted = pieces.map((piece) => output.push(piece));
  emitted.push(output.finish());
  return { deltas: emitted.filter((delta) => delta.length > 0), text: output.text };
}

describe('the generation output pipeline', () => {
  it('removes avoided terms however the text is split into deltas, with the same result every time', () => {
    const whole = run([TEXT], 'markdown');
    expect(whole.text).not.toMatch(AVOIDED);
    expect(whole.text).toContain('hides a brew.');
    expect(whole.text).toContain('worldclass?');
    for (let seed = 1; seed <= 200; seed++) {
      const split = run(randomSplit(TEXT, seed), 'markdown');
      expect(split.deltas.join(''), `seed ${seed}`).toBe(whole.text);
    }
  });

  it('holds back no more than it must: text far from any term is emitted as it comes', () => {
    const filter = new AvoidTermsFilter(['cheap']);
    const first = filter.push('A long sentence that goes on and on ');
    // Held back: at most the longest term and a space, widened to whole words.
    expect(first).toMatch(/^A long sentence that goes on \S*/);
    const second = filter.push('with nothing to hide. ');
    const last = filter.finish();
    expect(first + second + last).toBe('A long sentence that goes on and on with nothing to hide. ');
    expect(last.length).toBeLessThanOrEqual('cheap'.length + 1 + 'hide. '.length);
    const none = new AvoidTermsFilter([]);
    expect(none.push('cheap ')).toBe('cheap ');
  });

  it('renders HTML block by block, escaped and sanitised, the same however it is split', () => {
    const whole = run([TEXT], 'html');
    expect(whole.text).toMatch(/^<h1>A launch<\/h1>\n/);
    // Code is text too: an avoided term is removed there as well, and the blank line inside the fence stays.
    expect(whole.text).toContain('<pre><code>code with inside\n\nstill code\n</code></pre>');
    expect(whole.text).not.toMatch(/<script|href="javascript:/i);
    expect(whole.text).toContain('<a href="https://example.com">three</a>');
    for (let seed = 1; seed <= 100; seed++) expect(run(randomSplit(TEXT, seed), 'html').deltas.join(''), `seed ${seed}`).toBe(whole.text);
  });

  it('renders a block to nothing when it holds nothing', () => {
    expect(renderBlock('   ')).toBe('');
    expect(renderBlock('<iframe src="https://evil.example"></iframe>')).toBe('&lt;iframe src="https://evil.example"&gt;&lt;/iframe&gt;\n');
  });
});
