// Tool selection of the offline engine.
//
// - `none`, or no tools: never calls.
// - `{name}`: always calls that tool (even right after a tool result, as OpenAI does).
// - `required`: always calls the best-scoring tool (the first tool on a tie, including no overlap).
// - `auto`: calls the best-scoring tool when the last message is from the user and its score is at least 2,
//   where score = 2 × (content-word stems the message shares with the tool's name) + (further stems it shares
//   with the description). So one word of the name ("weather" for get_weather) is enough, or two words of
//   the description. Generic verbs of tool names (get, list, fetch…) do not count.
import type { EngineTool, EngineToolChoice } from '../types.js';
import { contentWords, stem } from '../text/index.js';

const GENERIC_NAME_WORDS = new Set([
  'get',
  'set',
  'list',
  'fetch',
  'find',
  'search',
  'lookup',
  'look',
  'create',
  'update',
  'delete',
  'run',
  'call',
  'tool',
  'function',
  'data',
  'info',
  'do',
  'make',
  'query',
  'send',
  'post',
  'put',
  'by',
  'for',
  'the',
  'a',
]);

export const AUTO_CALL_THRESHOLD = 2;

function nameStems(name: string): Set<string> {
  const parts = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .map((part) => part.toLowerCase())
    .filter((part) => part.length >= 2 && !GENERIC_NAME_WORDS.has(part));
  return new Set(parts.map(stem));
}

/** How clearly a message asks for what a tool offers (see the module comment). */
export function toolScore(tool: EngineTool, message: string): number {
  const input = new Set(contentWords(message).map(stem));
  const fromName = nameStems(tool.name);
  const fromDescription = new Set(contentWords(tool.description ?? '').map(stem));
  let score = 0;
  for (const s of fromName) if (input.has(s)) score += 2;
  for (const s of fromDescription) if (!fromName.has(s) && input.has(s)) score += 1;
  return score;
}

/** The tool to call, or null for a text answer. Throws nothing: a forced unknown name is checked by the caller. */
export function chooseTool(
  tools: readonly EngineTool[],
  choice: EngineToolChoice,
  lastMessage: { role: string; content: string } | undefined,
): EngineTool | null {
  if (tools.length === 0 || choice === 'none') return null;
  if (typeof choice === 'object') return tools.find((tool) => tool.name === choice.name) ?? null;
  const message = lastMessage?.role === 'user' ? lastMessage.content : '';
  let best: EngineTool | null = null;
  let bestScore = -1;
  for (const tool of tools) {
    const score = toolScore(tool, message);
    if (score > bestScore) {
      best = tool;
      bestScore = score;
    }
  }
  if (choice === 'required') return best;
  return lastMessage?.role === 'user' && bestScore >= AUTO_CALL_THRESHOLD ? best : null;
}
