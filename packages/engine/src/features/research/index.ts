// The research agent's parts that belong to the engine (DECISIONS.md, Research agent):
// - `threadTitle`: a thread's title from its first message (structured output upstream; offline the first
//   sentence, clipped at a word).
// - `researchKeywords` and `composeResearchAnswer`: the offline engine's documented rule. The offline engine
//   cannot choose tools over several rounds like a model, so the agent searches every tool with the
//   question's keywords and this composer answers extractively from what came back, citing each quoted
//   passage with its `[n]`. Upstream models run a real tool loop instead (the server drives it).
import { z } from 'zod';
import { clip, keywords, sentences, sharedStems, stemSet } from '../../text/index.js';
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

// Words that tell the assistant how to answer ("cite sources", "summarise", "explain"), or only that the
// question is after news ("what is happening with…", "the latest on…"), not what it is about.
const NOT_TOPIC_WORDS = new Set([
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
  'happen',
  'happens',
  'happened',
  'happening',
  'going',
  'latest',
  'recent',
  'recently',
  'currently',
  'update',
  'updates',
  'tell',
  'know',
  'news',
  'any',
  // Where to look, not what about: "what do our personas say about pricing?" is about pricing.
  'persona',
  'personas',
]);
// A verb that only frames the topic after "about": "which personas care about sustainability?" is not about care.
const FRAMING_VERB = /\b(?:care|cares|cared|think|thinks|feel|feels|say|says|said|worry|worries|worried|know|knows)\s+(?=about\b)/gi;

const withoutNotTopicWords = (question: string) =>
  question.replace(FRAMING_VERB, ' ').replace(/[\p{L}\p{N}'’-]+/gu, (word) => (NOT_TOPIC_WORDS.has(word.toLowerCase()) ? ' ' : word));

/** The question's search keywords: its RESEARCH_KEYWORDS most salient content words, in the order they occur. */
export function researchKeywords(question: string): string[] {
  return keywords(withoutNotTopicWords(question), RESEARCH_KEYWORDS);
}

export interface ResearchSource {
  /** The citation number, `[ref]`. */
  ref: number;
  title: string;
  /** The passage the tool returned. */
  snippet: string;
  /** A persona's profile (persona search) rather than a story, a document or a web page. */
  persona?: boolean;
}

/**
 * The passages of a snippet to quote from: its sentences, and each item of a labelled list ("pains: A; B;
 * C", as a persona's profile reads) on its own, with its label.
 */
function passagesOf(text: string): { label: string | null; text: string }[] {
  const passages: { label: string | null; text: string }[] = [];
  // A labelled list is one line ("pains: Early 6 a.m. starts; Websites with small print"), its items split at
  // ";" before any sentence split, which cut "a.m. starts" into an unlabelled "starts; Websites…".
  const labelledList = (part: string) => /^([\p{L} ]{2,40}): (.+;.+)$/u.exec(part.trim());
  const pushList = (list: RegExpExecArray) => {
    for (const item of list[2]!.split(/;\s*/)) {
      const trimmed = item.trim().replace(/[.;]+$/, '');
      if (trimmed.length > 0) passages.push({ label: list[1]!.trim(), text: trimmed });
    }
  };
  for (const line of text.split(/\n+/)) {
    const list = labelledList(line);
    if (list) {
      pushList(list);
      continue;
    }
    // A list after a sentence on the same line ("Buying a first home. pains: …; …") still counts as one.
    for (const sentence of sentences(line)) {
      const inner = labelledList(sentence);
      if (inner) pushList(inner);
      else passages.push({ label: null, text: sentence });
    }
  }
  return passages;
}

/** The passage of `text` that shares the most stems with the question (the first on a tie), with its score. */
function bestPassage(text: string, question: ReadonlySet<string>): { label: string | null; text: string; score: number } {
  let best: { label: string | null; text: string; score: number } = { label: null, text: '', score: -1 };
  for (const passage of passagesOf(text)) {
    const score = sharedStems(stemSet(passage.text), question).length;
    if (score > best.score) best = { ...passage, score };
  }
  return best;
}

/**
 * The offline answer: the sources sharing the most stems with what the question is about (its words but the
 * ones saying how to answer), at most RESEARCH_QUOTED_SOURCES and only those sharing at least half as many as
 * the best one, and two when the question has three or more (ties: the order found); for each, the passage of its snippet that shares the most, quoted
 * and cited `[ref]`. With nothing found, it says so. Every citation it writes is the `ref` of a source it
 * was given.
 */
export function composeResearchAnswer(input: { question: string; sources: readonly ResearchSource[] }): string {
  const question = stemSet(withoutNotTopicWords(input.question));
  const topic = researchKeywords(input.question).join(', ');
  const scored = input.sources
    .map((source, order) => ({
      source,
      order,
      best: bestPassage(source.snippet, question),
      shared: sharedStems(stemSet(`${source.title} ${source.snippet}`), question).length,
    }))
    .filter((entry) => entry.best.text.length > 0 && entry.shared > 0)
    .sort((a, b) => b.shared - a.shared || a.order - b.order);
  // A source sharing one word of four with the question ("inflation" in a persona's goals, "sales" in a
  // story on Black Friday for a question on electric vehicle sales) is not an answer to it: with three or
  // more words to match, a source needs two, and at least half as many as the best source.
  // "What do our personas say about pricing?" is answered from the personas when any of them speaks to it.
  const fromPersonas = /\bpersonas?\b/i.test(input.question) && scored.some((entry) => entry.source.persona === true);
  const eligible = fromPersonas ? scored.filter((entry) => entry.source.persona === true) : scored;
  const enough = Math.max(question.size >= 3 ? 2 : 1, Math.ceil((eligible[0]?.shared ?? 0) / 2));
  const quoted = eligible.filter((entry) => entry.shared >= enough).slice(0, RESEARCH_QUOTED_SOURCES);
  if (quoted.length === 0) {
    return `Nothing in the workspace's news stories, documents or personas matched ${topic ? `"${topic}"` : 'the question'}, so there is no source to answer from.`;
  }
  const lines = quoted.map(
    ({ source, best }) => `- **${clip(source.title, 120)}**${best.label ? ` (${best.label})` : ''}: "${clip(best.text, 400)}" [${source.ref}]`,
  );
  return [`What the sources say about ${topic ? `"${topic}"` : 'the question'}:`, '', ...lines].join('\n');
}
