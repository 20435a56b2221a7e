// How a persona perceives a news story (NewsStoryAnalysis.analysis): six short paragraphs in the third
// person and a confidence. Offline, the paragraphs are written from the persona's analysis of the story's
// text (response-analysis' lexical scores: valence, emotions, biases, goal/pain overlap), so every figure
// quoted is measured from the story and the profile.
import { z } from 'zod';
import { firstName, rankedItems } from '../../offline/profile.js';
import { createRandom, sharedStems, stemSet } from '../../text/index.js';
import type { EnginePersona } from '../../types.js';
import { defineFeature } from '../define.js';
import { analyzeInput } from '../response-analysis/offline.js';

export interface NewsAnalysisInput {
  story: { name: string; summary: string; source_name: string };
  persona: EnginePersona;
}

const schema = z.object({
  quick_view: z.string().min(1).max(2000),
  emotional_response: z.string().min(1).max(4000),
  cognitive_engagement: z.string().min(1).max(4000),
  behavioral_intent: z.string().min(1).max(4000),
  news_contextualization: z.string().min(1).max(4000),
  risk_and_opportunity: z.string().min(1).max(4000),
  confidence: z.number().min(0).max(1),
});
export type NewsAnalysisOutput = z.infer<typeof schema>;

// Beyond ±0.15 the story's reading is good or bad news for the persona (response-analysis' labels).
const GOOD_NEWS = 0.15;

/** The risk line: a pain the story shares words with, sharpened by bad news or touched in their favour by good. */
function riskOf(who: string, pain: string | undefined, score: number): string {
  if (!pain) return `No direct risk to ${who} appears.`;
  return score > GOOD_NEWS ? `It touches ${who}'s pain (${pain}), in ${who}'s favour.` : `Risk: it may sharpen ${who}'s pain (${pain}).`;
}

/** The opportunity line, named from the story itself (its headline) or the goal it shares words with. */
function opportunityOf(who: string, headline: string, goal: string | undefined, score: number): string {
  if (score < -GOOD_NEWS) return `Opportunity: brands that address the concern credibly can earn ${who}'s trust.`;
  if (score > GOOD_NEWS) return `Opportunity: while ${who} is receptive, brands can build on "${headline}".`;
  return goal
    ? `Opportunity: brands that tie it to ${who}'s goal (${goal}) can get ${who}'s attention.`
    : `Opportunity: little for brands; the story leaves ${who} indifferent.`;
}

export const newsAnalysis = defineFeature<NewsAnalysisInput, NewsAnalysisOutput>({
  name: 'news_analysis',
  schema,
  prompt: ({ story, persona }) => [
    {
      role: 'system',
      content: `${persona.system_prompt}\n\nAnalyse, in the third person about ${persona.name}, how they perceive the news story the user sends: quick_view (one or two sentences), emotional_response, cognitive_engagement, behavioral_intent, news_contextualization, risk_and_opportunity (each a short paragraph) and confidence (0 to 1). Reply with JSON only.`,
    },
    { role: 'user', content: `${story.name}\n\n${story.summary}\n\n(Source: ${story.source_name})` },
  ],
  offline: ({ story, persona }, { seed }) => {
    const text = `${story.name}. ${story.summary}`;
    const analysis = analyzeInput(text, persona, createRandom('news-analysis', seed, persona.id, story.name));
    const who = firstName(persona);
    const stems = stemSet(text);
    // Only what the story shares words with: a goal or pain it does not touch is not "related".
    const touched = (item: string) => sharedStems(stemSet(item), stems).length > 0;
    const goals = rankedItems(persona.details, 'goals', stems, 1).filter(touched);
    const pains = rankedItems(persona.details, 'pains', stems, 1).filter(touched);
    const { emotional_metrics: emotions, sentiment, behavioral_intent: intent } = analysis;
    const themes = analysis.key_themes.slice(0, 3);
    const engaged = intent.score >= 0.55 || analysis.biases.length >= 2;
    return {
      // The reading, then what of the profile it touches: a pitch's "likely pushback" has no place here.
      quick_view:
        `${who} reads this as ${sentiment.label} (${sentiment.score >= 0 ? '+' : ''}${sentiment.score.toFixed(2)}), with ${emotions.dominant_emotion} as the strongest emotion. ${
          pains[0]
            ? `It touches ${who}'s pain: ${pains[0]}.`
            : goals[0]
              ? `It bears on ${who}'s goal: ${goals[0]}.`
              : `It touches none of ${who}'s stated goals or pains.`
        }`.slice(0, 2000),
      emotional_response: `${who} reacts with ${emotions.dominant_emotion} first (intensity ${emotions[emotions.dominant_emotion].toFixed(2)}); the story's tone reads ${sentiment.label} (${sentiment.score.toFixed(2)}) and its arousal is ${emotions.arousal.toFixed(2)}.`,
      cognitive_engagement: `${who} ${engaged ? 'reads closely' : 'skims'}: ${themes.length > 0 ? `the themes ${themes.join(', ')} stand out` : 'no theme stands out'}${analysis.biases[0] ? `, and ${analysis.biases[0].name.toLowerCase()} shapes the reading` : ''}.`,
      behavioral_intent: intent.rationale.slice(0, 4000),
      news_contextualization:
        `${story.source_name} reports it. ${goals[0] ? `It relates to ${who}'s goal: ${goals[0]}.` : `It does not touch ${who}'s stated goals.`}`.slice(
          0,
          4000,
        ),
      risk_and_opportunity: `${riskOf(who, pains[0], sentiment.score)} ${opportunityOf(who, story.name, goals[0], sentiment.score)}`.slice(0, 4000),
      confidence: analysis.confidence_scores.overall,
    };
  },
});
