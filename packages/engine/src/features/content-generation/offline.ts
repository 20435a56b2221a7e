// The offline engine's content: the app's kind of document built from the inputs themselves — their key
// sentence quoted, their salient terms as sections, headlines and hashtags, list fields as lists — angled
// at the persona's own goals and pains, with the brand voice's preferred terms woven in and one of its
// example phrases quoted. Deterministic: the same input and seed give the same text. Not a language model.
import type { GenerationInputValue } from '@persona-api/types';
import { titleCase } from '../../offline/persona-composition.js';
import { rankedItems, roleLine } from '../../offline/profile.js';
import {
  asPhrase,
  clip,
  createRandom,
  isCommonVerb,
  keySentence,
  keywords,
  sentences,
  topicalShared,
  stemSet,
  upperFirst,
  VERB_SUFFIX,
  withArticle,
} from '../../text/index.js';
import { topicPhrase } from '../../text/topic.js';
import type { OfflineContext } from '../define.js';
import type { ContentGenerationInput } from './index.js';

const MAIN_FIELDS = ['topic', 'offer', 'product', 'announcement', 'image_description', 'use_of_funds', 'features'];
const LIST_FIELDS = ['features', 'benefits', 'outline'];
const LIVELY = /playful|enthusiastic|energetic|bold|fun|upbeat|excited|friendly/i;

const text = (value: GenerationInputValue | undefined): string => (typeof value === 'string' ? value.trim() : Array.isArray(value) ? value.join(', ') : '');
const num = (value: GenerationInputValue | undefined, fallback: number): number => (typeof value === 'number' ? Math.round(value) : fallback);
const sentence = (phrase: string) => (/[.!?…:]$/.test(phrase.trim()) ? phrase.trim() : `${phrase.trim()}.`);
/** A term as a hashtag, each word capitalised, written as the brief writes it ("SaaS", not "Saas"). */
const hashtag = (term: string, source: string) => {
  const escaped = term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const written = new RegExp(escaped, 'iu').exec(source)?.[0] ?? term;
  return `#${written
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .map((word) => (/\p{Lu}/u.test(word.slice(1)) ? word : upperFirst(word)))
    .join('')}`;
};

/** The items of the first list a text enumerates ("…: bank reconciliations, accruals and variance reports"). */
function enumeration(text: string): string[] {
  for (const line of sentences(text)) {
    const list = /:\s*([^:]+)$/.exec(line)?.[1] ?? line;
    const items = list
      .replace(/[.!?]+$/, '')
      .split(/,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+/)
      .map((item) => item.trim())
      .filter((item) => item.length > 0 && item.split(/\s+/).length <= 8);
    if (items.length >= 3 && /,/.test(list)) return items;
  }
  return [];
}

/** The sentence of `candidates` that shares most topical word stems with `text` (not "team"), if any shares one. */
function closestSentence(text: string, candidates: readonly string[], skip: ReadonlySet<string>): string | null {
  const wanted = stemSet(text);
  let best: { line: string; shared: number } | null = null;
  for (const line of candidates) {
    if (skip.has(line)) continue;
    const shared = topicalShared(stemSet(line), wanted).length;
    if (shared > 0 && (!best || shared > best.shared)) best = { line, shared };
  }
  return best?.line ?? null;
}

/** A release's headline: the brief's opening clause, led by the company unless it already names it. */
function headlineOf(company: string, subject: string, main: string): string {
  const opening = (sentences(main)[0] ?? subject)
    .split(/[:;—–]/)[0]!
    .trim()
    .replace(/[.!?]+$/, '');
  const lead = opening.split(/\s+/).length >= 3 ? opening : subject;
  return lead.toLowerCase().startsWith(company.toLowerCase()) ? lead : `${company}: ${lead}`;
}

/**
 * What the money is for, as the founder says it: "Closewise will use the funding to double its engineering
 * team…" → "With this round we will double our engineering team…"; null when the sentence is not of that form.
 */
function firstPersonPlan(useOfFunds: string, company: string): string | null {
  const escaped = company.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const plan = new RegExp(
    `^(?:${escaped}|the company|we)\\s+(?:will|plans to|intends to)\\s+use\\s+(?:the|this|its|these|our)?\\s*(?:new\\s+)?(?:funding|funds|money|capital|round|investment|proceeds)\\s+to\\s+(.+)$`,
    'i',
  ).exec(useOfFunds.trim());
  if (!plan) return null;
  const rest = plan[1]!.replace(/\bits\b/gi, 'our').replace(/[.!?]+$/, '');
  return `With this round we will ${rest}.`;
}

