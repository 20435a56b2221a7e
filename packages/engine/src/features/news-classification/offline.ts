// The offline news classifier: transparent keyword rules. Each topic has cue stems (Porter stems of the
// headline, summary and feed categories); a topic's score is its number of cue hits, headline hits counting
// double; the best topic and those scoring at least 2 are returned best first (at most 5), else `world`. The region is the first
// country named (by name, demonym or capital) in the headline, then in the summary; null when none.
import { stem, words } from '../../text/index.js';

export const NEWS_TOPICS = [
  'business',
  'economy',
  'finance',
  'technology',
  'science',
  'health',
  'politics',
  'world',
  'energy',
  'climate',
  'retail',
  'marketing',
  'media',
  'sports',
  'entertainment',
  'lifestyle',
] as const;
export type NewsTopicName = (typeof NEWS_TOPICS)[number];

const TOPIC_CUES: Record<NewsTopicName, readonly string[]> = {
  business: [
    'compani',
    'busi',
    'ceo',
    'startup',
    'merger',
    'acquisit',
    'acquir',
    'revenu',
    'profit',
    'earn',
    'firm',
    'corpor',
    'layoff',
    'hire',
    'industri',
    'manufactur',
    'supplier',
  ],
  economy: ['economi', 'econom', 'inflat', 'gdp', 'recess', 'unemploy', 'job', 'wage', 'tariff', 'trade', 'growth', 'consum', 'price', 'cost'],
  finance: [
    'bank',
    'stock',
    'market',
    'investor',
    'invest',
    'interest',
    'rate',
    'bond',
    'share',
    'fund',
    'loan',
    'credit',
    'crypto',
    'bitcoin',
    'ipo',
    'central',
  ],
  technology: [
    'datenschutz',
    'ai',
    'softwar',
    'app',
    'chip',
    'semiconductor',
    'tech',
    'technolog',
    'comput',
    'cloud',
    'data',
    'cyber',
    'robot',
    'smartphon',
    'internet',
    'digit',
    'algorithm',
    'model',
  ],
  science: ['scienc', 'scientist', 'research', 'studi', 'space', 'nasa', 'physic', 'biolog', 'discoveri', 'telescop', 'experi', 'laboratori', 'lab'],
  health: ['health', 'hospit', 'diseas', 'vaccin', 'patient', 'doctor', 'medic', 'drug', 'cancer', 'virus', 'nutrit', 'mental', 'diet', 'clinic'],
  politics: [
    'bundestag',
    'gesetz',
    'regierung',
    'wahl',
    'elect',
    'vote',
    'govern',
    'minist',
    'parliament',
    'presid',
    'polici',
    'law',
    'regul',
    'senat',
    'congress',
    'parti',
    'polit',
    'bill',
    'chancellor',
  ],
  world: ['war', 'unit', 'nation', 'intern', 'border', 'diplomat', 'summit', 'refuge', 'conflict', 'treati', 'un', 'nato', 'foreign'],
  // Not 'renew': "renewal" (a contract's) and "renewable" share that stem.
  energy: ['energi', 'oil', 'ga', 'power', 'electr', 'solar', 'wind', 'nuclear', 'grid', 'fuel', 'batteri', 'hydrogen'],
  climate: ['climat', 'emiss', 'carbon', 'warm', 'heatwav', 'flood', 'drought', 'environ', 'sustain', 'co2', 'wildfir', 'biodivers', 'green'],
  retail: ['retail', 'store', 'shop', 'shopper', 'ecommerc', 'e-commerc', 'supermarket', 'groceri', 'checkout', 'brand', 'sale', 'black', 'friday', 'deliveri'],
  marketing: ['market', 'advertis', 'ad', 'campaign', 'brand', 'influenc', 'social', 'seo', 'sponsor', 'loyalti', 'custom'],
  media: ['media', 'newspap', 'journal', 'broadcast', 'stream', 'publish', 'podcast', 'televis', 'tv', 'press', 'news'],
  sports: ['sport', 'match', 'leagu', 'footbal', 'soccer', 'tenni', 'olymp', 'championship', 'tournament', 'cup', 'coach', 'player', 'team', 'game'],
  entertainment: ['film', 'movi', 'music', 'album', 'concert', 'celebr', 'festiv', 'seri', 'netflix', 'actor', 'singer', 'award', 'box', 'game'],
  lifestyle: ['food', 'travel', 'fashion', 'recip', 'home', 'famili', 'parent', 'wellb', 'fit', 'holidai', 'restaur', 'style', 'hobbi'],
};

