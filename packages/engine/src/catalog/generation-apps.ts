// The generation-app catalog (GET /generation-apps): one global, read-only list of content templates,
// two per category of DECISIONS.md. Each app pairs its public shape (the form a client renders) with its
// prompt template, which is never served: `{{name}}` is the value of input field `name`, `{{#name}}…{{/name}}`
// is kept only when the value is given (true, non-empty), `{{^name}}…{{/name}}` only when it is not.
import type { GenerationApp, GenerationAppInputField, GenerationInputValue } from '@persona-api/types';
import { CATALOG_CREATED_AT } from './define.js';

export interface GenerationAppEntry {
  app: GenerationApp;
  /** The user-turn prompt, rendered from `input_data` with `renderTemplate`. */
  template: string;
}

type FieldSpec = Pick<GenerationAppInputField, 'name' | 'label' | 'type'> & Partial<Omit<GenerationAppInputField, 'name' | 'label' | 'type'>>;

/** A field with every key of the contract's field schema; keys that do not apply to its type are null. */
function field(spec: FieldSpec): GenerationAppInputField {
  const textual = spec.type === 'text' || spec.type === 'textarea';
  const choice = spec.type === 'select' || spec.type === 'multi_select';
  const numeric = spec.type === 'number';
  if (choice && !spec.options?.length) throw new Error(`${spec.name}: a ${spec.type} field needs options`);
  return {
    name: spec.name,
    label: spec.label,
    type: spec.type,
    required: spec.required ?? false,
    options: choice ? (spec.options ?? null) : null,
    max_length: textual ? (spec.max_length ?? (spec.type === 'text' ? 200 : 2000)) : null,
    minimum: numeric ? (spec.minimum ?? null) : null,
    maximum: numeric ? (spec.maximum ?? null) : null,
    placeholder: spec.placeholder ?? null,
    help_text: spec.help_text ?? null,
    default_value: spec.default_value ?? null,
  };
}

interface AppSpec {
  id: `app_${string}`;
  name: string;
  category: GenerationApp['category'];
  description: string;
  output_content_type?: GenerationApp['output_content_type'];
  estimated_credits: number;
  max_output_tokens: number;
  fields: FieldSpec[];
  template: string;
}

const created = new Date(CATALOG_CREATED_AT * 1000).toISOString();

