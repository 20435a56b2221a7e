// The offline focus group: each answer is composed from what the question shares with the persona's profile
// (goals and win factors it speaks to, pains and objections it touches, how price-sensitive the persona is)
// and from the question's own AFINN valence; the moderator's summary is computed from the answers (themes
// are keywords recurring across answers, disagreements pair personas of different sentiment). Deterministic,
// documented, not a model.
import { affinity, bestMatch, roleLine } from '../../offline/profile.js';
import {
  asPhrase,
  clamp,
  clip,
  createRandom,
  lowerFirst,
  isCommonVerb,
  isTopicalStem,
  rankedKeywords,
  round,
  stem,
  stemSet,
  upperFirst,
  valence,
  withArticle,
  words,
} from '../../text/index.js';
import type { OfflineContext } from '../define.js';
import type { FocusGroupAnswerInput, FocusGroupAnswerOutput, FocusGroupSentiment, FocusGroupSummaryInput, FocusGroupSummaryOutput } from './index.js';

// Stems that make a question about money: a price-sensitive persona reads them as a threat.
const PRICE_STEMS = new Set([
  'price',
  'cost',
  'euro',
  'dollar',
  'pai',
  'pay',
  'fee',
  'subscript',
  'plan',
  'rais',
  'increas',
  'cheaper',
  'expens',
  'discount',
  'budget',
  'charg',
]);

// What a persona says about the price, by how sensitive to it its profile is, for a price asked about and a
// price that rises. The summary reads every one of them as the theme "price" (PRICE_LINE).
const PRICE_LINES = {
  sensitive: { asked: 'Price weighs heavily for me', rising: 'A higher price is hard to justify for me' },
  relaxed: { asked: 'Price matters less to me than value', rising: 'I can live with a higher price if the value holds up' },
  weighing: { asked: 'I would weigh the price against the value', rising: 'I would weigh the increase against what I get' },
} as const;

const sentence = (text: string) => {
  const trimmed = text.trim();
  // A question the persona would ask keeps its question mark.
  if (trimmed.endsWith('?')) return upperFirst(trimmed);
  return `${upperFirst(trimmed.replace(/[.!]+$/, ''))}.`;
};

export function answerOffline({ question, instructions, persona }: FocusGroupAnswerInput, { seed }: OfflineContext): FocusGroupAnswerOutput {
  const random = createRandom('focus-group-answer', seed, persona.id, question, instructions ?? '');
  const asked = `${question} ${instructions ?? ''}`;
  const text = stemSet(asked);
  const details = persona.details;
  const fit = affinity(details, text);
  const mood = valence(question);
  const aboutPrice = words(question).some((word) => PRICE_STEMS.has(stem(word)));
  const priceSensitivity = typeof details.price_sensitivity_delta === 'number' ? details.price_sensitivity_delta : 0;

  const score = clamp(
    0.5 * mood.score + 0.2 * Math.tanh(fit.positive / 2) - 0.2 * Math.tanh(fit.negative / 2) - (aboutPrice ? 0.15 + 0.25 * priceSensitivity : 0),
    -1,
    1,
  );
  const torn = fit.positive > 0 && (fit.negative > 0 || aboutPrice) && Math.abs(score) <= 0.2;
  const sentiment: FocusGroupSentiment = torn ? 'mixed' : score > 0.1 ? 'positive' : score < -0.1 ? 'negative' : 'neutral';

  const goal = bestMatch(details, 'goals', text, random);
  const pain = bestMatch(details, 'pains', text, random);
  const objection = bestMatch(details, 'objections', text, random);
  const proof = bestMatch(details, 'proof_preferences', text, random);
  const role = roleLine(details);

  const opening: Record<FocusGroupSentiment, string> = {
    positive: 'my first reaction is positive',
    negative: 'my first reaction is sceptical',
    mixed: 'I am torn on this',
    neutral: 'I do not feel strongly either way',
  };
  const points: string[] = [];
  // A question about the price is not weighed against a goal it shares no word with ("It does not clearly help me
  // consolidate overlapping SaaS tools" was the answer to a price rise).
  // A price rise that shares words with a goal ("never pay full price") goes against it.
  const rising = aboutPrice && mood.paidUp > 0;
  if (goal && (goal.overlap > 0 || !aboutPrice))
    points.push(
      goal.overlap > 0 ? `It ${rising ? 'goes against' : 'speaks to'} my goal to ${asPhrase(goal.item)}` : `It does not clearly help me ${asPhrase(goal.item)}`,
    );
  if (aboutPrice) {
    // A rise in the price ("raising the price from 79 to 99 euros") is answered as a rise.
    const stance = priceSensitivity > 0.2 ? 'sensitive' : priceSensitivity < -0.2 ? 'relaxed' : 'weighing';
    points.push(PRICE_LINES[stance][rising ? 'rising' : 'asked']);
  }

  if (pain && (pain.overlap > 0 || sentiment !== 'positive')) points.push(`My concern: ${asPhrase(pain.item)}`);
  if (objection)
    points.push(
      /\?\s*$/.test(objection.item)
        ? `The question I would need answered: ${lowerFirst(objection.item.trim())}`
        : `What would make me say no: ${asPhrase(objection.item)}`,
    );
  // Proof items are bare noun phrases ("pricing table with worked examples"): a colon needs no article.
  if (proof) points.push(`What I would want to see: ${asPhrase(proof.item)}`);

  const answer = [`${role ? `As ${withArticle(role)}, ` : ''}${opening[sentiment]}.`, ...points.map(sentence)].join(' ');
  const overlap = fit.positive + fit.negative;
  return {
    answer: clip(upperFirst(answer), 8000),
    sentiment,
    key_points: points.slice(0, 10).map((point) => clip(point, 500)),
    // More of the profile touched by the question → more grounded in the persona.
    confidence: round(clamp(0.4 + 0.07 * Math.min(overlap, 5) + (0.05 * Math.min(points.length, 3)) / 3, 0, 0.9), 2),
  };
}

