import { describe, expect, it } from 'vitest';
import { basePersonas, createOfflineEngine, enginePersonaFromBase, escapeAttribute, formatArtifact, parseArtifact } from '../src/index.js';
import { ArtifactStreamWriter } from '../src/artifact.js';

const elena = enginePersonaFromBase(basePersonas.find((entry) => entry.id === 'persona_marketing_vp_scaleup')!);

describe('artifact grammar', () => {
  it('offline artifact mode wraps the answer in exactly one artifact element', async () => {
    for (const content of [
      'Write a landing page for our AI content tool for B2B marketers.',
      'Draft an email to your team about our new attribution dashboard.',
      'What do you think about "Q&A <webinars>"?',
    ]) {
      const { text, finish_reason } = await createOfflineEngine().generate({ persona: elena, messages: [{ role: 'user', content }], artifact: true });
      expect(finish_reason).toBe('stop');
      const artifact = parseArtifact(text);
      expect(artifact, text).not.toBeNull();
      expect(artifact!.identifier).toMatch(/^[a-z0-9-]{1,64}$/);
      expect(artifact!.type).toBe('text/markdown');
      expect(text.match(/<artifact /g)).toHaveLength(1);
      expect(text.endsWith('</artifact>')).toBe(true);
      expect(artifact!.preface.split('\n\n')).toHaveLength(1);
      expect(artifact!.content.length).toBeGreaterThan(100);
    }
  });

  it('keeps the grammar when the output is cut by max_output_tokens', async () => {
    const { text, finish_reason } = await createOfflineEngine().generate({
      persona: elena,
      messages: [{ role: 'user', content: 'Write a landing page for our tool.' }],
      artifact: true,
      max_output_tokens: 60,
    });
    expect(finish_reason).toBe('length');
    expect(parseArtifact(text)).not.toBeNull();
  });

  it('escapes &, < and " in attribute values and reads them back', () => {
    expect(escapeAttribute('Q&A <now> "live"')).toBe('Q&amp;A &lt;now> &quot;live&quot;');
    const text = formatArtifact({ preface: 'Here it is.', identifier: 'q-a', type: 'text/plain', title: 'Q&A <now> "live"', content: 'Body <b>raw</b>' });
    expect(text).toBe('Here it is.\n\n<artifact identifier="q-a" type="text/plain" title="Q&amp;A &lt;now> &quot;live&quot;">\nBody <b>raw</b>\n</artifact>');
    expect(parseArtifact(text)).toEqual({
      preface: 'Here it is.',
      identifier: 'q-a',
      type: 'text/plain',
      title: 'Q&A <now> "live"',
      content: 'Body <b>raw</b>',
    });
  });

  it('rejects text that breaks the grammar', () => {
    const ok = '<artifact identifier="a-b" type="text/markdown" title="T">\n# T\n</artifact>';
    expect(parseArtifact(ok)).not.toBeNull();
    expect(parseArtifact(`${ok}\nmore`)).toBeNull();
    expect(parseArtifact(ok.replace('a-b', 'A_B'))).toBeNull();
    expect(parseArtifact(ok.replace('text/markdown', 'application/json'))).toBeNull();
    expect(parseArtifact(`First paragraph.\n\nSecond paragraph.\n\n${ok}`)).toBeNull();
    expect(parseArtifact(`${ok.slice(0, -11)}<artifact identifier="x" type="text/plain" title="y">\n</artifact>`)).toBeNull();
    expect(parseArtifact(ok.replace('title="T"', 'title="a & b"'))).toBeNull();
  });

  it('the stream writer holds the title line, then passes text through and closes the element', () => {
    const writer = new ArtifactStreamWriter('Fallback', (title) => title.toLowerCase().replace(/[^a-z0-9]+/g, '-'));
    const out = [writer.push('# Launch '), writer.push('plan\nWeek 1: '), writer.push('teasers.'), writer.finish()];
    expect(out[0]).toBe('');
    expect(out[2]).toBe('teasers.');
    expect(parseArtifact(out.join(''))).toEqual({
      preface: '',
      identifier: 'launch-plan',
      type: 'text/markdown',
      title: 'Launch plan',
      content: '# Launch plan\nWeek 1: teasers.',
    });
    const untitled = new ArtifactStreamWriter('Fallback', () => 'fallback');
    expect(parseArtifact(untitled.push('No heading, one line') + untitled.finish())?.title).toBe('Fallback');
  });
});