// Country cues (lower case, matched as whole words or phrases) → ISO 3166-1 alpha-2.
const COUNTRIES: ReadonlyArray<[string, readonly string[]]> = [
  ['US', ['united states', 'u.s.', 'us', 'usa', 'american', 'washington', 'new york', 'california', 'texas']],
  ['GB', ['united kingdom', 'uk', 'britain', 'british', 'london', 'england', 'scotland']],
  ['DE', ['germany', 'german', 'berlin', 'munich', 'deutschland', 'deutsche', 'deutschen', 'bundestag']],
  ['FR', ['france', 'french', 'paris']],
  ['ES', ['spain', 'spanish', 'madrid']],
  ['IT', ['italy', 'italian', 'rome', 'milan']],
  ['NL', ['netherlands', 'dutch', 'amsterdam']],
  ['CH', ['switzerland', 'swiss', 'zurich', 'geneva', 'schweiz']],
  ['AT', ['austria', 'austrian', 'vienna', 'österreich', 'wien']],
  ['SE', ['sweden', 'swedish', 'stockholm']],
  ['PL', ['poland', 'polish', 'warsaw']],
  ['CN', ['china', 'chinese', 'beijing', 'shanghai']],
  ['JP', ['japan', 'japanese', 'tokyo']],
  ['IN', ['india', 'indian', 'delhi', 'mumbai']],
  ['BR', ['brazil', 'brazilian']],
  ['CA', ['canada', 'canadian', 'toronto']],
  ['AU', ['australia', 'australian', 'sydney']],
  ['MX', ['mexico', 'mexican']],
  ['KR', ['south korea', 'korean', 'seoul']],
  ['RU', ['russia', 'russian', 'moscow']],
  ['UA', ['ukraine', 'ukrainian', 'kyiv']],
];

function regionOf(text: string): { region: string; at: number } | null {
  const lower = ` ${text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}.\s]/gu, ' ')
    .replace(/\s+/g, ' ')} `;
  let best: { region: string; at: number } | null = null;
  for (const [code, cues] of COUNTRIES) {
    for (const cue of cues) {
      const at = lower.indexOf(` ${cue} `);
      if (at >= 0 && (best === null || at < best.at)) best = { region: code, at };
    }
  }
  return best;
}

const MIN_TOPIC_SCORE = 2;

export function classifyStory(title: string, summary: string, categories: readonly string[]): { topics: NewsTopicName[]; region: string | null } {
  const score = new Map<NewsTopicName, number>();
  const count = (text: string, weight: number) => {
    for (const word of words(text)) {
      const s = stem(word);
      for (const topic of NEWS_TOPICS) if (TOPIC_CUES[topic].includes(s)) score.set(topic, (score.get(topic) ?? 0) + weight);
    }
  };
  count(title, 2);
  count(summary, 1);
  count(categories.join(' '), 2);
  const ranked = NEWS_TOPICS.filter((topic) => (score.get(topic) ?? 0) > 0).sort(
    (a, b) => (score.get(b) ?? 0) - (score.get(a) ?? 0) || NEWS_TOPICS.indexOf(a) - NEWS_TOPICS.indexOf(b),
  );
  // A topic needs a headline or category hit, or two in the summary: one passing word ("collectors on
  // social media say") does not make a sneaker story a media story. The best topic stays either way.
  const [best] = ranked;
  const kept = ranked.filter((topic) => topic === best || (score.get(topic) ?? 0) >= MIN_TOPIC_SCORE);
  const region = regionOf(title) ?? regionOf(summary);
  return { topics: kept.length > 0 ? kept.slice(0, 5) : ['world'], region: region?.region ?? null };
}
