// The offline analysis (ResponseAnalysis.yaml): scores from lexical features of the input — AFINN valence,
// cue words per Plutchik emotion and per cognitive bias — and from how much the input shares with the
// persona's goals (receptive) or pains and objections (resistant). Deterministic and documented, not a model.
import type { EnginePersona, ResponseAnalysis } from '../../types.js';
import { affinity, bestMatch, firstName } from '../../offline/profile.js';
import {
  asPhrase,
  clamp,
  clip,
  counted,
  isThemeWord,
  keywords,
  rating,
  round,
  sentences,
  stem,
  stemSet,
  valence,
  words,
  type Random,
} from '../../text/index.js';

type Emotion = 'joy' | 'trust' | 'fear' | 'surprise' | 'sadness' | 'disgust' | 'anger' | 'anticipation';
const EMOTIONS: readonly Emotion[] = ['joy', 'trust', 'fear', 'surprise', 'sadness', 'disgust', 'anger', 'anticipation'];

// Cue stems per emotion (compared after Porter stemming).
const EMOTION_CUES: Record<Emotion, readonly string[]> = {
  joy: ['love', 'happi', 'delight', 'enjoy', 'great', 'fun', 'excit', 'wonder', 'amaz', 'glad', 'celebr', 'perfect'],
  trust: ['proven', 'trust', 'reliabl', 'secur', 'guarante', 'certifi', 'transpar', 'review', 'refer', 'honest', 'safe', 'support', 'warranti'],
  fear: ['risk', 'breach', 'lose', 'loss', 'worri', 'threat', 'danger', 'penalti', 'fail', 'deadlin', 'afraid', 'uncertain', 'volatil', 'miss'],
  surprise: ['new', 'introduc', 'launch', 'unexpect', 'sudden', 'suddenli', 'surpris', 'announc', 'first', 'revolutionari', 'breakthrough'],
  sadness: ['sad', 'disappoint', 'unfortun', 'sorri', 'lost', 'miss', 'lone', 'regret', 'declin', 'cancel'],
  disgust: ['fake', 'scam', 'spam', 'gross', 'greenwash', 'cheap', 'shoddi', 'manipul', 'cring', 'sleazi'],
  anger: ['unfair', 'hidden', 'overcharg', 'angri', 'ridicul', 'outrag', 'annoi', 'frustrat', 'forc', 'lock', 'rip'],
  anticipation: ['soon', 'upcom', 'plan', 'next', 'launch', 'preorder', 'pre-ord', 'futur', 'expect', 'await', 'tomorrow', 'roadmap', 'will'],
};

interface BiasRule {
  name: string;
  cues: readonly string[];
  direction: 'increases_receptivity' | 'decreases_receptivity';
  describe: (persona: string) => string;
}

const BIAS_RULES: readonly BiasRule[] = [
  {
    name: 'Scarcity effect',
    cues: ['limit', 'exclus', 'last', 'only', 'left', 'rare', 'sold'],
    direction: 'increases_receptivity',
    describe: (p) => `Signals of limited availability make ${p} value the offer more and decide faster.`,
  },
  {
    name: 'Social proof',
    cues: ['custom', 'review', 'rate', 'rat', 'join', 'thousand', 'million', 'popular', 'trust', 'everyon', 'peer', 'bestsel'],
    direction: 'increases_receptivity',
    describe: (p) => `Evidence that others like ${p} already use it lowers the perceived risk.`,
  },
  {
    name: 'Authority bias',
    cues: ['expert', 'certifi', 'award', 'doctor', 'analyst', 'gartner', 'research', 'studi', 'scientist', 'professor', 'accredit'],
    direction: 'increases_receptivity',
    describe: (p) => `Expert or institutional backing gives ${p} a shortcut to trust.`,
  },
  {
    name: 'Loss aversion',
    cues: ['lose', 'loss', 'miss', 'wast', 'cost', 'penalti', 'risk', 'behind'],
    direction: 'increases_receptivity',
    describe: (p) => `Framing around what could be lost weighs more for ${p} than an equal gain.`,
  },
  {
    name: 'Anchoring',
    cues: ['was', 'origin', 'regular', 'list', 'compar', 'instead', 'off', 'save', 'discount', '%'],
    direction: 'increases_receptivity',
    describe: (p) => `A reference price or figure sets the frame ${p} uses to judge value.`,
  },
  {
    name: 'Zero-risk bias',
    cues: ['free', 'guarante', 'refund', 'risk-fre', 'cancel', 'trial', 'money-back'],
    direction: 'increases_receptivity',
    describe: (p) => `Removing the downside entirely appeals to ${p} more than a larger but uncertain benefit.`,
  },
  {
    name: 'Status quo bias',
    cues: ['switch', 'replac', 'migrat', 'chang', 'new', 'move', 'transit'],
    direction: 'decreases_receptivity',
    describe: (p) => `Asking ${p} to change what already works triggers a preference for the current setup.`,
  },
  {
    name: 'Reactance',
    cues: ['must', 'now', 'hurri', 'urgent', 'act', 'immedi', "don't", 'requir', 'forc'],
    direction: 'decreases_receptivity',
    describe: (p) => `Pressure to act pushes ${p} to resist in order to keep control of the decision.`,
  },
];

