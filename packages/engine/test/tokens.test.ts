import { describe, expect, it } from 'vitest';
import { countTokens as exactCount } from 'gpt-tokenizer/encoding/o200k_base';
import { countPromptTokens, countTokens, creditsForTokens, truncateToTokens } from '../src/index.js';

describe('token counting', () => {
  it('counts with the o200k_base encoding', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('Hello world')).toBe(2);
    expect(countTokens('The quick brown fox jumps over the lazy dog.')).toBe(10);
  });

  it('counts a run longer than 512 characters without spaces in pieces, within a token per piece of the exact count', () => {
    const run = 'y'.repeat(5_000);
    const exact = exactCount(`Hello ${run} world`);
    const pieces = Math.ceil(run.length / 512);
    expect(Math.abs(countTokens(`Hello ${run} world`) - exact)).toBeLessThanOrEqual(pieces);
    // Ordinary text (no such run) is counted exactly.
    const prose = 'The quick brown fox jumps over the lazy dog. '.repeat(100);
    expect(countTokens(prose)).toBe(exactCount(prose));
  });

  it('gives a long text the same exact count again from its cache, and a text differing by one character its own count', () => {
    const prompt = `You are a CFO of a 400-person SaaS company. ${'You weigh every tool against its payback period. '.repeat(40)}`;
    const first = countTokens(prompt);
    expect(first).toBe(exactCount(prompt));
    expect(countTokens(prompt)).toBe(first);
    // An equal string made anew (as a request body parses it) hits the same entry.
    expect(countTokens(JSON.parse(JSON.stringify(prompt)))).toBe(first);
    expect(countTokens(`${prompt}!`)).toBe(exactCount(`${prompt}!`));
  });

  it('adds the per-message overhead and tool definitions to prompt tokens', () => {
    const bare = countPromptTokens([], [{ role: 'user', content: 'Hello world' }]);
    expect(bare).toBe(3 + 3 + 2);
    const withSystem = countPromptTokens(['Be brief.'], [{ role: 'user', content: 'Hello world' }]);
    expect(withSystem).toBe(bare + 3 + countTokens('Be brief.'));
    const withTool = countPromptTokens([], [{ role: 'user', content: 'Hello world' }], [{ name: 'get_weather', parameters: { type: 'object' } }]);
    expect(withTool).toBeGreaterThan(bare);
  });

  it('truncates to a token budget', () => {
    const text = 'one two three four five six seven eight nine ten';
    const cut = truncateToTokens(text, 3);
    expect(cut.truncated).toBe(true);
    expect(countTokens(cut.text)).toBe(3);
    expect(text.startsWith(cut.text)).toBe(true);
    expect(truncateToTokens(text, 100)).toEqual({ text, truncated: false });
  });
});

describe('creditsForTokens', () => {
  it('charges 1 credit per 100 tokens, rounded up, at least 1', () => {
    expect(creditsForTokens(0)).toBe(1);
    expect(creditsForTokens(1)).toBe(1);
    expect(creditsForTokens(100)).toBe(1);
    expect(creditsForTokens(101)).toBe(2);
    expect(creditsForTokens(1500)).toBe(15);
  });

  it('rejects negative or non-finite totals', () => {
    expect(() => creditsForTokens(-1)).toThrow(RangeError);
    expect(() => creditsForTokens(Number.NaN)).toThrow(RangeError);
  });
});