// The frames answerOffline puts around what a persona said: their words are ours, not a theme of the group.
// What a persona wants to see (in the current wording or the older one): a recommendation to prepare it.
const PROOF_FRAME = /^(?:What I would want to see: |I would want to see )/i;
const ANSWER_FRAMES = [
  /^It speaks to my goal to /i,
  /^It goes against my goal to /i,
  /^It does not clearly help me /i,
  /^My concern: /i,
  /^What would make me say no: /i,
  /^The question I would need answered: /i,
  PROOF_FRAME,
];
// Its price lines are one theme: the price.
const PRICE_LINE = new Set(Object.values(PRICE_LINES).flatMap((lines) => Object.values(lines).map((line) => line.toLowerCase())));
const unframed = (point: string) => (PRICE_LINE.has(point.toLowerCase()) ? 'price' : ANSWER_FRAMES.reduce((text, frame) => text.replace(frame, ''), point));

export function summaryOffline({ answers }: FocusGroupSummaryInput): FocusGroupSummaryOutput {
  const total = answers.length;
  // Themes: keywords of each answer's key points (without the frames around them), most salient first. Those
  // several answers share come first, by how many share them; then each answer's own, in turns (its most
  // salient first), so every participant's main point is there before anyone's third.
  // Not a unit of time or a word for people ("time", "monthly" were themes of a price question), nor a verb.
  const ranked = answers.map((entry) =>
    rankedKeywords(entry.key_points.map(unframed).join('. ') || entry.answer, 12)
      .filter((keyword) => isTopicalStem(stem(keyword.toLowerCase())) && !isCommonVerb(keyword))
      .slice(0, 8),
  );
  const themeCounts = new Map<string, { label: string; count: number; first: number }>();
  ranked.forEach((list, index) => {
    const seen = new Set<string>();
    for (const keyword of list) {
      const key = stem(keyword.toLowerCase());
      if (seen.has(key)) continue;
      seen.add(key);
      const found = themeCounts.get(key);
      if (found) found.count += 1;
      else themeCounts.set(key, { label: keyword, count: 1, first: index });
    }
  });
  const recurring = [...themeCounts.values()].filter((theme) => theme.count >= 2).sort((a, b) => b.count - a.count || a.first - b.first);
  const themes = recurring.slice(0, 10);
  const taken = new Set(themes.map((theme) => stem(theme.label.toLowerCase())));
  for (let turn = 0; themes.length < 10 && ranked.some((list) => list.length > turn); turn += 1) {
    for (const list of ranked) {
      const keyword = list[turn];
      if (keyword === undefined || themes.length >= 10) continue;
      const key = stem(keyword.toLowerCase());
      if (taken.has(key)) continue;
      taken.add(key);
      themes.push(themeCounts.get(key)!);
    }
  }
  const shared = themes.filter((theme) => theme.count >= 2);

  const bySentiment = new Map<FocusGroupSentiment, string[]>();
  for (const entry of answers) bySentiment.set(entry.sentiment, [...(bySentiment.get(entry.sentiment) ?? []), entry.persona_name]);
  const [majority, majorityNames] = [...bySentiment.entries()].sort((a, b) => b[1].length - a[1].length)[0] ?? ['neutral', []];
  const consensus = [
    majorityNames.length === total
      ? `All ${total} participants are ${majority} about the question.`
      : `${majorityNames.length} of ${total} participants are ${majority} about the question (${majorityNames.join(', ')}).`,
    shared.length > 0
      ? `Themes raised by more than one participant: ${shared.map((theme) => theme.label).join(', ')}.`
      : 'No theme was raised by more than one participant.',
  ].join(' ');

  const disagreements: string[] = [];
  for (let i = 0; i < answers.length && disagreements.length < 10; i += 1) {
    for (let j = i + 1; j < answers.length && disagreements.length < 10; j += 1) {
      const a = answers[i]!;
      const b = answers[j]!;
      if (a.sentiment === b.sentiment) continue;
      const why = (entry: typeof a) => (entry.key_points[0] ? ` (${entry.key_points[0].replace(/[.!?]$/, '')})` : '');
      disagreements.push(clip(`${a.persona_name} is ${a.sentiment}${why(a)}, while ${b.persona_name} is ${b.sentiment}${why(b)}.`, 1000));
    }
  }

  // Recommendations: answer the objections of the unconvinced, keep what convinced the others.
  const recommendations: string[] = [];
  for (const entry of answers) {
    const question = entry.key_points.find((point) => point.startsWith('The question I would need answered: '));
    const objection = entry.key_points.find((point) => /^What would make me say no: |^My concern: /.test(point));
    if (entry.sentiment !== 'positive' && objection) recommendations.push(`Address ${entry.persona_name}’s point: ${objection.replace(/^[^:]+: /, '')}.`);
    if (entry.sentiment !== 'positive' && question) recommendations.push(`Answer ${entry.persona_name}’s question: ${question.replace(/^[^:]+: /, '')}`);
    const proof = entry.key_points.find((point) => PROOF_FRAME.test(point));
    if (proof) recommendations.push(`Prepare for ${entry.persona_name}: ${proof.replace(PROOF_FRAME, '')}.`);
  }
  return {
    consensus: clip(consensus, 4000),
    disagreements,
    key_themes: themes.map((theme) => clip(theme.label, 200)),
    recommendations: [...new Set(recommendations)].slice(0, 10).map((item) => clip(item, 1000)),
  };
}