const NEWS_CUES = [
  'today',
  'week',
  'announc',
  'elect',
  'market',
  'inflat',
  'rate',
  'regul',
  'law',
  'breaking',
  'news',
  'tariff',
  'recess',
  'polici',
  'govern',
  'crisi',
  'ai',
  '2025',
  '2026',
  '2027',
];

function intensity(count: number, base = 0.05): number {
  return round(clamp(base + (1 - Math.exp(-0.7 * count)) * 0.9, 0, 1), 2);
}

/** Cue stems found in the input's word stems, with the word that matched. */
function cueHits(stems: readonly { word: string; stem: string }[], cues: readonly string[]): string[] {
  const hits: string[] = [];
  for (const { word, stem: s } of stems) if (cues.some((cue) => s === cue || (cue.length >= 4 && s.startsWith(cue)))) hits.push(word);
  return hits;
}

function sentenceWith(input: string, word: string): string | null {
  const found = sentences(input).find((sentence) => sentence.toLowerCase().includes(word.toLowerCase()));
  return found ? clip(found, 300) : null;
}

/** The persona's analysis of `input` (deterministic). */
export function analyzeInput(input: string, persona: EnginePersona | null, random: Random): ResponseAnalysis {
  const tokenList = words(input);
  const stems = tokenList.map((word) => ({ word, stem: stem(word) }));
  const mood = valence(input);
  const text = stemSet(input);
  const fit = persona ? affinity(persona.details, text) : { positive: 0, negative: 0 };
  const exclamations = (input.match(/!/g) ?? []).length;
  const percent = (input.match(/%/g) ?? []).length;

  const sentimentScore = round(clamp(mood.score * 0.8 + 0.12 * Math.tanh(fit.positive / 2) - 0.12 * Math.tanh(fit.negative / 2), -1, 1), 2);
  const mixed = mood.positive.length > 0 && mood.negative.length > 0 && Math.abs(sentimentScore) <= 0.35;
  const label = mixed ? 'mixed' : sentimentScore > 0.15 ? 'positive' : sentimentScore < -0.15 ? 'negative' : 'neutral';

  const counts = Object.fromEntries(EMOTIONS.map((emotion) => [emotion, cueHits(stems, EMOTION_CUES[emotion]).length])) as Record<Emotion, number>;
  counts.joy += mood.positive.length;
  counts.anger += mood.negative.filter((word) => (rating(word) ?? 0) <= -3).length + mood.paidUp;
  counts.sadness += mood.negative.length > 0 ? 1 : 0;
  counts.surprise += exclamations;
  counts.trust += fit.positive > 0 ? 1 : 0;
  counts.fear += fit.negative > 0 ? 1 : 0;
  const metrics = Object.fromEntries(EMOTIONS.map((emotion) => [emotion, intensity(counts[emotion])])) as Record<Emotion, number>;
  const dominant = EMOTIONS.reduce((best, emotion) => (metrics[emotion] > metrics[best] ? emotion : best), 'trust' as Emotion);
  const arousal = round(clamp((metrics.anger + metrics.fear + metrics.joy + metrics.surprise + metrics.anticipation) / 5 + 0.05 * exclamations, 0, 1), 2);

  const intentScore = round(clamp(0.5 + 0.35 * sentimentScore + 0.06 * Math.min(fit.positive, 3) - 0.06 * Math.min(fit.negative, 3), 0, 1), 2);
  const intentLabel =
    intentScore >= 0.75
      ? 'strong_interest'
      : intentScore >= 0.55
        ? 'considering'
        : intentScore >= 0.42
          ? 'neutral'
          : intentScore >= 0.28
            ? 'skeptical'
            : 'rejecting';
  const who = persona ? firstName(persona) : 'The reader';
  const goal = persona ? bestMatch(persona.details, 'goals', text, random) : null;
  const objection = persona ? bestMatch(persona.details, 'objections', text, random) : null;

  const biases = BIAS_RULES.map((rule) => {
    const hits = cueHits(stems, rule.cues);
    const hitCount = hits.length + (rule.name === 'Anchoring' ? percent : 0);
    if (hitCount === 0) return null;
    // A persona whose objections name the same cue resists it (e.g. "is this actually limited?").
    const resisted = persona ? persona.details.objections.some((item) => hits.some((word) => stemSet(item).has(stem(word)))) : false;
    const direction = resisted ? 'decreases_receptivity' : rule.direction;
    const evidence = hits[0] ? sentenceWith(input, hits[0]) : null;
    return {
      name: rule.name,
      description: clip(
        `${rule.describe(who === 'The reader' ? 'the reader' : who)}${resisted ? ' Here it backfires: it echoes one of their own objections.' : ''}`,
        500,
      ),
      direction,
      strength: round(clamp(0.3 + 0.15 * hitCount, 0, 0.95), 2),
      evidence,
    } as const;
  })
    .filter((bias): bias is NonNullable<typeof bias> => bias !== null)
    .sort((a, b) => b.strength - a.strength || a.name.localeCompare(b.name))
    .slice(0, 10);
  if (persona && fit.positive >= 2 && biases.length < 10) {
    biases.push({
      name: 'Confirmation bias',
      description: clip(`The input echoes what ${who} already wants (${goal ? asPhrase(goal.item) : 'their goals'}), so it is read more favourably.`, 500),
      direction: 'increases_receptivity',
      strength: round(clamp(0.3 + 0.1 * fit.positive, 0, 0.9), 2),
      evidence: null,
    });
  }

  // Themes name what the input is about: not "three", "rose", "percent" or "October".
  const themes = [...new Set(keywords(input, 12).filter(isThemeWord))].slice(0, 6).map((theme) => clip(theme, 100));
  const newsHits = cueHits(stems, NEWS_CUES);
  const newsScore = round(clamp(0.05 + 0.12 * newsHits.length, 0, 0.7), 2);
  const rated = mood.rated;

  const intentText = intentLabel.replace('_', ' ');
  const summary = clip(
    [
      `${who} reads this as ${label} (${sentimentScore >= 0 ? '+' : ''}${sentimentScore.toFixed(2)}), with ${dominant} as the strongest emotion.`,
      goal && goal.overlap > 0
        ? `It speaks to the goal to ${asPhrase(goal.item)}.`
        : goal
          ? `It does not clearly address the goal to ${asPhrase(goal.item)}.`
          : null,
      objection ? `The likely pushback: ${objection.item.replace(/[.!?]$/, '')}.` : null,
    ]
      .filter(Boolean)
      .join(' '),
    2000,
  );

  return {
    summary,
    sentiment: { label, score: sentimentScore },
    emotional_metrics: { ...metrics, valence: sentimentScore, arousal, dominant_emotion: dominant },
    behavioral_intent: {
      label: intentLabel,
      score: intentScore,
      rationale: clip(
        `Intent is ${intentText} (${intentScore.toFixed(2)}): the input shares ${counted(fit.positive, 'term')} with ${who}'s goals and ${fit.negative} with their pains and objections, and its overall tone is ${label}.`,
        1000,
      ),
    },
    biases,
    key_themes: themes,
    news_relevance: {
      score: newsScore,
      summary: clip(
        newsHits.length > 0
          ? `The input uses time-bound wording (${[...new Set(newsHits)].slice(0, 5).join(', ')}); the offline engine does not search the news, so no stories are linked.`
          : 'The input has no time-bound wording; the offline engine does not search the news, so no stories are linked.',
        1000,
      ),
      topics: [...new Set(newsHits)].slice(0, 10).map((topic) => clip(topic, 100)),
      related_stories: [],
    },
    confidence_scores: {
      overall: round(clamp(0.25 + 0.04 * Math.min(rated, 8) + 0.01 * Math.min(tokenList.length, 30), 0, 0.75), 2),
      sentiment: round(clamp(0.3 + 0.08 * Math.min(rated, 6), 0, 0.8), 2),
      emotional_metrics: round(clamp(0.2 + 0.05 * EMOTIONS.reduce((sum, emotion) => sum + Math.min(counts[emotion], 2), 0), 0, 0.7), 2),
      biases: round(clamp(0.2 + 0.1 * biases.length, 0, 0.7), 2),
      news_relevance: 0.2,
    },
  };
}
