// A persona's news digest. Relevance is computed in code on both engines (`storyRelevance`: word stems a
// story shares with the persona's goals, interests, pains and objections, and its topics against the
// persona's category), and explained by the terms that matched; the model (or the offline composer) only
// writes the title, the summary and the takeaways over the ranked stories.
import { z } from 'zod';
import { firstName } from '../../offline/profile.js';
import { clamp, clip, isTopicalStem, round, sharedStems, stem, stemSet, stemsOf, words } from '../../text/index.js';
import type { EnginePersona } from '../../types.js';
import { defineFeature } from '../define.js';

export interface DigestStory {
  id: string;
  name: string;
  summary: string;
  topics: readonly string[];
}

export interface StoryRelevance {
  relevance_score: number;
  relevance: 'high' | 'medium' | 'low';
  why_it_matters: string;
}

// Beyond the generic words (isTopicalStem: time, people at work), verbs and measures that say how much,
// not what ("cut", "lower", "record"). A walking study shared "quarter", "day" and "weeks" with a CFO's
// goals and ranked high.
const NOT_TOPICAL = stemsOf(
  'record records number numbers percent half third cut cuts cutting close closes closing hold holds find finds found make makes ' +
    'keep keeps start starts end ends high higher low lower lowers big bigger small smaller more less long short fast slow back grow ' +
    'grows growing stay stays turn turns follow follows bring take early late',
);

/** The story's stems that can say what it is about (NOT_TOPICAL left out). */
const topicalStems = (text: string) => new Set([...stemSet(text)].filter((s) => isTopicalStem(s) && !NOT_TOPICAL.has(s)));

/** How relevant a story is to the persona (0–1), with the reason in words: the profile items it touches. */
export function storyRelevance(story: DigestStory, persona: EnginePersona): StoryRelevance {
  const text = topicalStems(`${story.name} ${story.summary}`);
  const d = persona.details;
  const wants = [...d.goals, ...d.primary_objectives, ...d.win_factors, ...d.values, ...d.lifestyle_affinities];
  const fears = [...d.pains, ...d.objections];
  const touched = (items: readonly string[]) =>
    items
      .map((item) => ({ item, shared: sharedStems(stemSet(item), text) }))
      .filter((entry) => entry.shared.length > 0)
      .sort((a, b) => b.shared.length - a.shared.length);
  const wanted = touched(wants);
  const feared = touched(fears);
  const context = stemSet([persona.category, d.industry ?? '', d.role_title ?? '', d.life_stage ?? ''].join(' '));
  const topicHits = story.topics.filter((topic) => context.has(topic) || sharedStems(stemSet(topic), context).length > 0).length;
  const terms = new Set([...wanted, ...feared].flatMap((entry) => entry.shared));
  const score = round(
    clamp(0.1 + 0.12 * Math.min(terms.size, 5) + 0.08 * Math.min(wanted.length, 3) + 0.08 * Math.min(feared.length, 3) + 0.1 * Math.min(topicHits, 1), 0, 1),
    2,
  );
  const who = firstName(persona);
  // The story's own words for the shared stems ("pricing", not "price").
  const wordOf = new Map<string, string>();
  for (const word of words(`${story.name} ${story.summary}`)) if (!wordOf.has(stem(word))) wordOf.set(stem(word), word);
  const reasons = [wanted[0] ? `it bears on ${who}'s aim "${wanted[0].item}"` : null, feared[0] ? `it touches the concern "${feared[0].item}"` : null].filter(
    Boolean,
  );
  const why =
    reasons.length > 0
      ? `Shares ${[...terms]
          .slice(0, 5)
          .map((term) => wordOf.get(term) ?? term)
          .join(', ')} with ${who}'s profile: ${reasons.join(', and ')}.`
      : `Shares no terms with ${who}'s goals, pains or objections${topicHits > 0 ? `, though its topic fits ${who}'s field` : ''}.`;
  return { relevance_score: score, relevance: score >= 0.7 ? 'high' : score >= 0.4 ? 'medium' : 'low', why_it_matters: clip(why, 2000) };
}

export interface NewsDigestInput {
  persona: EnginePersona;
  /** Ranked stories, most relevant first, each with its computed relevance. */
  stories: ReadonlyArray<DigestStory & StoryRelevance & { source_name: string }>;
  period_label: string;
}

const schema = z.object({
  title: z.string().min(1).max(200),
  summary: z.string().min(1).max(4000),
  key_takeaways: z.array(z.string().min(1).max(500)).max(10),
});
export type NewsDigestOutput = z.infer<typeof schema>;

export const newsDigest = defineFeature<NewsDigestInput, NewsDigestOutput>({
  name: 'news_digest',
  schema,
  prompt: ({ persona, stories, period_label }) => [
    {
      role: 'system',
      content: `${persona.system_prompt}\n\nWrite a news digest for ${persona.name} from the stories the user lists (already ranked by relevance to them; do not re-rank or add stories): title (short), summary (a paragraph on what matters to them), key_takeaways (one line each, at most 10). Reply with JSON only.`,
    },
    {
      role: 'user',
      content: `Period: ${period_label}\n\n${stories.map((story, index) => `[${index + 1}] (${story.relevance}) ${story.name} — ${story.source_name}\n${story.summary}`).join('\n\n') || 'No stories.'}`,
    },
  ],
  offline: ({ persona, stories, period_label }) => {
    const who = firstName(persona);
    const topics = [...new Set(stories.flatMap((story) => story.topics))].slice(0, 3);
    const high = stories.filter((story) => story.relevance === 'high').length;
    return {
      title: clip(`${who}'s news digest${topics.length > 0 ? `: ${topics.join(', ')}` : ''}`, 200),
      summary: clip(
        stories.length === 0
          ? `No stories in ${period_label} match the request.`
          : `${stories.length} stories from ${period_label}, ${high} highly relevant to ${who}. Most relevant: "${stories[0]!.name}" (${stories[0]!.relevance_score.toFixed(2)}). ${stories[0]!.why_it_matters}`,
        4000,
      ),
      key_takeaways: stories.slice(0, 10).map((story) => clip(`${story.name} (${story.relevance}): ${story.why_it_matters}`, 500)),
    };
  },
});
