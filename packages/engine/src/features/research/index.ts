// The research agent's parts that belong to the engine (DECISIONS.md, Research agent):
// - `threadTitle`: a thread's title from its first message (structured output upstream; offline the first
//   sentence, clipped at a word).
// - `researchKeywords` and `composeResearchAnswer`: the offline engine's documented rule. The offline engine
//   cannot choose tools over several rounds like a model, so the agent searches every tool with the
//   question's keywords and this composer answers extractively from what came back, citing each quoted
//   passage with its `[n]`. Upstream models run a real tool loop instead (the server drives it).
import { z } from 'zod';
import { clip, contentWords, keywords, sentences, stem, stemSet } from '../../text/index.js';
import { defineFeature } from '../define.js';

/** A title is at most this long (AgentThread.title allows 200). */
export const THREAD_TITLE_MAX = 80;

export interface ThreadTitleInput {
  message: string;
}

const titleSchema = z.object({ title: z.string().min(1).max(200) });

/** The first sentence (or line) of the message, clipped at a word to THREAD_TITLE_MAX characters. */
export function offlineThreadTitle(message: string): string {
  const first = sentences(message)[0] ?? message;
  const title = clip(first.replace(/[#>*_`]+/g, ' '), THREAD_TITLE_MAX).replace(/[.:;,!]+$/, '');
  return title.length > 0 ? title : 'New thread';
}

export const threadTitle = defineFeature<ThreadTitleInput, { title: string }>({
  name: 'thread_title',
  schema: titleSchema,
  prompt: ({ message }) => [
    {
      role: 'system',
      content: `You name research conversations. Reply with a short title (at most ${THREAD_TITLE_MAX} characters, no quotes, no final period) that says what the user's first message asks about.`,
    },
    { role: 'user', content: message },
  ],
  // A model's title over the limit is cut here rather than failing the answer.
  fromReply: (reply) => ({ title: clip(String(reply.title ?? ''), THREAD_TITLE_MAX) || 'New thread' }),
  offline: ({ message }) => ({ title: offlineThreadTitle(message) }),
});

/** How many keywords of the question the offline rule searches with. */
export const RESEARCH_KEYWORDS = 8;
/** How many sources the offline answer quotes at most. */
export const RESEARCH_QUOTED_SOURCES = 5;

// Words that tell the assistant how to answer ("cite sources", "summarise", "explain"), not what about.
const INSTRUCTION_WORDS = new Set([
  'cite',
  'cited',
  'citing',
  'citation',
  'citations',
  'source',
  'sources',
  'reference',
  'references',
  'explain',
  'summarise',
  'summarize',
  'summary',
  'research',
  'briefly',
  'detail',
  'detailed',
]);

/** The question's search keywords: its RESEARCH_KEYWORDS most salient content words, in the order they occur. */
export function researchKeywords(question: string): string[] {
  const topic = question.replace(/[\p{L}\p{N}'’-]+/gu, (word) => (INSTRUCTION_WORDS.has(word.toLowerCase()) ? ' ' : word));
  return keywords(topic, RESEARCH_KEYWORDS);
}

export interface ResearchSource {
  /** The citation number, `[ref]`. */
  ref: number;
  title: string;
  /** The passage the tool returned. */
  snippet: string;
}

/** The sentence of `text` that shares the most stems with the question (the first on a tie), with its score. */
function bestSentence(text: string, question: ReadonlySet<string>): { sentence: string; score: number } {
  let best = { sentence: '', score: -1 };
  for (const sentence of sentences(text)) {
    const score = new Set(
      contentWords(sentence)
        .map(stem)
        .filter((s) => question.has(s)),
    ).size;
    if (score > best.score) best = { sentence, score };
  }
  return best;
}

/**
 * The offline answer: for each of the RESEARCH_QUOTED_SOURCES sources sharing the most stems with the question
 * (ties: the order found), the sentence of its snippet that shares the most, quoted and cited `[ref]`. With
 * nothing found, it says so. Every citation it writes is the `ref` of a source it was given.
 */
export function composeResearchAnswer(input: { question: string; sources: readonly ResearchSource[] }): string {
  const question = stemSet(input.question);
  const topic = researchKeywords(input.question).join(', ');
  const scored = input.sources
    .map((source, order) => ({
      source,
      order,
      best: bestSentence(source.snippet, question),
      shared: [...stemSet(`${source.title} ${source.snippet}`)].filter((s) => question.has(s)).length,
    }))
    .filter((entry) => entry.best.sentence.length > 0)
    .sort((a, b) => b.shared - a.shared || a.order - b.order)
    .slice(0, RESEARCH_QUOTED_SOURCES);
  if (scored.length === 0) {
    return `Nothing in the workspace's news stories, documents or personas matched ${topic ? `"${topic}"` : 'the question'}, so there is no source to answer from.`;
  }
  const lines = scored.map(({ source, best }) => `- **${clip(source.title, 120)}**: "${clip(best.sentence, 400)}" [${source.ref}]`);
  return [`What the sources say about ${topic ? `"${topic}"` : 'the question'}:`, '', ...lines].join('\n');
}