/** The noun phrase a brief opens with ("Our new cold brew concentrate is …" → its subject), if short. */
function openingSubject(text: string): string | null {
  const first = sentences(text)[0] ?? '';
  const cut =
    /\s(?:is|are|was|were|has|have|had|will|can|could|should|makes?|helps?|lets?|saves?|gives?|brings?|launch(?:es)?|offers?|automates?|cuts?|turns?|replaces?|connects?|tracks?|reduces?|removes?|keeps?|runs?|finds?|builds?|creates?|manages?|handles?|simplifies|speeds?|lowers?|syncs?|unifies|combines?|delivers?|provides?)\s|[,;:—–(]/i.exec(
      first,
    );
  const subject = (cut ? first.slice(0, cut.index) : '').trim();
  return subject.length >= 3 && subject.length <= 60 && subject.split(/\s+/).length <= 8 ? subject : null;
}

// Search ads: every headline and description whole within its limit, never a phrase cut short.
const SEARCH_HEADLINE_MAX = 30;
const SEARCH_DESCRIPTION_MAX = 90;
// Ticked selling points that are offers, stated as such. Price, speed, quality and support need the brief's
// own evidence (a figure claim above), not a stock line ("Built to Last" for a cold brew).
const SELLING_POINT_LINES: Record<string, string> = {
  'free trial': 'Start a Free Trial',
  'free shipping': 'Free Shipping',
  guarantee: 'Money-Back Guarantee',
};

// A figure: digits or a number word ("ten minutes every morning").
const FIGURE = /\d|\b(?:two|three|four|five|six|seven|eight|nine|ten|twelve|twenty|thirty|fifty|hundred|thousand|half|twice|double)\b/i;
// Where a clause may end early and still say something whole: before a preposition or a "when"/"every".
const CLAUSE_BREAK = /\s(?:for|from|with|by|in|at|to|of|on|every|each|per|when|while|because|instead|across|without)\s/gi;

/**
 * A claim as a headline of at most 30 characters: its subject dropped when it is too long ("Teams close in 5
 * days instead of 9" → "close in 5 days instead of 9"; "It saves busy teams…"; "… concentrate is slow-steeped
 * …" → what follows "is"), then cut before a preposition if still too long ("slow-steeped for 18 hours
 * from washed Colombian beans" → "slow-steeped for 18 hours"); null when no whole part of it fits.
 */
function headlineClause(clause: string, max = SEARCH_HEADLINE_MAX): string | null {
  if (clause.length <= max) return clause;
  const copula = /\s(?:is|are)\s/i.exec(clause);
  let rest = copula ? clause.slice(copula.index + copula[0].length) : clause.replace(/^\S+\s+/, '');
  if (rest.length <= max) return rest;
  let cut: number | null = null;
  for (const match of rest.matchAll(CLAUSE_BREAK)) if (match.index <= max && match.index > 0) cut = match.index;
  rest = cut === null ? '' : rest.slice(0, cut);
  return rest.split(/\s+/).length >= 2 && FIGURE.test(rest) ? rest : null;
}

/**
 * The brief's sentences, and of one with a colon its two halves (only what follows the colon without
 * `heads`), each a whole sentence: what an ad may quote.
 */
function briefClauses(main: string, { heads = true }: { heads?: boolean } = {}): string[] {
  const clauses = sentences(main).flatMap((line) => {
    const [before, ...after] = line.split(/:\s*/);
    return after.length > 0 ? [line, ...(heads ? [before!] : []), after.join(': ')] : [line];
  });
  return [...new Set(clauses.map((clause) => sentence(upperFirst(clause.trim()))))];
}

/**
 * A search ad's headlines, best first: the keywords as typed, the brief's claims with a figure ("Close in
 * 5 Days Instead of 9"), the product's name, the ticked selling points, the items the brief lists, then
 * its terms of two words or more; each title-cased without a leading article or possessive, distinct, and whole within
 * `max` characters (30 on a search ad).
 */
function adHeadlines(
  main: string,
  keywordList: readonly string[],
  subject: string,
  sellingPoints: readonly string[],
  terms: readonly string[],
  max = SEARCH_HEADLINE_MAX,
): string[] {
  const claims = sentences(main)
    .flatMap((line) => line.split(/[:;,—–]\s*/))
    .map((clause) => clause.trim().replace(/[.!?]+$/, ''))
    .filter((clause) => FIGURE.test(clause))
    .map((clause) => headlineClause(clause, max))
    .filter((clause): clause is string => clause !== null);
  const pointLines = sellingPoints.map((point) => SELLING_POINT_LINES[point]).filter((line): line is string => line !== undefined);
  const candidates = [...keywordList, ...claims, subject, ...pointLines, ...enumeration(main), ...terms.filter((term) => /\s/.test(term))];
  const seen = new Set<string>();
  const headlines: string[] = [];
  for (const candidate of candidates) {
    const line = titleCase(
      candidate
        .trim()
        .replace(/\s+/g, ' ')
        .replace(/^(?:a|an|the|our|your)\s+/i, ''),
    );
    if (line.length < 3 || line.length > max || seen.has(line.toLowerCase())) continue;
    seen.add(line.toLowerCase());
    headlines.push(line);
  }
  return headlines;
}

export function composeContent(input: ContentGenerationInput, { seed }: OfflineContext): string {
  const v = input.values;
  const strings = Object.values(v).map(text).filter(Boolean);
  const mainKey = MAIN_FIELDS.find((key) => text(v[key])) ?? Object.keys(v).find((key) => text(v[key]).length > 20);
  const main = (mainKey ? text(v[mainKey]) : strings[0]) ?? input.prompt;
  const all = strings.join('\n');
  const random = createRandom('content', seed, input.app.id, input.prompt, input.persona?.id ?? '', input.voice?.label ?? '');
  const subject = upperFirst(text(v.product_name) || text(v.event_title) || openingSubject(main) || topicPhrase(main) || clip(main, 60));
  // Inside a sentence: a name keeps its capital ("Closewise"); "Our cold brew" becomes "our cold brew".
  const subjectInline = /^(?:Our|The|A|An|This|These|Your|My|We|It|Its)\b/.test(subject) ? subject.charAt(0).toLowerCase() + subject.slice(1) : subject;
  const key = keySentence(main) ?? clip(main, 200);
  // Verb forms ("automates", "digitises") are no headline, hashtag or shot: the same cue topicPhrase drops.
  const terms = keywords(all, 12)
    .filter((term) => !VERB_SUFFIX.test(term) && !isCommonVerb(term))
    .slice(0, 8);
  const listed = LIST_FIELDS.map((name) => text(v[name]))
    .filter(Boolean)
    .flatMap((value) => value.split(/\n+|;\s*/))
    .map((item) => item.replace(/^\s*(?:[-*•]|\d+[.)])\s*/, '').trim())
    .filter(Boolean);
  const points = listed.length > 0 ? listed : sentences(main).length > 1 ? sentences(main) : terms.map((term) => `${upperFirst(term)}`);
  // The brief's distinct points for a list of features: a list field's items when it has several; else the
  // items the brief enumerates and its other sentences (the enumerating sentence only up to its colon),
  // so one paragraph typed into "features" is no single bullet of the whole brief.
  // The brief's first claim with a figure other than its key sentence ("Teams close in 5 days instead of 9."):
  // a proof, an email's subject, a script's hook.
  const figureClaim = briefClauses(main).find((clause) => FIGURE.test(clause) && clause !== sentence(key)) ?? null;
  const items = enumeration(main);
  const featurePoints =
    listed.length > 1
      ? listed
      : [
          ...new Map(
            [
              ...sentences(main).flatMap((line) => (items.length > 0 && line.includes(items.at(-1)!) ? [line.split(/:\s*/)[0]!] : [line])),
              ...items.map((item) => upperFirst(item)),
            ]
              .map((point) => point.trim().replace(/[.!?]+$/, ''))
              .filter((point) => point.length > 0)
              .map((point) => [point.toLowerCase(), point]),
          ).values(),
        ];
  // Of those, the statements (not the listed items): a landing page's benefits, its list being the steps.
  const statements = featurePoints.filter((point) => !items.some((item) => upperFirst(item) === point) && point.split(/\s+/).length > 4);

  // The audience: the persona's own goals, pains and objections, ranked by the words the brief shares with them.
  const persona = input.persona;
  const stems = stemSet(all);
  // Only a goal or pain the brief shares a topical word with: "If you want to automate the spreadsheet work of
  // the team, this is for you" under a cold brew brief ("busy teams") claimed what the product does not do.
  const touched = (items: string[]) => items.filter((item) => topicalShared(stemSet(item), stems).length > 0);
  const goals = persona ? touched(rankedItems(persona.details, 'goals', stems, 2)) : [];
  const pains = persona ? touched(rankedItems(persona.details, 'pains', stems, 2)) : [];
  const objections = persona ? rankedItems(persona.details, 'objections', stems, 2) : [];
  const reader = text(v.audience) || text(v.recipient_role) || (persona ? (roleLine(persona.details) ?? persona.name.split(',')[0]) : '');
  // A persona's role is one person ("Chief Financial Officer in B2B software"); an audience typed in is as written.
  const role = persona ? roleLine(persona.details) : null;
  const readerPhrase = !text(v.audience) && !text(v.recipient_role) && role ? withArticle(role) : reader;

  // The voice: preferred terms woven in, one example phrase quoted, liveliness from its tone.
  const voice = input.voice;
  const preferred = voice?.vocabulary.preferred_terms.slice(0, 3) ?? [];
  const example = voice?.example_phrases?.[0]?.example ?? null;
  // A voice whose don'ts rule out exclamation marks (its sources use none) is never lively, whatever its adjectives.
  const exclaims = !voice?.tone.donts.some((rule) => /exclamation/i.test(rule));
  const lively = exclaims && LIVELY.test(`${text(v.tone)} ${voice?.tone.adjectives.join(' ') ?? ''}`);
  const end = lively ? '!' : '.';
  const cta = text(v.call_to_action) || text(v.ask) || random.pick(['Learn more', 'Get started', 'Find out more']);

  const goalLine = goals[0] ? `If you want to ${asPhrase(goals[0])}, this is for you${end}` : null;
  // A question, not "No more …": the brief shares a word with the pain, which does not say the product ends it.
  const painLine = pains[0] ? `Tired of ${asPhrase(pains[0])}?` : null;
  const termsLine = preferred.length
    ? `It comes down to ${preferred.length > 1 ? `${preferred.slice(0, -1).join(', ')} and ${preferred.at(-1)}` : preferred[0]}.`
    : null;
  const exampleLine = example ? `> ${clip(example, 300)}` : null;
  // The brief's product name when it opens the brief as one capitalised word ("Closewise automates …").
  const opener = openingSubject(main);
  const startsWithName = (phrase: string) => opener !== null && /^\p{Lu}\S*$/u.test(opener) && phrase.startsWith(`${opener} `);
  // A phrase of the brief inside a sentence of ours; one that opens with the product's name keeps its capital.
  const inline = (phrase: string) => (phrase.startsWith(subject) ? phrase.trim().replace(/[.!?]+$/, '') : asPhrase(phrase));
  const join = (...blocks: (string | null | false | undefined)[]) =>
    blocks.filter((block): block is string => typeof block === 'string' && block.trim().length > 0).join('\n\n');

  switch (input.app.category) {
    case 'social_post': {
      const size = text(v.post_length) || 'medium';
      const count = typeof v.hashtag_count === 'number' ? num(v.hashtag_count, 3) : v.include_hashtags === false ? 0 : 3;
      const hook = random.pick([
        `${subject}${end}`,
        `Here is the thing about ${subjectInline}${end}`,
        `What changes with ${subjectInline}${lively ? '!' : '?'}`,
      ]);
      const body =
        size === 'short' ? [sentence(key)] : [sentence(key), goalLine, painLine, size === 'long' ? termsLine : null, size === 'long' ? exampleLine : null];
      const closing = text(v.goal) === 'sales' || text(v.call_to_action) ? `${cta}${end}` : 'What do you think?';
      const tags =
        count > 0
          ? terms
              .slice(0, count)
              .map((term) => hashtag(term, all))
              .join(' ')
          : null;
      return join(hook, ...body, size !== 'long' ? termsLine : null, closing, tags);
    }
    case 'blog_article': {
      if (input.app.id.includes('listicle')) {
        // As many items as the brief has distinct points (its list, its sentences, the items it enumerates), up
        // to the count asked for: repeating them round to fill the count is no list.
        const distinct = [...new Map([...points, ...enumeration(main)].map((point) => [point.toLowerCase(), point])).values()];
        const count = Math.min(Math.max(1, num(v.item_count, 5)), Math.max(1, distinct.length));
        const supported = new Set<string>();
        const items = distinct.slice(0, count).map((point, index) => {
          // A goal only beside the point that shares a topical word with it, each goal once.
          const support = goals.find((goal) => !supported.has(goal) && topicalShared(stemSet(goal), stemSet(point)).length > 0);
          if (support) supported.add(support);
          // Headed by the point up to its colon, whole (was cut with "…" at 80 characters).
          const head = point.split(/:\s*/)[0]!;
          return `${index + 1}. **${head.length <= 100 ? upperFirst(inline(head)) : clip(upperFirst(inline(head)), 100)}**${support ? ` — It helps you ${asPhrase(support)}.` : ''}`;
        });
        return join(
          `# ${subject}: ${count} ${count === 1 ? 'thing' : 'things'} to know`,
          `${sentence(key)}${reader ? ` Written for ${readerPhrase}.` : ''}`,
          items.join('\n'),
          termsLine,
          `${cta}${end}`,
        );
      }
      // A section per point: headed by the point up to its colon, its body what the point says after it (or the
      // point itself, or a sentence of the brief on it) that the article has not said yet: the key sentence
      // opened it, and a section that repeated it read as padding.
      const said = new Set([sentence(key)]);
      const sections = points.slice(0, 5).map((point, index) => {
        const [head, ...tail] = point.split(/:\s*/);
        const heading = clip(upperFirst(asPhrase(head!)), 80);
        const related = sentences(all).filter((line) => line !== point && stemSet(line).has([...stemSet(point)][0] ?? ''));
        const body =
          [tail.length > 0 ? upperFirst(tail.join(': ')) : null, tail.length > 0 || asPhrase(point) !== asPhrase(heading) ? point : null, ...related]
            .filter((line): line is string => line !== null)
            .map(sentence)
            .find((line) => !said.has(line)) ?? null;
        if (body) said.add(body);
        const angle = index === 0 && painLine ? painLine : goals[index - 1] ? `It helps you ${asPhrase(goals[index - 1]!)}.` : null;
        return join(`## ${heading}`, body, angle);
      });
      return join(
        `# ${subject}`,
        `${sentence(key)}${reader ? ` This guide is for ${readerPhrase}.` : ''}`,
        ...sections,
        exampleLine,
        `## Next step`,
        join(termsLine, `${cta}${end}`),
      );
    }
    case 'email': {
      const cold = Boolean(v.recipient_role);
      // A role or an audience is no name to greet ("Hi Chief Financial Officer in B2B software,").
      const greeting = 'Hi,';
      const proof = text(v.proof) ? `${sentence(text(v.proof))}` : null;
      const deadline = text(v.deadline) ? `The offer ends ${text(v.deadline)}.` : null;
      // The subject adds the brief's figure when it has one ("Closewise: teams close in 5 days instead of 9"); the
      // preview is a whole sentence of the brief within 90 characters, not the key sentence cut with "…".
      const claimed = figureClaim
        ? `${subject}: ${startsWithName(figureClaim) ? figureClaim : figureClaim.charAt(0).toLowerCase() + figureClaim.slice(1)}`.replace(/[.!?]+$/, '')
        : null;
      const subjectLine = claimed && claimed.length <= 70 ? claimed : clip(subject, 70);
      const preview = briefClauses(main).find((clause) => clause.length <= 90 && clause !== figureClaim) ?? clip(key, 90);
      return join(
        `Subject: ${subjectLine}`,
        cold ? null : `Preview: ${preview}`,
        greeting,
        // The role is a free phrase ("Head of Finance at a 200-person SaaS company") and the pain a noun phrase
        // or a clause: neither fits inside a sentence of ours, both fit after a colon.
        cold && text(v.pain_point) ? `What we hear from people in your role: ${asPhrase(text(v.pain_point))}.` : painLine,
        sentence(key),
        join(goalLine, proof, termsLine),
        deadline,
        cold ? `Would a ${cta} next week make sense?` : `**${cta}**`,
        'Best regards',
      );
    }
    case 'ad_copy': {
      if (v.platform) {
        // Each variant: a question to the reader's pain or goal, then a sentence of the brief, whole within 125
        // characters (was "No more … Closewise." and a brief cut with "…"); a headline of the brief within 40.
        const variants = Math.max(1, num(v.variants, 2));
        const openers = [pains[0] ? `Tired of ${asPhrase(pains[0])}?` : null, goals[0] ? `Want to ${asPhrase(goals[0])}?` : null, null];
        const lines = briefClauses(main).sort((a, b) => Number(FIGURE.test(b)) - Number(FIGURE.test(a)));
        const headlines = adHeadlines(main, [], subject, [], [...preferred, ...terms], 40);
        const used = new Set<string>();
        return Array.from({ length: variants }, (_, index) => {
          const opener = openers[index % openers.length] ?? null;
          const line = lines[index % Math.max(lines.length, 1)] ?? sentence(subject);
          // A sentence of the brief no earlier variant used (this variant's first), after the opener if both fit,
          // else alone; only then one already used.
          const fresh = [line, ...lines].filter((candidate) => !used.has(candidate));
          const options = [
            ...fresh.map((candidate) => [opener, candidate] as const),
            ...fresh.map((candidate) => [null, candidate] as const),
            ...lines.map((candidate) => [opener, candidate] as const),
          ];
          const [lead, chosen] = options.find(([first, candidate]) => (first ? `${first} ${candidate}` : candidate).length <= 125) ?? [null, clip(line, 125)];
          used.add(chosen);
          const primary = lead ? `${lead} ${chosen}` : chosen;
          return join(
            `## Variant ${index + 1}`,
            `**Primary text:** ${lively ? primary.replace(/\.$/, '!') : primary}`,
            `**Headline:** ${headlines[index % Math.max(headlines.length, 1)] ?? clip(subject, 40)}`,
            `**Button:** ${clip(cta, 20)}`,
          );
        }).join('\n\n');
      }
      // As many distinct headlines as the brief supports, up to the count asked for (was "Month-end", "Close").
      const count = Math.max(1, num(v.headline_count, 5));
      const sellingPoints = Array.isArray(v.unique_selling_points)
        ? v.unique_selling_points.map(String)
        : text(v.unique_selling_points).split(/,\s*/).filter(Boolean);
      const headlines = adHeadlines(main, text(v.keywords).split(/,\s*/), subject, sellingPoints, [...preferred, ...terms]).slice(0, count);
      // Sentences of the brief that fit whole (a figure first), what it lists, the reader's goal, the call to action.
      const fitting = (line: string | null) => (line !== null && line.length <= SEARCH_DESCRIPTION_MAX ? line : null);
      const briefLines = briefClauses(main, { heads: false })
        .filter((line) => line.length <= SEARCH_DESCRIPTION_MAX)
        .sort((a, b) => Number(/\d/.test(b)) - Number(/\d/.test(a)));
      // A ticked free trial is the ad's call to action unless one was typed in.
      const action = !text(v.call_to_action) && sellingPoints.includes('free trial') ? 'Start your free trial' : cta;
      const descriptions = [...new Set([...briefLines, fitting(goalLine), fitting(termsLine)].filter((line): line is string => line !== null))];
      const chosen = [...descriptions.slice(0, 3), `${action}${end}`];
      return join('## Headlines', headlines.map((line) => `- ${line}`).join('\n'), '## Descriptions', chosen.map((line) => `- ${line}`).join('\n'));
    }
    case 'landing_page': {
      const wanted = Array.isArray(v.sections) ? v.sections : ['benefits', 'how_it_works', 'faq'];
      const blocks: string[] = [`# ${subject}`, `${sentence(key)}${reader ? ` Made for ${readerPhrase}.` : ''}`];
      if (v.event_title) {
        const count = Math.max(1, num(v.learning_points, 3));
        blocks.push(
          join(
            text(v.date_time) && `**When:** ${text(v.date_time)}`,
            text(v.speakers) && `**Speakers:** ${text(v.speakers)}`,
            '## What you will learn',
            // The brief's points, a statement as what the session shows ("How teams close in 5 days instead of 9").
            featurePoints
              .slice(0, count)
              .map(
                (point) =>
                  `- ${point.split(/\s+/).length > 4 ? `How ${startsWithName(point) ? point.replace(/[.!?]+$/, '') : inline(point)}` : upperFirst(asPhrase(point))}`,
              )
              .join('\n'),
            goalLine,
            `**Save my seat**`,
          ),
        );
        return join(...blocks);
      }
      for (const section of wanted) {
        if (section === 'benefits')
          blocks.push(
            join(
              '## Benefits',
              // The brief's statements, an enumerating one up to its colon (its list is the steps below).
              (statements.length > 0 ? statements : points)
                .slice(0, 5)
                .map((point) => `- ${startsWithName(point) ? point.replace(/[.!?]+$/, '') : upperFirst(asPhrase(point))}`)
                .join('\n'),
              termsLine,
            ),
          );
        // Steps only from a list the brief itself enumerates: keywords in a row are no steps.
        const steps = enumeration(main);
        if (section === 'how_it_works' && steps.length > 0)
          blocks.push(
            join(
              '## How it works',
              steps
                .slice(0, 5)
                .map((step, index) => `${index + 1}. ${upperFirst(step)}`)
                .join('\n'),
            ),
          );
        if (section === 'testimonials' && exampleLine) blocks.push(join('## What people say', exampleLine));
        if (section === 'faq') {
          // Each question answered by the brief's sentence closest to it, a sentence used once.
          const briefLines = sentences(all);
          const used = new Set<string>();
          // A question the brief says nothing about is left out rather than answered with an unrelated line.
          const answers = objections.flatMap((question) => {
            const answer = closestSentence(question, briefLines, used);
            if (!answer) return [];
            used.add(answer);
            return [`**${sentence(upperFirst(question))}**\n\n${sentence(answer)}`];
          });
          if (answers.length === 0) answers.push(`**What is ${subjectInline}?**\n\n${sentence(key)}`);
          blocks.push(join('## Questions', ...answers));
        }
        if (section === 'pricing') blocks.push(join('## Pricing', `Start with ${subjectInline} today.`));
      }
      blocks.push(`**${cta}**`);
      return join(...blocks);
    }
    case 'product_description': {
      if (v.bullet_count !== undefined || input.app.id.includes('bullets')) {
        const count = Math.max(1, num(v.bullet_count, 5));
        return featurePoints
          .slice(0, count)
          .map((point) => {
            // The point itself when short, else its first whole phrase ("close in 5 days"), else its keywords.
            const words = point.split(/\s+/).length;
            const lead = clip((words <= 4 ? point : (headlineClause(point, 24) ?? keywords(point, 2).join(' ')) || subject).toUpperCase(), 40);
            // A goal only where this point shares a topical word with it: no "Accruals, so you can consolidate SaaS tools".
            const why = goals.find((goal) => topicalShared(stemSet(goal), stemSet(point)).length > 0);
            // A short point is its own header: "**STEEL BODY** — Steel body." said it twice.
            if (words <= 4) return `- **${lead}**${why ? ` — so you can ${asPhrase(why)}.` : ''}`;
            return `- **${lead}** — ${clip(`${upperFirst(asPhrase(point))}${why ? `, so you can ${asPhrase(why)}` : ''}.`, 180)}`;
          })
          .join('\n');
      }
      const size = text(v.length) || 'medium';
      // "**Closewise** automates …" when the brief opens with the name, not "**Closewise** — Closewise automates …".
      const opening = points[0] ?? key;
      const lead = opening.startsWith(subject)
        ? `**${subject}**${opening.slice(subject.length).replace(/[.!?]+$/, '')}`
        : `**${subject}** — ${inline(opening)}`;
      return join(
        `${lead}${end}`,
        size === 'short' ? null : join(goalLine ?? sentence(key), painLine, termsLine),
        featurePoints.map((point) => `- ${upperFirst(asPhrase(point))}`).join('\n'),
      );
    }
    case 'video_script': {
      const short = v.duration_seconds !== undefined;
      const total = short ? num(v.duration_seconds, 30) : num(v.duration_minutes, 2) * 60;
      // Hook: the first pain asked, else the brief's figure. Problem: another pain stated, else the goal the
      // reader has (was the brief's second sentence, a result, as "the problem"). Proof: the figure, if the
      // hook did not use it. A beat with nothing of the brief or the persona to say is left out.
      const hook = pains[0] ? `Tired of ${asPhrase(pains[0])}?` : (figureClaim ?? `${subject}${lively ? '!' : '?'}`);
      const problem = pains[1] ? sentence(upperFirst(asPhrase(pains[1]))) : goals[0] ? `You want to ${asPhrase(goals[0])}${end}` : null;
      const proof = figureClaim && hook !== figureClaim ? figureClaim : problem?.startsWith('You want') ? termsLine : (goalLine ?? termsLine);
      const beats = [
        { label: 'Hook', line: hook, visual: `Close-up on ${subjectInline}` },
        { label: 'Problem', line: problem, visual: 'The everyday situation, before' },
        { label: 'Solution', line: sentence(key), visual: `${upperFirst(terms[0] ?? subject)} in use` },
        ...(short
          ? []
          : [
              {
                label: 'How it works',
                line: (enumeration(main).length > 0 ? enumeration(main) : points)
                  .slice(0, 3)
                  .map((p) => sentence(upperFirst(asPhrase(p))))
                  .join(' '),
                visual: 'Step-by-step screen',
              },
            ]),
        { label: 'Proof', line: proof, visual: 'Result on screen' },
        { label: 'Call to action', line: `${cta}${end}`, visual: 'Logo and call to action' },
      ].filter((beat): beat is { label: string; line: string; visual: string } => Boolean(beat.line));
      const step = Math.max(1, Math.floor(total / beats.length));
      return join(
        `# ${subject} — ${short ? `${total}-second` : `${total / 60}-minute`} script`,
        ...beats.map((beat, index) =>
          join(
            `**${index * step}–${index === beats.length - 1 ? total : (index + 1) * step} s · ${beat.label}**`,
            `[Visual] ${beat.visual}${v.include_b_roll === true ? ` (B-roll: ${terms[index % Math.max(terms.length, 1)] ?? subject})` : ''}`,
            `[Voiceover] ${beat.line}`,
          ),
        ),
      );
    }
    case 'press_release': {
      const company = text(v.company_name) || subject;
      // "series A" → "Series A"; "seed" stays.
      const round = text(v.round).replace(/^series\b/i, 'Series');
      const investors = text(v.investors);
      const headline = v.round
        ? `${company} raises ${text(v.amount)} ${round} round${investors ? ` led by ${investors}` : ''}`
        : headlineOf(company, subject, main);
      const place = text(v.location) ? `**${text(v.location).toUpperCase()}** — ` : '';
      const speaker = text(v.quote_from) || (v.round ? `the founder of ${company}` : `a spokesperson for ${company}`);
      // A funding round's lead says what was raised; what the money is for follows. The founder speaks in the
      // first person about the plan ("With this round we will double our engineering team…") rather than
      // repeating the lead.
      const lead = v.round ? `${company} has raised ${text(v.amount)} in a ${round} round${investors ? ` led by ${investors}` : ''}.` : sentence(key);
      const plan = v.round ? firstPersonPlan(key, company) : null;
      const quote = plan ?? `${goals[0] ? `Our customers want to ${asPhrase(goals[0])}. ` : ''}${sentence(key)}`;
      const tractionLines = sentences(text(v.traction));
      // A round's About is who the company serves and who backs it, not what the money is for.
      const fundingAbout = [
        tractionLines.find((line) => line.toLowerCase().includes(company.toLowerCase())),
        investors ? `${company} is backed by ${investors}` : undefined,
      ]
        .filter((line): line is string => line !== undefined)
        .map(sentence)
        .join(' ');
      const about = text(v.boilerplate)
        ? sentence(text(v.boilerplate))
        : v.round
          ? fundingAbout || `${company} is backed by its ${round} investors.`
          : sentence(
              sentences(main).find((line) => line.toLowerCase().includes(company.toLowerCase()) && line.length > company.length + 10) ??
                `${company} makes ${subjectInline}`,
            );
      return join(
        'FOR IMMEDIATE RELEASE',
        `# ${clip(headline, 150)}`,
        `${place}${lead}`,
        ...sentences(main)
          .filter((line) => v.round || line !== key)
          .slice(0, 3)
          .map(sentence),
        tractionLines.length > 0 ? tractionLines.map(sentence).join(' ') : null,
        // A quote that ends a statement takes a comma before "said".
        `“${quote.replace(/\.$/, ',')}” said ${speaker}.`,
        termsLine,
        `## About ${company}`,
        about,
        '###',
      );
    }
  }
  return join(`# ${subject}`, sentence(key), termsLine);
}
