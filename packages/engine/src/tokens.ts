// Token counts with OpenAI's o200k_base encoding (gpt-4o, gpt-4.1, o-series): what the offline engine
// reports, and what the upstream engine falls back on when the upstream reports no usage.
import { countTokens as countEncodedTokens, decode, encode } from 'gpt-tokenizer/encoding/o200k_base';
import { LRUCache } from 'lru-cache';
import type { EngineMessage, EngineTool, EngineToolCall } from './types.js';

// BPE merges within one pre-token cost quadratic time in its length: a 100 000-character "word" (no
// spaces) took ~5 s of the event loop. Runs longer than this are counted in pieces of this size, which
// is exact for ordinary text and off by at most a token per piece for such runs.
const LONG_RUN = 512;
const LONG_RUN_PATTERN = new RegExp(`\\S{${LONG_RUN + 1},}`, 'g');

// Counts of the longer texts seen lately: a persona's system prompt, a conversation's earlier turns that
// every request sends again. Counting them was 8 % of a charged call's CPU; a hit is a hash lookup.
// Bounded by the characters kept (at most ~4 MB of UTF-16).
const CACHED_FROM_LENGTH = 256;
const countsOfTexts = new LRUCache<string, number>({ maxSize: 2_000_000, sizeCalculation: (_count, text) => text.length });

/** Tokens of a text. */
export function countTokens(text: string): number {
  if (text.length < CACHED_FROM_LENGTH) return countUncached(text);
  let count = countsOfTexts.get(text);
  if (count === undefined) countsOfTexts.set(text, (count = countUncached(text)));
  return count;
}

function countUncached(text: string): number {
  if (text.length === 0) return 0;
  if (text.length <= LONG_RUN) return countEncodedTokens(text);
  let total = 0;
  let last = 0;
  for (const match of text.matchAll(LONG_RUN_PATTERN)) {
    if (match.index > last) total += countEncodedTokens(text.slice(last, match.index));
    for (let start = 0; start < match[0].length; start += LONG_RUN) total += countEncodedTokens(match[0].slice(start, start + LONG_RUN));
    last = match.index + match[0].length;
  }
  if (last < text.length) total += countEncodedTokens(text.slice(last));
  return total;
}

// OpenAI's documented chat overhead: every message costs 3 tokens beyond its content, the reply is primed
// with 3 more.
const TOKENS_PER_MESSAGE = 3;
const REPLY_PRIMING_TOKENS = 3;

/** The longest prefix of `text` that fits in `maxTokens` tokens, and whether it was cut. */
export function truncateToTokens(text: string, maxTokens: number): { text: string; truncated: boolean } {
  const tokens = encode(text);
  if (tokens.length <= maxTokens) return { text, truncated: false };
  // A cut can split a multi-byte character; drop the replacement character it would leave.
  return { text: decode(tokens.slice(0, Math.max(0, maxTokens))).replace(/\uFFFD+$/u, ''), truncated: true };
}

/** Input tokens of a chat request: system texts, messages, tool calls and tool definitions. */
export function countPromptTokens(systemTexts: readonly string[], messages: readonly EngineMessage[], tools: readonly EngineTool[] = []): number {
  let total = REPLY_PRIMING_TOKENS;
  for (const text of systemTexts) total += TOKENS_PER_MESSAGE + countTokens(text);
  for (const message of messages) {
    total += TOKENS_PER_MESSAGE + countTokens(message.content ?? '');
    if (message.role === 'assistant') total += countToolCallTokens(message.tool_calls ?? []);
  }
  if (tools.length > 0) total += countTokens(JSON.stringify(tools));
  return total;
}

/** Output tokens of tool calls: names and argument texts. */
export function countToolCallTokens(calls: readonly EngineToolCall[]): number {
  return calls.reduce((sum, call) => sum + countTokens(call.name) + countTokens(call.arguments), 0);
}

/** DECISIONS.md: 1 credit per 100 tokens (input + output), rounded up, at least 1. */
export function creditsForTokens(totalTokens: number): number {
  if (!Number.isFinite(totalTokens) || totalTokens < 0) throw new RangeError(`totalTokens must be a non-negative number, got ${totalTokens}`);
  return Math.max(1, Math.ceil(totalTokens / 100));
}
