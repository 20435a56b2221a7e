// The content-generation text feature and the generation-app catalog: offline content computed from the
// inputs (each category's document shape, the persona's goals, the voice's terms), deterministic, within
// the app's output budget; streamed by both engines through `streamText`, upstream with the system prompt
// carrying the audience and the voice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basePersonas,
  contentGeneration,
  createOfflineEngine,
  createOpenAICompatibleEngine,
  enginePersonaFromBase,
  generationApps,
  generationAppTemplate,
  renderTemplate,
  type ContentGenerationInput,
  type Engine,
  type EngineStreamEvent,
} from '../../src/index.js';
import { countTokens } from '../../src/tokens.js';
import { startFakeUpstream, type FakeUpstream } from '../../src/testing/index.js';

const BRIEF = 'Our cold brew concentrate is slow-steeped for 18 hours from washed Colombian beans. It saves busy teams ten minutes every morning.';
const sentenceOf = (brief: string) => brief.split(/(?<=\.)\s/)[0]!;
// A brief that touches the test persona's (the SaaS CFO's) goals and pains; the cold brew one touches none.
const CLOSEWISE =
  'Closewise automates the month-end close for mid-size SaaS finance teams: bank reconciliations, accruals and a close checklist in one place. Teams close in 5 days instead of 9.';

function inputFor(appId: string, extra: Record<string, unknown> = {}, persona = false, voice = false): ContentGenerationInput {
  const app = generationApps.find((candidate) => candidate.id === appId)!;
  const values: Record<string, any> = {};
  for (const field of app.input_fields) {
    if (field.default_value !== null) values[field.name] = field.default_value;
    else if (field.required) values[field.name] = field.type === 'select' ? field.options![0] : field.type === 'number' ? field.minimum : BRIEF;
  }
  Object.assign(values, extra);
  return {
    app,
    prompt: renderTemplate(generationAppTemplate(app.id)!, values),
    values,
    persona: persona ? enginePersonaFromBase(basePersonas[0]!) : null,
    voice: voice
      ? {
          label: 'House',
          voice_summary: 'Warm and concrete.',
          tone: { adjectives: ['playful'], dos: ['Use numbers'], donts: ['Overpromise'] },
          writing_style: { sentence_structure: 'Short sentences.', jargon_usage: 'None.' },
          vocabulary: { preferred_terms: ['small-batch', 'hand-picked'], avoid_terms: ['cheap'] },
          example_phrases: [{ use_case: 'Tagline', example: 'Coffee that waits for you.' }],
        }
      : null,
  };
}

async function collect(events: AsyncIterable<EngineStreamEvent>) {
  let text = '';
  let done: Extract<EngineStreamEvent, { type: 'done' }>['result'] | null = null;
  for await (const event of events) {
    if (event.type === 'text_delta') text += event.delta;
    if (event.type === 'done') done = event.result;
  }
  return { text, done: done! };
}

