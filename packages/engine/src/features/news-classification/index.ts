// A news story's topics (the closed list of 16 `NewsTopic`s, main topic first) and region (the ISO 3166-1
// alpha-2 country it is about, or null). Upstream: structured output; offline: the transparent keyword
// classifier of offline.ts. Topics outside the list and malformed regions are dropped in code on both engines.
import { z } from 'zod';
import { defineFeature } from '../define.js';
import { classifyStory, NEWS_TOPICS, type NewsTopicName } from './offline.js';

export { NEWS_TOPICS, type NewsTopicName } from './offline.js';

export interface NewsClassificationInput {
  title: string;
  summary: string;
  /** The feed's own categories, if any: words the classifier also reads. */
  categories?: readonly string[];
}

export interface NewsClassificationOutput {
  topics: NewsTopicName[];
  region: string | null;
}

const replySchema = z.object({
  topics: z.array(z.enum(NEWS_TOPICS)).min(1).max(5),
  region: z
    .string()
    .regex(/^[A-Z]{2}$/)
    .nullable(),
});

export const newsClassification = defineFeature<NewsClassificationInput, NewsClassificationOutput>({
  name: 'news_classification',
  schema: replySchema,
  prompt: ({ title, summary, categories }) => [
    {
      role: 'system',
      content: `Classify a news story. topics: 1 to 5 of ${NEWS_TOPICS.join(', ')}, main topic first. region: the ISO 3166-1 alpha-2 code (upper case) of the country the story is about, or null for an international story. Reply with JSON only.`,
    },
    {
      role: 'user',
      content: [`Headline: ${title}`, `Summary: ${summary}`, categories?.length ? `Feed categories: ${categories.join(', ')}` : ''].filter(Boolean).join('\n'),
    },
  ],
  fromReply: (reply) => {
    const parsed = replySchema.parse(reply);
    return { topics: [...new Set(parsed.topics)].slice(0, 5), region: parsed.region };
  },
  offline: (input) => classifyStory(input.title, input.summary, input.categories ?? []),
});