function defineApp(spec: AppSpec): GenerationAppEntry {
  const fields = spec.fields.map(field);
  // An authoring slip (a placeholder without a field) would leave `{{…}}` in every prompt.
  for (const [, name] of spec.template.matchAll(/\{\{[#^/]?([a-z][a-z0-9_]*)\}\}/g)) {
    if (!fields.some((f) => f.name === name)) throw new Error(`${spec.id}: the template names {{${name}}}, which is not a field`);
  }
  return {
    app: {
      id: spec.id,
      object: 'generation_app',
      name: spec.name,
      category: spec.category,
      description: spec.description,
      input_fields: fields,
      output_content_type: spec.output_content_type ?? 'markdown',
      estimated_credits: spec.estimated_credits,
      max_output_tokens: spec.max_output_tokens,
      created_at: created,
      updated_at: created,
    },
    template: spec.template,
  };
}

const TONES = ['professional', 'conversational', 'bold', 'inspirational', 'playful'];
const tone = (fallback = 'professional'): FieldSpec => ({ name: 'tone', label: 'Tone', type: 'select', options: TONES, default_value: fallback });
const audience: FieldSpec = { name: 'audience', label: 'Audience', type: 'text', placeholder: 'e.g. Remote workers, marketing leaders' };
const cta: FieldSpec = { name: 'call_to_action', label: 'Call to action', type: 'text', placeholder: 'e.g. Start your free trial' };

const ENTRIES: readonly GenerationAppEntry[] = [
  defineApp({
    id: 'app_linkedin_post',
    name: 'LinkedIn Post',
    category: 'social_post',
    description: 'A LinkedIn post that opens with a hook, tells one story or insight and ends with a clear call to action. Optional hashtags.',
    estimated_credits: 8,
    max_output_tokens: 600,
    fields: [
      { name: 'topic', label: 'What is the post about?', type: 'textarea', required: true, max_length: 1000, help_text: 'The news, idea or story to share.' },
      audience,
      tone(),
      {
        name: 'post_length',
        label: 'Length',
        type: 'select',
        options: ['short', 'medium', 'long'],
        default_value: 'medium',
        help_text: 'Short is about 50 words, medium about 150, long about 300.',
      },
      { name: 'include_hashtags', label: 'Add hashtags', type: 'boolean', default_value: true },
    ],
    template:
      'Write a {{post_length}} LinkedIn post about: {{topic}}\n{{#audience}}It is for {{audience}}.\n{{/audience}}Tone: {{tone}}. Open with a one-line hook that stops the scroll, share one concrete story or insight in short paragraphs, and end with a question or call to action.{{#include_hashtags}} Finish with three relevant hashtags.{{/include_hashtags}}{{^include_hashtags}} Use no hashtags.{{/include_hashtags}}',
  }),
  defineApp({
    id: 'app_instagram_caption',
    name: 'Instagram Caption',
    category: 'social_post',
    description: 'A short Instagram caption for a photo or reel: a hook, a line of story, a call to action and hashtags.',
    estimated_credits: 5,
    max_output_tokens: 300,
    fields: [
      { name: 'image_description', label: 'What does the picture or reel show?', type: 'textarea', required: true, max_length: 1000 },
      { name: 'goal', label: 'Goal', type: 'select', options: ['engagement', 'traffic', 'sales', 'awareness'], default_value: 'engagement' },
      tone('playful'),
      { name: 'hashtag_count', label: 'Number of hashtags', type: 'number', minimum: 0, maximum: 30, default_value: 5 },
      { name: 'include_emojis', label: 'Use emojis', type: 'boolean', default_value: true },
    ],
    template:
      'Write an Instagram caption for a post showing: {{image_description}}\nGoal: {{goal}}. Tone: {{tone}}. Keep it under 60 words, start with a hook, end with a call to action, then add {{hashtag_count}} hashtags.{{#include_emojis}} Use a few fitting emojis.{{/include_emojis}}{{^include_emojis}} Use no emojis.{{/include_emojis}}',
  }),
  defineApp({
    id: 'app_blog_article',
    name: 'Blog Article',
    category: 'blog_article',
    description: 'A structured blog article with a title, an introduction, sections with subheadings and a conclusion.',
    estimated_credits: 30,
    max_output_tokens: 3000,
    fields: [
      { name: 'topic', label: 'Topic', type: 'textarea', required: true, max_length: 2000, placeholder: 'e.g. How to brew cold brew at home' },
      { name: 'keywords', label: 'Keywords', type: 'text', max_length: 300, help_text: 'Comma-separated keywords to work in naturally.' },
      audience,
      { name: 'word_count', label: 'Approximate length in words', type: 'number', minimum: 300, maximum: 3000, default_value: 1000 },
      tone('conversational'),
      { name: 'outline', label: 'Outline', type: 'textarea', max_length: 4000, help_text: 'One section per line, if you already have a plan.' },
    ],
    template:
      'Write a blog article of about {{word_count}} words on: {{topic}}\n{{#audience}}Readers: {{audience}}.\n{{/audience}}{{#keywords}}Work in these keywords naturally: {{keywords}}.\n{{/keywords}}{{#outline}}Follow this outline:\n{{outline}}\n{{/outline}}Tone: {{tone}}. Use a # title, a short introduction, ## sections with concrete advice and examples, and a conclusion with a next step.',
  }),
  defineApp({
    id: 'app_listicle',
    name: 'Listicle',
    category: 'blog_article',
    description: 'A numbered list article ("7 ways to…") with a short introduction, one paragraph per item and a wrap-up.',
    estimated_credits: 20,
    max_output_tokens: 2000,
    fields: [
      { name: 'topic', label: 'Topic', type: 'text', required: true, max_length: 300, placeholder: 'e.g. ways to cut your cloud bill' },
      { name: 'item_count', label: 'Number of items', type: 'number', minimum: 3, maximum: 20, default_value: 7 },
      audience,
      tone('conversational'),
    ],
    template:
      'Write a listicle titled with the number of items: {{item_count}} {{topic}}.\n{{#audience}}Readers: {{audience}}.\n{{/audience}}Tone: {{tone}}. Give a two-sentence introduction, then {{item_count}} numbered items, each with a bold lead-in and one practical paragraph, then a short wrap-up.',
  }),
  defineApp({
    id: 'app_promotional_email',
    name: 'Promotional Email',
    category: 'email',
    description: 'A promotional email with a subject line, a preview text and an HTML body with one clear call to action.',
    output_content_type: 'html',
    estimated_credits: 10,
    max_output_tokens: 1000,
    fields: [
      { name: 'offer', label: 'What are you promoting?', type: 'textarea', required: true, max_length: 1500 },
      audience,
      { ...cta, required: true },
      { name: 'deadline', label: 'Offer ends', type: 'text', max_length: 100, placeholder: 'e.g. Sunday midnight' },
      tone(),
    ],
    template:
      'Write a promotional email for: {{offer}}\n{{#audience}}Recipients: {{audience}}.\n{{/audience}}Call to action: {{call_to_action}}.{{#deadline}} The offer ends {{deadline}}; say so once.{{/deadline}}\nTone: {{tone}}. Start with "Subject:" and "Preview:" lines, then a greeting, two or three short paragraphs and the call to action as a link.',
  }),
  defineApp({
    id: 'app_cold_outreach_email',
    name: 'Cold Outreach Email',
    category: 'email',
    description: 'A short, personal first-touch sales email: a relevant opener, the problem you solve, proof and a low-friction ask.',
    estimated_credits: 6,
    max_output_tokens: 500,
    fields: [
      {
        name: 'recipient_role',
        label: 'Who are you writing to?',
        type: 'text',
        required: true,
        max_length: 200,
        placeholder: 'e.g. Head of Finance at a 200-person SaaS company',
      },
      { name: 'product', label: 'What do you offer?', type: 'textarea', required: true, max_length: 1000 },
      { name: 'pain_point', label: 'Their likely problem', type: 'textarea', max_length: 1000 },
      { name: 'proof', label: 'Proof', type: 'text', max_length: 300, help_text: 'A customer result or number.' },
      { name: 'ask', label: 'The ask', type: 'select', options: ['15-minute call', 'reply', 'demo', 'resource download'], default_value: '15-minute call' },
    ],
    template:
      'Write a cold outreach email to a {{recipient_role}} about: {{product}}\n{{#pain_point}}Their likely problem: {{pain_point}}.\n{{/pain_point}}{{#proof}}Proof to mention: {{proof}}.\n{{/proof}}Ask for a {{ask}}. Under 120 words, a "Subject:" line first, no flattery, one question at the end.',
  }),
  defineApp({
    id: 'app_search_ad',
    name: 'Search Ad',
    category: 'ad_copy',
    description: 'Responsive search ad copy: headlines of at most 30 characters and descriptions of at most 90.',
    estimated_credits: 5,
    max_output_tokens: 400,
    fields: [
      { name: 'product', label: 'Product or service', type: 'textarea', required: true, max_length: 1000 },
      { name: 'keywords', label: 'Target keywords', type: 'text', required: true, max_length: 300 },
      {
        name: 'unique_selling_points',
        label: 'Selling points',
        type: 'multi_select',
        options: ['price', 'speed', 'quality', 'support', 'free trial', 'free shipping', 'guarantee'],
      },
      { name: 'headline_count', label: 'Number of headlines', type: 'number', minimum: 3, maximum: 15, default_value: 5 },
    ],
    template:
      'Write search ad copy for: {{product}}\nTarget keywords: {{keywords}}.{{#unique_selling_points}} Stress: {{unique_selling_points}}.{{/unique_selling_points}}\nGive {{headline_count}} headlines of at most 30 characters and 3 descriptions of at most 90 characters, as two lists under "Headlines" and "Descriptions".',
  }),
  defineApp({
    id: 'app_social_ad',
    name: 'Social Media Ad',
    category: 'ad_copy',
    description: 'A social ad (Facebook, Instagram, LinkedIn): primary text, headline and call-to-action button, in variants.',
    estimated_credits: 6,
    max_output_tokens: 500,
    fields: [
      { name: 'product', label: 'Product or offer', type: 'textarea', required: true, max_length: 1000 },
      { name: 'platform', label: 'Platform', type: 'select', required: true, options: ['facebook', 'instagram', 'linkedin', 'tiktok'] },
      audience,
      { name: 'variants', label: 'Variants', type: 'number', minimum: 1, maximum: 5, default_value: 2 },
      tone('bold'),
    ],
    template:
      'Write {{variants}} {{platform}} ad variants for: {{product}}\n{{#audience}}Targeting: {{audience}}.\n{{/audience}}Tone: {{tone}}. For each variant give the primary text (at most 125 characters), a headline (at most 40) and a call-to-action button label.',
  }),
  defineApp({
    id: 'app_landing_page',
    name: 'Landing Page',
    category: 'landing_page',
    description: 'Landing-page copy in HTML: hero headline and subheadline, benefits, how it works, social proof, FAQ and a call to action.',
    output_content_type: 'html',
    estimated_credits: 25,
    max_output_tokens: 2500,
    fields: [
      { name: 'product', label: 'Product', type: 'textarea', required: true, max_length: 2000 },
      audience,
      { name: 'benefits', label: 'Key benefits', type: 'textarea', max_length: 2000, help_text: 'One per line.' },
      { ...cta, default_value: 'Get started' },
      {
        name: 'sections',
        label: 'Sections',
        type: 'multi_select',
        options: ['benefits', 'how_it_works', 'testimonials', 'faq', 'pricing'],
        default_value: ['benefits', 'how_it_works', 'faq'],
      },
    ],
    template:
      'Write landing-page copy for: {{product}}\n{{#audience}}Visitors: {{audience}}.\n{{/audience}}{{#benefits}}Key benefits:\n{{benefits}}\n{{/benefits}}Include a hero headline and subheadline, then these sections: {{sections}}, and close with the call to action "{{call_to_action}}". Use headings for sections.',
  }),
  defineApp({
    id: 'app_webinar_page',
    name: 'Webinar Registration Page',
    category: 'landing_page',
    description: 'A webinar or event registration page in HTML: title, what attendees learn, speakers, date and a sign-up call to action.',
    output_content_type: 'html',
    estimated_credits: 15,
    max_output_tokens: 1500,
    fields: [
      { name: 'event_title', label: 'Event title', type: 'text', required: true, max_length: 200 },
      { name: 'topic', label: 'What is it about?', type: 'textarea', required: true, max_length: 1500 },
      { name: 'speakers', label: 'Speakers', type: 'text', max_length: 300 },
      { name: 'date_time', label: 'Date and time', type: 'text', max_length: 100 },
      { name: 'learning_points', label: 'What attendees learn', type: 'number', minimum: 2, maximum: 6, default_value: 3 },
    ],
    template:
      'Write a registration page for the webinar "{{event_title}}" about: {{topic}}\n{{#speakers}}Speakers: {{speakers}}.\n{{/speakers}}{{#date_time}}When: {{date_time}}.\n{{/date_time}}List {{learning_points}} things attendees will learn, who should attend, and end with a "Save my seat" call to action.',
  }),
  defineApp({
    id: 'app_product_description',
    name: 'Product Description',
    category: 'product_description',
    description: 'An e-commerce product description: an opening line that sells, a paragraph of benefits and a feature list.',
    estimated_credits: 8,
    max_output_tokens: 700,
    fields: [
      { name: 'product_name', label: 'Product name', type: 'text', required: true, max_length: 200 },
      { name: 'features', label: 'Features and specs', type: 'textarea', required: true, max_length: 3000, help_text: 'One per line.' },
      audience,
      { name: 'length', label: 'Length', type: 'select', options: ['short', 'medium', 'long'], default_value: 'medium' },
      tone('conversational'),
    ],
    template:
      'Write a {{length}} product description for {{product_name}}.\nFeatures and specs:\n{{features}}\n{{#audience}}Shoppers: {{audience}}.\n{{/audience}}Tone: {{tone}}. Open with one line that sells the main benefit, then a paragraph on what it does for the buyer, then a bullet list of features.',
  }),
  defineApp({
    id: 'app_marketplace_bullets',
    name: 'Marketplace Bullet Points',
    category: 'product_description',
    description: 'Benefit-led bullet points for a marketplace listing (Amazon-style), each starting with a short capitalised lead.',
    estimated_credits: 5,
    max_output_tokens: 500,
    fields: [
      { name: 'product_name', label: 'Product name', type: 'text', required: true, max_length: 200 },
      { name: 'features', label: 'Features', type: 'textarea', required: true, max_length: 3000 },
      { name: 'bullet_count', label: 'Number of bullets', type: 'number', minimum: 3, maximum: 10, default_value: 5 },
    ],
    template:
      'Write {{bullet_count}} marketplace bullet points for {{product_name}} from these features:\n{{features}}\nEach bullet starts with a short capitalised lead, then one sentence on the benefit to the buyer. At most 200 characters per bullet.',
  }),
  defineApp({
    id: 'app_short_video_script',
    name: 'Short Video Script',
    category: 'video_script',
    description:
      'A script for a 15–60 second vertical video (Reels, TikTok, Shorts): a hook in the first seconds, scenes with visuals and voice-over, a call to action.',
    estimated_credits: 8,
    max_output_tokens: 800,
    fields: [
      { name: 'topic', label: 'What is the video about?', type: 'textarea', required: true, max_length: 1500 },
      { name: 'duration_seconds', label: 'Duration (seconds)', type: 'number', minimum: 15, maximum: 60, default_value: 30 },
      { name: 'platform', label: 'Platform', type: 'select', options: ['tiktok', 'instagram_reels', 'youtube_shorts'], default_value: 'tiktok' },
      cta,
    ],
    template:
      'Write a {{duration_seconds}}-second {{platform}} video script about: {{topic}}\nStart with a hook in the first 3 seconds. Give scenes with timings, each with [Visual] and [Voiceover] lines.{{#call_to_action}} End with the call to action: {{call_to_action}}.{{/call_to_action}}',
  }),
  defineApp({
    id: 'app_explainer_video_script',
    name: 'Explainer Video Script',
    category: 'video_script',
    description: 'A 1–5 minute explainer or YouTube script: problem, solution, how it works, proof and a call to action.',
    estimated_credits: 20,
    max_output_tokens: 2000,
    fields: [
      { name: 'product', label: 'Product or idea', type: 'textarea', required: true, max_length: 2000 },
      audience,
      { name: 'duration_minutes', label: 'Duration (minutes)', type: 'number', minimum: 1, maximum: 5, default_value: 2 },
      tone('conversational'),
      { name: 'include_b_roll', label: 'Suggest B-roll', type: 'boolean', default_value: false },
    ],
    template:
      'Write a {{duration_minutes}}-minute explainer video script for: {{product}}\n{{#audience}}Viewers: {{audience}}.\n{{/audience}}Tone: {{tone}}. Sections: the problem, the solution, how it works, proof, call to action, each with narration.{{#include_b_roll}} Suggest B-roll shots for each section.{{/include_b_roll}}',
  }),
  defineApp({
    id: 'app_press_release',
    name: 'Press Release',
    category: 'press_release',
    description: 'A news release in AP style: headline, dateline, lead paragraph, a quote, supporting details, boilerplate and ###.',
    estimated_credits: 15,
    max_output_tokens: 1500,
    fields: [
      { name: 'announcement', label: 'What are you announcing?', type: 'textarea', required: true, max_length: 3000 },
      { name: 'company_name', label: 'Company name', type: 'text', required: true, max_length: 200 },
      { name: 'location', label: 'Dateline city', type: 'text', max_length: 100, placeholder: 'e.g. Berlin' },
      { name: 'quote_from', label: 'Quote from', type: 'text', max_length: 200, placeholder: 'e.g. Ana Ortega, CEO' },
      { name: 'boilerplate', label: 'About the company', type: 'textarea', max_length: 1500 },
    ],
    template:
      'Write a press release for {{company_name}} announcing: {{announcement}}\n{{#location}}Dateline: {{location}}.\n{{/location}}{{#quote_from}}Include a quote from {{quote_from}}.\n{{/quote_from}}{{#boilerplate}}About the company: {{boilerplate}}\n{{/boilerplate}}Use a headline, a lead paragraph answering who, what, when, where and why, supporting details, the "About {{company_name}}" boilerplate and end with ###.',
  }),
  defineApp({
    id: 'app_funding_announcement',
    name: 'Funding Announcement',
    category: 'press_release',
    description: 'A funding-round announcement: the round and investors, what the money is for, traction, quotes and boilerplate.',
    estimated_credits: 15,
    max_output_tokens: 1500,
    fields: [
      { name: 'company_name', label: 'Company name', type: 'text', required: true, max_length: 200 },
      { name: 'round', label: 'Round', type: 'select', required: true, options: ['pre-seed', 'seed', 'series A', 'series B', 'series C', 'growth'] },
      { name: 'amount', label: 'Amount', type: 'text', required: true, max_length: 100, placeholder: 'e.g. $12 million' },
      { name: 'investors', label: 'Investors', type: 'text', max_length: 500 },
      { name: 'use_of_funds', label: 'What the money is for', type: 'textarea', required: true, max_length: 2000 },
      { name: 'traction', label: 'Traction', type: 'textarea', max_length: 1500 },
    ],
    template:
      'Write a funding announcement: {{company_name}} raised {{amount}} in a {{round}} round{{#investors}} led by {{investors}}{{/investors}}.\nThe money is for: {{use_of_funds}}\n{{#traction}}Traction so far: {{traction}}\n{{/traction}}Use a headline, a lead paragraph, a founder quote, an investor quote, details on the plans and an "About {{company_name}}" paragraph; end with ###.',
  }),
];

const BY_ID = new Map(ENTRIES.map((entry) => [entry.app.id, entry]));

/** The catalog in its public shape, as `GET /generation-apps` serves it. */
export const generationApps: readonly GenerationApp[] = Object.freeze(ENTRIES.map((entry) => entry.app));

export function getGenerationApp(id: string): GenerationApp | undefined {
  return BY_ID.get(id)?.app;
}

/** The app's prompt template (never served). */
export function generationAppTemplate(id: string): string | undefined {
  return BY_ID.get(id)?.template;
}

const given = (value: GenerationInputValue | null | undefined) =>
  value !== undefined &&
  value !== null &&
  value !== false &&
  !(typeof value === 'string' && value.trim() === '') &&
  !(Array.isArray(value) && value.length === 0);

const asText = (value: GenerationInputValue) => (Array.isArray(value) ? value.join(', ') : String(value));

/** Fills a template with the values (defaults already applied): sections first, then placeholders. */
export function renderTemplate(template: string, values: Readonly<Record<string, GenerationInputValue | null | undefined>>): string {
  const sections = template.replace(/\{\{([#^])([a-z][a-z0-9_]*)\}\}([\s\S]*?)\{\{\/\2\}\}/g, (_, kind: string, name: string, inner: string) =>
    given(values[name]) === (kind === '#') ? inner : '',
  );
  return sections.replace(/\{\{([a-z][a-z0-9_]*)\}\}/g, (_, name: string) => {
    const value = values[name];
    return value === undefined || value === null ? '' : asText(value);
  });
}