describe('the offline content', () => {
  it('writes a press release, a landing page and a script that read as written: no doubled name, steps from the brief, no keyword salad', async () => {
    const brief =
      'Closewise automates the month-end close for finance teams: bank reconciliations, accruals and variance reports in one workspace. Customers close in 5 days instead of 12.';
    const release = (await collect(engine.streamText(contentGeneration, inputFor('app_press_release', { company_name: 'Closewise', announcement: brief }))))
      .text;
    expect(release).toContain('# Closewise automates the month-end close for finance teams\n');
    expect(release).not.toContain('Closewise: Closewise');
    // A quote that ends a statement takes a comma before "said".
    expect(release).toMatch(/workspace,” said a spokesperson for Closewise\./);
    expect(release).not.toMatch(/\.” said/);
    // Was "Closewise closewise, automates, month-end." — its terms in a row.
    expect(release.split('## About Closewise\n\n')[1]).toMatch(/^Closewise automates the month-end close/);

    const page = (await collect(engine.streamText(contentGeneration, inputFor('app_landing_page', { product: brief }, true)))).text;
    expect(page).toContain('## How it works\n\n1. Bank reconciliations\n2. Accruals\n3. Variance reports in one workspace');
    expect(page).toMatch(/Made for (a|an) /);
    const withoutList = (await collect(engine.streamText(contentGeneration, inputFor('app_landing_page', { product: 'Closewise closes the books faster.' }))))
      .text;
    expect(withoutList).not.toContain('## How it works');

    // The search ad's keywords field is required: the test's default (the cold brew brief) stands in.
    const ad = (await collect(engine.streamText(contentGeneration, inputFor('app_search_ad', { product: brief, keywords: '' })))).text;
    const post = (await collect(engine.streamText(contentGeneration, inputFor('app_linkedin_post', { topic: brief })))).text;
    expect(ad).not.toMatch(/^- Automates$/m);
    expect(post).toMatch(/#Closewise/);
    expect(post).not.toContain('#Automates');
    // A hashtag is written as the brief writes the word (was "#Saas").
    const caption = (await collect(engine.streamText(contentGeneration, inputFor('app_instagram_caption', { image_description: CLOSEWISE, hashtag_count: 5 }))))
      .text;
    expect(caption).toContain('#SaaS');

    // Was seven items that repeated the brief's two sentences in turn, under "# 7 Closewise".
    const listicle = (await collect(engine.streamText(contentGeneration, inputFor('app_listicle', { topic: brief, item_count: 7 }, true)))).text;
    const items = [...listicle.matchAll(/^\d+\. \*\*(.+?)\*\*/gm)].map((match) => match[1]!);
    expect(new Set(items).size).toBe(items.length);
    expect(listicle).toMatch(new RegExp(`^# .+: ${items.length} things to know$`, 'm'));
    const email = (await collect(engine.streamText(contentGeneration, inputFor('app_promotional_email', { offer: brief }, true)))).text;
    expect(email).toContain('\n\nHi,\n\n');

    const description = (
      await collect(engine.streamText(contentGeneration, inputFor('app_product_description', { product_name: 'Closewise', features: brief })))
    ).text;
    // Was "**Closewise** — Closewise automates …", and one bullet holding the whole brief.
    expect(description).toMatch(/^\*\*Closewise\*\* automates the month-end close/);
    expect(description).toContain('\n- Bank reconciliations\n- Accruals\n- Variance reports in one workspace');

    const script = (await collect(engine.streamText(contentGeneration, inputFor('app_explainer_video_script', { product: brief }, true)))).text;
    expect(script).not.toContain('closewise');
    const voiceover = [...script.matchAll(/\[Voiceover\] (.+)/g)].map((match) => match[1]!);
    expect(new Set(voiceover).size).toBe(voiceover.length);
  });

  it('writes a funding announcement, a blog article and a webinar page that say each thing once, in its place', async () => {
    const release = (
      await collect(
        engine.streamText(
          contentGeneration,
          inputFor('app_funding_announcement', {
            company_name: 'Closewise',
            round: 'series A',
            amount: '$12 million',
            investors: 'Northstar Ventures and Elm Capital',
            use_of_funds: 'Closewise will use the funding to double its engineering team and launch a multi-entity close.',
            traction: 'More than 300 finance teams use Closewise.',
          }),
        ),
      )
    ).text;
    expect(release).toContain('# Closewise raises $12 million Series A round led by Northstar Ventures and Elm Capital\n');
    expect(release).toContain('Closewise has raised $12 million in a Series A round led by Northstar Ventures and Elm Capital.\n');
    // The founder speaks of the plan in the first person, not the lead again; About is not the use of funds.
    expect(release).toContain('“With this round we will double our engineering team and launch a multi-entity close,” said the founder of Closewise.');
    expect(release.split('## About Closewise\n\n')[1]).toBe(
      'More than 300 finance teams use Closewise. Closewise is backed by Northstar Ventures and Elm Capital.\n\n###',
    );

    const article = (await collect(engine.streamText(contentGeneration, inputFor('app_blog_article', { topic: CLOSEWISE })))).text;
    // Was a heading cut with "…" over a body that repeated the opening sentence.
    expect(article).toContain(
      '## Closewise automates the month-end close for mid-size SaaS finance teams\n\nBank reconciliations, accruals and a close checklist in one place.',
    );
    expect(article).not.toContain('…');
    expect(article.split(sentenceOf(CLOSEWISE)).length).toBe(2);

    const webinar = (
      await collect(
        engine.streamText(contentGeneration, inputFor('app_webinar_page', { event_title: 'Close the books in 5 days', topic: CLOSEWISE, learning_points: 4 })),
      )
    ).text;
    expect(webinar).toContain(
      '## What you will learn\n\n- How Closewise automates the month-end close for mid-size SaaS finance teams\n- How teams close in 5 days instead of 9\n- Bank reconciliations\n- Accruals',
    );
  });

  it("puts the brief's figure where it proves something, and never cuts a sentence of the brief", async () => {
    const email = (
      await collect(
        engine.streamText(contentGeneration, inputFor('app_promotional_email', { offer: CLOSEWISE, call_to_action: 'Start your free trial' }, true)),
      )
    ).text;
    // Was "Subject: Closewise" over "Preview: Closewise automates … finance teams: bank…".
    expect(email).toMatch(
      /^Subject: Closewise: teams close in 5 days instead of 9\n\nPreview: Closewise automates the month-end close for mid-size SaaS finance teams\.\n/,
    );
    const script = (await collect(engine.streamText(contentGeneration, inputFor('app_short_video_script', { topic: CLOSEWISE }, true)))).text;
    const beat = (label: string) => new RegExp(`· ${label}\\*\\*\\n\\n\\[Visual\\] [^\\n]+\\n\\n\\[Voiceover\\] ([^\\n]+)`).exec(script)?.[1];
    // The problem was "Teams close in 5 days instead of 9." — a result; it is the proof.
    expect(beat('Problem')).not.toContain('5 days');
    expect(beat('Proof')).toBe('Teams close in 5 days instead of 9.');
    const listicle = (await collect(engine.streamText(contentGeneration, inputFor('app_listicle', { topic: CLOSEWISE }, true)))).text;
    expect(listicle).toContain('1. **Closewise automates the month-end close for mid-size SaaS finance teams**');
    expect(listicle).not.toContain('…');
    // A goal follows only the item it shares a word with: none beside "Accruals".
    expect(listicle).toMatch(/^\d\. \*\*Accruals\*\*$/m);
    const page = (await collect(engine.streamText(contentGeneration, inputFor('app_landing_page', { product: CLOSEWISE }, true)))).text;
    expect(page).toContain('## Benefits\n\n- Closewise automates the month-end close for mid-size SaaS finance teams\n- Teams close in 5 days instead of 9\n');
    // "Who maintains this after your implementation team leaves?" shares only "team" with the brief: not answered with it.
    expect(page).not.toContain('implementation team leaves');
  });

  it('writes a cold email whose opener reads for any role and any way the pain is put', async () => {
    const { text } = await collect(
      engine.streamText(
        contentGeneration,
        inputFor('app_cold_outreach_email', {
          recipient_role: 'Head of Finance at a 200-person SaaS company',
          product: 'Closewise automates the month-end close: bank reconciliations, accruals and variance reports in one workspace.',
          pain_point: 'Month-end close takes 12 days and the team works weekends.',
        }),
      ),
    );
    // Was "Many Head of Finance at a 200-person SaaS company teams tell us about month-end close takes 12 days…".
    expect(text).not.toContain('company teams');
    expect(text).toContain('What we hear from people in your role: month-end close takes 12 days and the team works weekends.');
  });

  const engine = createOfflineEngine();

  it('writes every app’s kind of document from the brief, within the app’s budget', async () => {
    const shapes: Record<string, RegExp> = {
      app_linkedin_post: /#\p{Lu}/u,
      app_blog_article: /^# .+\n[\s\S]*^## /m,
      app_listicle: /^1\. \*\*/m,
      app_promotional_email: /^Subject: /,
      app_search_ad: /## Headlines[\s\S]*## Descriptions/,
      app_landing_page: /^## Questions/m,
      app_product_description: /^- /m,
      app_short_video_script: /\[Visual\][\s\S]*\[Voiceover\]/,
      app_press_release: /^FOR IMMEDIATE RELEASE[\s\S]*###$/,
    };
    for (const app of generationApps) {
      const { text, done } = await collect(engine.streamText(contentGeneration, inputFor(app.id)));
      expect(text.length, app.id).toBeGreaterThan(40);
      expect(done.text).toBe(text);
      expect(done.usage.output_tokens).toBe(countTokens(text));
      expect(done.usage.output_tokens).toBeLessThanOrEqual(app.max_output_tokens);
      if (shapes[app.id]) expect(text, app.id).toMatch(shapes[app.id]!);
    }
  });

  it('angles the content at the persona and writes in the voice; the same input gives the same text', async () => {
    const plain = await collect(engine.streamText(contentGeneration, inputFor('app_blog_article', { topic: CLOSEWISE })));
    const angled = await collect(engine.streamText(contentGeneration, inputFor('app_blog_article', { topic: CLOSEWISE }, true, true)));
    const persona = basePersonas[0]!;
    const mentionsAGoal = (text: string) =>
      persona.details.goals.some((goal) =>
        text.toLowerCase().includes(
          goal
            .toLowerCase()
            .replace(/[.!?]+$/, '')
            .slice(1, 30),
        ),
      );
    // A brief that shares no topic with the persona's goals claims none of them: a cold brew blog for a CFO
    // said "If you want to automate the manual spreadsheet work of the FP&A team, this is for you" (on "teams").
    expect(mentionsAGoal((await collect(engine.streamText(contentGeneration, inputFor('app_blog_article', {}, true)))).text)).toBe(false);
    expect(angled.text).not.toBe(plain.text);
    expect(mentionsAGoal(angled.text)).toBe(true);
    expect(angled.text).toContain('small-batch');
    expect(angled.text).toContain('Coffee that waits for you.');
    expect((await collect(engine.streamText(contentGeneration, inputFor('app_blog_article', { topic: CLOSEWISE }, true, true)))).text).toBe(angled.text);
    expect(
      (await collect(engine.streamText(contentGeneration, inputFor('app_blog_article', { topic: 'A different brief about cargo bikes for city families.' }))))
        .text,
    ).not.toBe(plain.text);
  });

  it('exclaims only when the voice allows it: a playful voice whose sources never exclaim writes none', async () => {
    const lively = inputFor('app_promotional_email', { offer: CLOSEWISE }, true, true);
    expect((await collect(engine.streamText(contentGeneration, lively))).text).toContain('!');
    const noExclamations = { ...lively.voice!, tone: { ...lively.voice!.tone, donts: ["Use exclamation marks: 0% of the sources' sentences have one."] } };
    const text = (await collect(engine.streamText(contentGeneration, { ...lively, voice: noExclamations }))).text;
    expect(text).not.toContain('!');
    expect(text).toContain('small-batch');
  });

  it('follows the inputs: counts, booleans and lists', async () => {
    const headlinesOf = (text: string) => [...text.split('## Descriptions')[0]!.matchAll(/^- (.+)$/gm)].map((match) => match[1]!);
    const ads = await collect(
      engine.streamText(
        contentGeneration,
        inputFor('app_search_ad', {
          product: CLOSEWISE,
          keywords: 'month-end close software, close automation',
          unique_selling_points: ['speed', 'free trial'],
          headline_count: 7,
        }),
      ),
    );
    // Was "Month-end" and "Close" among them, and a description cut with "…".
    expect(headlinesOf(ads.text)).toEqual([
      'Month-End Close Software',
      'Close Automation',
      'Close in 5 Days Instead of 9',
      'Closewise',
      'Start a Free Trial',
      'Bank Reconciliations',
      'Accruals',
    ]);
    expect(ads.text.split('## Descriptions\n\n')[1]).toBe(
      '- Teams close in 5 days instead of 9.\n- Bank reconciliations, accruals and a close checklist in one place.\n- Start your free trial.',
    );
    // Social variants: whole sentences of the brief within 125 characters, distinct while the brief has more.
    const social = (
      await collect(engine.streamText(contentGeneration, inputFor('app_social_ad', { product: CLOSEWISE, platform: 'linkedin', variants: 3 }, true)))
    ).text;
    const primaries = [...social.matchAll(/^\*\*Primary text:\*\* (.+)$/gm)].map((match) => match[1]!);
    expect(primaries).toHaveLength(3);
    expect(new Set(primaries).size).toBe(3);
    for (const primary of primaries) {
      expect(primary.length).toBeLessThanOrEqual(125);
      expect(primary).not.toContain('…');
      expect(primary).toMatch(/[.!?]$/);
    }
    expect(primaries[0]).toMatch(/^Tired of .+\? Teams close in 5 days instead of 9[.!]$/);
    expect([...social.matchAll(/^\*\*Headline:\*\* (.+)$/gm)].map((match) => match[1])).toEqual([
      'Teams Close in 5 Days Instead of 9',
      'Closewise',
      'Bank Reconciliations',
    ]);
    // A brief with fewer distinct claims gets fewer headlines, each whole within 30 characters.
    const brew = headlinesOf(
      (await collect(engine.streamText(contentGeneration, inputFor('app_search_ad', { keywords: 'cold brew concentrate', headline_count: 7 })))).text,
    );
    expect(brew).toEqual(['Cold Brew Concentrate', 'Slow-Steeped for 18 Hours', 'Saves Busy Teams Ten Minutes']);
    const noTags = await collect(engine.streamText(contentGeneration, inputFor('app_linkedin_post', { include_hashtags: false })));
    expect(noTags.text).not.toMatch(/#\p{Lu}/u);
    const bullets = await collect(
      engine.streamText(
        contentGeneration,
        inputFor('app_marketplace_bullets', { features: 'Steel body\nDishwasher safe\nKeeps cold 24 hours', bullet_count: 3 }),
      ),
    );
    expect(bullets.text.match(/^- \*\*/gm)).toHaveLength(3);
    // A short feature is its own header, said once (was "**DISHWASHER SAFE** — Dishwasher safe, so you can …").
    expect(bullets.text).toContain('- **DISHWASHER SAFE**');
    expect(bullets.text).not.toMatch(/Dishwasher safe/);
  });

  it('stops streaming when the signal fires', async () => {
    const controller = new AbortController();
    let deltas = 0;
    for await (const event of engine.streamText(contentGeneration, inputFor('app_blog_article'), { signal: controller.signal })) {
      if (event.type === 'text_delta' && ++deltas === 3) controller.abort();
      expect(event.type).not.toBe('done');
    }
    expect(deltas).toBe(3);
  });
});

describe('content generation upstream', () => {
  let fake: FakeUpstream;
  let engine: Engine;
  beforeAll(async () => {
    fake = await startFakeUpstream();
    engine = createOpenAICompatibleEngine({
      baseUrl: fake.baseUrl,
      apiKey: null,
      model: 'fake',
      timeoutMs: 2000,
      reasoning: false,
      contextWindow: 128000,
      maxOutputTokens: 32768,
    });
  });
  afterAll(() => fake.close());

  it('sends the copywriter prompt with the audience and the voice, and streams the model’s text', async () => {
    fake.enqueue({ content: 'Hand-picked, small-batch cold brew.' });
    const { text, done } = await collect(engine.streamText(contentGeneration, inputFor('app_linkedin_post', {}, true, true)));
    expect(text).toBe('Hand-picked, small-batch cold brew.');
    expect(done.model).toBeTruthy();
    const sent = fake.requests.at(-1)!.body;
    const system = sent.messages[0].content as string;
    expect(sent.messages[0].role).toBe('system');
    expect(system).toContain('senior copywriter');
    expect(system).toContain(basePersonas[0]!.name);
    expect(system).toContain('Never use these terms, in any form: cheap.');
    expect(sent.messages.at(-1)).toEqual({ role: 'user', content: inputFor('app_linkedin_post').prompt });
    expect(sent.stream).toBe(true);
  });
});
