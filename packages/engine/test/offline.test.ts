import { describe, expect, it } from 'vitest';
import {
  basePersonas,
  countTokens,
  createOfflineEngine,
  enginePersonaFromBase,
  EngineError,
  type EnginePersona,
  type EngineStreamEvent,
  type GenerateRequest,
} from '../src/index.js';
import { lowerFirst } from '../src/text/index.js';
import { choiceOptions } from '../src/offline/compose.js';
import { topicReference } from '../src/text/topic.js';

const persona = (id: string): EnginePersona => enginePersonaFromBase(basePersonas.find((entry) => entry.id === id)!);
const cfo = persona('persona_saas_cfo');
const sneakers = persona('persona_genz_sneaker_enthusiast');
const pitch = 'We built a tool that automates the month-end close for finance teams. Pricing is per seat. Would you try it?';
const ask = (p: EnginePersona | null, content = pitch, extra: Partial<GenerateRequest> = {}): GenerateRequest => ({
  persona: p,
  messages: [{ role: 'user', content }],
  ...extra,
});

async function collect(stream: AsyncIterable<EngineStreamEvent>): Promise<EngineStreamEvent[]> {
  const events: EngineStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('offline engine: determinism', () => {
  it('gives the same output for the same request', async () => {
    const a = await createOfflineEngine().generate(ask(cfo));
    const b = await createOfflineEngine().generate(ask(cfo));
    expect(a).toEqual(b);
  });

  it('changes with the seed, and stays stable for each seed', async () => {
    const outputs = await Promise.all(
      [1, 2, 3, 4].map((seed) =>
        createOfflineEngine({ seed })
          .generate(ask(cfo))
          .then((result) => result.text),
      ),
    );
    expect(new Set(outputs).size).toBeGreaterThan(1);
    expect((await createOfflineEngine({ seed: 3 }).generate(ask(cfo))).text).toBe(outputs[2]);
  });

  it('reports tokenizer usage and a stop', async () => {
    const result = await createOfflineEngine().generate(ask(cfo));
    expect(result.finish_reason).toBe('stop');
    expect(result.model).toBe('offline');
    expect(result.usage.source).toBe('tokenizer');
    expect(result.usage.output_tokens).toBe(countTokens(result.text));
    // The persona's system prompt counts as input.
    expect(result.usage.input_tokens).toBeGreaterThan(countTokens(cfo.system_prompt));
    expect(result.parsed).toBeNull();
    expect(result.analysis).toBeNull();
  });

  it('says plainly that it is not a language model', () => {
    const description = createOfflineEngine().describe();
    expect(description.engine).toBe('offline');
    expect(description.upstream_model).toBeNull();
    expect(description.description).toMatch(/not a language model/);
  });
});

describe('offline engine: persona voice', () => {
  it('answers in the first person with content from the persona profile', async () => {
    const { text } = await createOfflineEngine().generate(ask(cfo));
    expect(text).toMatch(/\b(I|me|my)\b/);
    const profile = [...cfo.details.goals, ...cfo.details.pains, ...cfo.details.objections].map((item) => item.slice(1, 25).toLowerCase());
    expect(profile.some((fragment) => text.toLowerCase().includes(fragment))).toBe(true);
    expect(text.toLowerCase()).toContain('month-end close');
    expect(text).not.toMatch(/as an ai|language model|assistant/i);
  });

  it('picks the profile items that share words with the input', async () => {
    const { text } = await createOfflineEngine().generate(ask(cfo, 'Our renewal comes with a price increase and the pricing is per seat. Is that a problem?'));
    expect(text).toMatch(/pricing|seat|renewal/i);
  });

  it('changes with the persona', async () => {
    const engine = createOfflineEngine();
    const [a, b] = await Promise.all([engine.generate(ask(cfo)), engine.generate(ask(sneakers))]);
    expect(a.text).not.toBe(b.text);
    const kai = [...sneakers.details.goals, ...sneakers.details.pains, ...sneakers.details.objections].map((item) => item.slice(1, 25).toLowerCase());
    expect(kai.some((fragment) => b.text.toLowerCase().includes(fragment))).toBe(true);
  });

  it('answers questions about itself from its profile', async () => {
    const { text } = await createOfflineEngine().generate(ask(cfo, 'What is your biggest challenge at work right now?', { verbosity: 'low' }));
    expect(cfo.details.pains.some((pain) => text.toLowerCase().includes(pain.slice(1, 20).toLowerCase()))).toBe(true);
  });

  it('refers to the topic with the determiner the input gave it, as the other side says it', async () => {
    expect(topicReference('We are pitching an AI forecasting add-on at $18 per seat per month. What would make you say yes?')).toBe('an AI forecasting add-on');
    expect(topicReference('What do you think of our new pricing page?')).toBe('your new pricing page');
    expect(topicReference('Thoughts on usage-based pricing?')).toBe('usage-based pricing');
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const { text } = await createOfflineEngine({ seed }).generate(
        ask(cfo, 'We are pitching an AI forecasting add-on at $18 per seat per month. What would make you say yes?'),
      );
      expect(text).toMatch(/\b[Aa]n AI forecasting add-on\b/);
    }
  });

  it('names a topic by what it is, not by a word of time ("month next quarter")', () => {
    expect(topicReference('We are raising the price of our POS subscription from 79 to 99 euros per month next quarter. How do you feel about that?')).toBe(
      'your POS subscription',
    );
  });

  it('answers a greeting as a person: hello back, the week it had, a question back; never a pitch verdict', async () => {
    for (const seed of [1, 2, 3]) {
      const engine = createOfflineEngine({ seed });
      const hello = (await engine.generate(ask(cfo, 'Hi'))).text;
      expect(hello).toMatch(/^(Hi,|Good to hear from you\.) Dana here\. [^\n]+\?$/);
      const week = (await engine.generate(ask(cfo, 'Hi Dana, how was your week?'))).text;
      // Was "When I look at Dana, I ask one thing: does it help me…".
      expect(week).not.toMatch(/does it help me|push back/);
      expect(week).toContain(lowerFirst(cfo.details.pains[0]!).slice(0, 20));
      expect((await engine.generate(ask(sneakers, 'hey whats up'))).text).toMatch(/^(Hey!|Heyyy,) Kai here\./);
    }
    // A greeting that goes on to a pitch is answered as the pitch.
    expect((await createOfflineEngine().generate(ask(cfo, `Hi Dana! ${pitch}`))).text).not.toMatch(/Dana here/);
  });

  it('takes thanks as thanks, and answers an either-or question with a choice and what decides it', async () => {
    const thanks = (await createOfflineEngine().generate(ask(cfo, 'Thanks, that was helpful!'))).text;
    expect(thanks).toMatch(/^Glad it was useful\./);
    expect(thanks).not.toMatch(/On helpful/);
    expect(choiceOptions('Would you prefer monthly or annual billing?')).toEqual(['monthly billing', 'annual billing']);
    expect(choiceOptions('Should we offer a 3-year contract or a 1-year contract with an exit clause?')).toEqual([
      'a 3-year contract',
      'a 1-year contract with an exit clause',
    ]);
    expect(choiceOptions('What do you think of our pricing?')).toBeNull();
    expect(choiceOptions('Would you try it or not?')).toBeNull();
    const pricing = (await createOfflineEngine().generate(ask(cfo, 'Do you prefer usage-based pricing or per-seat pricing?'))).text;
    // The CFO wants "transparent, usage-aligned pricing with a cap" and fears seat-based renewals.
    expect(pricing).toContain('Usage-based pricing, if I have to choose. What I look for is transparent, usage-aligned pricing with a cap.');
    // "I will not sign a three-year deal without an exit clause": the clause is wanted, not feared.
    const term = (await createOfflineEngine().generate(ask(cfo, 'Should we offer a 3-year contract or a 1-year contract with an exit clause?'))).text;
    expect(term).toContain('A 1-year contract with an exit clause, if I have to choose.');
    const tie = (await createOfflineEngine().generate(ask(cfo, 'Monthly or annual?'))).text;
    expect(tie).toMatch(/Between monthly and annual, either could work; what decides it for me is /);
  });

  it('recaps the conversation and recalls what the user said, quoting it; says so when it was never said', async () => {
    const engine = createOfflineEngine();
    const messages: GenerateRequest['messages'] = [];
    const turn = async (content: string) => {
      messages.push({ role: 'user', content });
      const { text } = await engine.generate({ persona: cfo, messages: [...messages] });
      messages.push({ role: 'assistant', content: text });
      return text;
    };
    expect(await turn('Can you summarize what we discussed?')).toBe('We have not discussed anything yet. What would you like to start with?');
    await turn('Our tool automates the month-end close. Our budget for the pilot is 20,000 dollars.');
    await turn('The pilot would start in January with two entities.');
    const recap = await turn('Can you recap where we are?');
    expect(recap).toMatch(/^Here is where we are:\n\n- You: “[^”]+”\n- I: “[^”]+”/);
    expect(recap).toContain('- You: “The pilot would start in January with two entities.”');
    expect(await turn('What did I say the pilot budget was?')).toBe('You said: “Our budget for the pilot is 20,000 dollars.”');
    expect(await turn('Did I mention the number of users?')).toBe('I do not think you mentioned that so far.');
    // A recall with no topic of its own: the last thing the user said (was "I do not think you mentioned that").
    expect(await turn('What did I ask you?')).toBe('You asked: “Did I mention the number of users?”');
    messages.push({ role: 'user', content: 'The pilot would need sign-off from the controller.' }, { role: 'assistant', content: 'Noted.' });
    expect(await turn('Remind me what I said.')).toBe('You said: “The pilot would need sign-off from the controller.”');
    // A short question about the user's own facts, answered from what they said (was a pitch verdict).
    messages.push({ role: 'user', content: 'We have 240 seats and renew on March 3.' }, { role: 'assistant', content: 'Noted.' });
    expect(await turn('When do we renew?')).toBe('You said: “We have 240 seats and renew on March 3.”');
    expect(await turn('How many seats do we have?')).toBe('You said: “We have 240 seats and renew on March 3.”');
    // Not a hypothetical, and not a fact they never gave: the persona answers those as usual.
    expect(await turn('What do we get if we renew early?')).not.toMatch(/^You said/);
    expect(await turn('Which ERP do we use?')).not.toMatch(/^You said|I do not think/);
  });

  it('answers who it is, what it runs on, its budget, who decides with it and what it would pay from those fields', async () => {
    const reply = async (content: string) => (await createOfflineEngine().generate(ask(cfo, content, { verbosity: 'low' }))).text;
    // Each was a pitch verdict: "On yourself, the question that matters to me is…".
    expect(await reply('Tell me about yourself.')).toContain(
      'I am Dana Whitfield, a Chief Financial Officer in B2B software at a company of 201–500 employees.',
    );
    expect(await reply('What tools do you use today?')).toContain('Today we run on NetSuite, Salesforce, Excel and Google Sheets, Brex and Carta.');
    expect(await reply('What is your budget for this?')).toContain(
      'I own the company budget; sign anything above $25k ACV; approve all multi-year commitments.',
    );
    const decision = await reply('Who else is involved in the decision?');
    expect(decision).toContain('I am the economic buyer with final sign-off on any contract above $25k a year.');
    expect(decision).toContain('Also involved: Controller: cares about close process and audit trail;');
    expect(await reply('What would you pay for this?')).toContain('What I would pay depends on the terms: payback under 12 months on our own inputs');
    // A size with a thousands separator or a note stays whole (was "at a company of 1."); a household is "we".
    const introOf = async (id: string) => (await createOfflineEngine().generate(ask(persona(id), 'Tell me about yourself.', { verbosity: 'low' }))).text;
    expect(await introOf('persona_procurement_lead')).toContain('at a company of 1,001–5,000 employees.');
    expect(await introOf('persona_restaurant_owner')).toContain('at a company of 11–50 employees.');
    expect(await introOf('persona_sustainable_grocery_shopper')).toMatch(/^I am Aisha Karim\. We are a couple without children in Berlin, Germany\./);
    // A pitch that names its "tool" asks none of these.
    expect(await reply(pitch)).not.toContain('Today we run on');
    // A consumer has no tech stack or company: the same questions fall back to the profile it has.
    const parent = persona('persona_budget_parent_of_three');
    expect((await createOfflineEngine().generate(ask(parent, 'What is your budget for groceries?'))).text).toMatch(/We are a \$[\d,]+–\$[\d,]+ household/);
  });

  it('answers an opinion, a recommendation, a price and a channel question as asked', async () => {
    const parent = persona('persona_budget_parent_of_three');
    const reply = async (p: EnginePersona, content: string) => (await createOfflineEngine().generate(ask(p, content, { verbosity: 'low' }))).text;
    // The object of "think of", not the word that ranked first ("my spending automatically").
    expect(topicReference('What do you think of a mobile app that tracks your spending automatically?')).toBe('a mobile app');
    expect(topicReference('Is 9.99 a month too expensive?')).not.toContain('month');
    expect(await reply(parent, 'Would you recommend this to a friend?')).toMatch(/^I would recommend it to people like me once I have seen /);
    // The persona's own word on price, said once (was "For a month too expensive, …").
    const price = await reply(parent, 'Is 9.99 a month too expensive?');
    expect(price).toMatch(/^On price: /);
    const priceItem = /^On price: (.+?[.?])/.exec(price)![1]!;
    expect(price.split(priceItem).length).toBe(2);
    // A persona with nothing on price still answers about the price (was "For expensive, …").
    expect(await reply(persona('persona_it_security_director'), 'Is 9.99 a month too expensive?')).toMatch(/\bthe price\b/);
    const channels = await reply(cfo, 'How do you usually find new products?');
    expect(cfo.details.channels.some((channel) => channels.includes(lowerFirst(channel)))).toBe(true);
  });

  it('answers a request to write something as the buyer it is, naming what would get its attention', async () => {
    const { text } = await createOfflineEngine().generate(ask(cfo, 'Write me a tagline for our product.', { verbosity: 'low' }));
    // Was "On a tagline, the question that matters to me is whether it helps me …".
    expect(text).toMatch(/^I am not the one to write it, but a line that would get my attention speaks to payback under 12 months/);
    // As an artifact, the document is written.
    const doc = await createOfflineEngine().generate(ask(cfo, 'Write me a tagline for our product.', { artifact: true }));
    expect(doc.text).not.toContain('I am not the one to write it');
  });

  it('answers what it measures from its goals', async () => {
    const { text } = await createOfflineEngine().generate(ask(cfo, 'Which three metrics do you check first every Monday?', { verbosity: 'low' }));
    expect(cfo.details.goals.some((goal) => text.includes(lowerFirst(goal).replace(/[.!?]$/, '')))).toBe(true);
    expect(text).not.toMatch(/When I look at three metrics/);
  });

  it('keeps the article "A" of a profile item lower-case inside a sentence', async () => {
    expect(lowerFirst('A named customer success manager')).toBe('a named customer success manager');
    expect(lowerFirst('AI tools')).toBe('AI tools');
    expect(lowerFirst('I will not sign')).toBe('I will not sign');
    for (let seed = 1; seed <= 30; seed++) {
      const { text } = await createOfflineEngine({ seed }).generate(ask(cfo, 'What would convince you to buy from a new vendor?'));
      expect(text).not.toMatch(/[a-z,:] A named/);
    }
  });

  it('names no profile item twice, and leads a stand it takes in as a stand, not as a question', async () => {
    const stands = cfo.details.objections.filter((item) => !item.trim().endsWith('?')).map((item) => item.slice(0, 24).toLowerCase());
    expect(stands.length).toBeGreaterThan(0);
    for (let seed = 1; seed <= 30; seed++) {
      for (const input of ["What's your biggest headache with month-end close?", 'How do you decide which vendors to cut when budgets shrink?', pitch]) {
        for (const verbosity of ['medium', 'high'] as const) {
          const text = (await createOfflineEngine({ seed }).generate(ask(cfo, input, { verbosity }))).text.toLowerCase();
          for (const item of [...cfo.details.pains, ...cfo.details.objections, ...cfo.details.win_factors]) {
            const fragment = item.slice(0, 30).toLowerCase();
            expect(text.split(fragment).length - 1, `${fragment} in ${text}`).toBeLessThanOrEqual(1);
          }
          for (const stand of stands)
            expect(text).not.toMatch(new RegExp(`(question|want to know|have to ask)[^.?!]*: ${stand.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
        }
      }
    }
  });

  it('quotes back the claim of a longer message, but does not repeat a one-line question', async () => {
    const engine = createOfflineEngine();
    const question = 'Would you switch to our new app if it saved you an hour a week?';
    expect((await engine.generate(ask(cfo, question, { verbosity: 'high' }))).text).not.toContain('You said');
    expect((await engine.generate(ask(cfo, pitch, { verbosity: 'high' }))).text).toMatch(/You said: “[^”]*month-end close/);
  });

  it('grows with verbosity, and instructions asking for brevity win', async () => {
    const engine = createOfflineEngine();
    const lengths = await Promise.all(
      (['low', 'medium', 'high'] as const).map((verbosity) => engine.generate(ask(cfo, pitch, { verbosity })).then((r) => r.text.length)),
    );
    expect(lengths[0]).toBeLessThan(lengths[1]!);
    expect(lengths[1]).toBeLessThan(lengths[2]!);
    const brief = await engine.generate(ask(cfo, pitch, { verbosity: 'high', instructions: 'Answer in one sentence, briefly.' }));
    expect(brief.text.length).toBeLessThan(lengths[2]!);
  });

  it('answers without a persona in a neutral voice', async () => {
    const { text } = await createOfflineEngine().generate(ask(null));
    expect(text).toMatch(/month-end close/);
  });

  it('honours max_output_tokens with a length finish', async () => {
    const result = await createOfflineEngine().generate(ask(cfo, pitch, { verbosity: 'high', max_output_tokens: 16 }));
    expect(result.finish_reason).toBe('length');
    expect(result.usage.output_tokens).toBeLessThanOrEqual(16);
  });
});

describe('offline engine: streaming and cancellation', () => {
  it('streams word deltas that concatenate to the full text, then usage and done', async () => {
    const engine = createOfflineEngine();
    const events = await collect(engine.stream(ask(cfo)));
    const deltas = events.filter((event) => event.type === 'text_delta').map((event) => (event as { delta: string }).delta);
    expect(deltas.length).toBeGreaterThan(5);
    const done = events.at(-1);
    expect(done?.type).toBe('done');
    expect(events.at(-2)?.type).toBe('usage');
    expect(deltas.join('')).toBe((done as { result: { text: string } }).result.text);
    expect(deltas.join('')).toBe((await engine.generate(ask(cfo))).text);
  });

  it('stops promptly when the signal fires, without done', async () => {
    const controller = new AbortController();
    const events: EngineStreamEvent[] = [];
    for await (const event of createOfflineEngine({ chunkDelayMs: 5 }).stream(ask(cfo, pitch, { verbosity: 'high' }), controller.signal)) {
      events.push(event);
      if (events.length === 2) controller.abort();
    }
    expect(events).toHaveLength(2);
    expect(events.every((event) => event.type === 'text_delta')).toBe(true);
  });

  it('rejects a generate call whose signal already fired', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(createOfflineEngine().generate(ask(cfo), controller.signal)).rejects.toMatchObject({ code: 'aborted' });
  });

  it('rejects conflicting settings as invalid requests', async () => {
    const engine = createOfflineEngine();
    await expect(engine.generate(ask(cfo, pitch, { tool_choice: 'required' }))).rejects.toBeInstanceOf(EngineError);
    await expect(
      engine.generate(ask(cfo, pitch, { analysis: true, response_format: { type: 'json_schema', name: 'x', schema: { type: 'object' } } })),
    ).rejects.toMatchObject({ code: 'invalid_request', status: 400 });
  });
});

describe('offline engine: OpenAI sampling settings', () => {
  it("mixes a request's seed into its choices, deterministically", async () => {
    const engine = createOfflineEngine();
    const outputs = await Promise.all([1, 2, 3, 4].map((seed) => engine.generate(ask(cfo, pitch, { seed })).then((result) => result.text)));
    expect(new Set(outputs).size).toBeGreaterThan(1);
    expect((await engine.generate(ask(cfo, pitch, { seed: 2 }))).text).toBe(outputs[1]);
    // No seed: the output it always gave.
    expect((await engine.generate(ask(cfo))).text).toBe((await createOfflineEngine().generate(ask(cfo))).text);
  });

  it('ends the text before the first stop sequence, streamed and not', async () => {
    const engine = createOfflineEngine();
    const full = (await engine.generate(ask(cfo))).text;
    const words = full.split(' ');
    const [early, late] = [words[6]!, words[2]!];
    const cut = await engine.generate(ask(cfo, pitch, { stop: [early, late] }));
    expect(cut.text).toBe(full.slice(0, Math.min(full.indexOf(early), full.indexOf(late))));
    expect(cut.finish_reason).toBe('stop');
    const streamed = await collect(engine.stream(ask(cfo, pitch, { stop: [late] })));
    expect(streamed.flatMap((event) => (event.type === 'text_delta' ? [event.delta] : [])).join('')).toBe(full.slice(0, full.indexOf(late)));
    expect((await engine.generate(ask(cfo, pitch, { stop: ['no such sequence anywhere'] }))).text).toBe(full);
  });
});
