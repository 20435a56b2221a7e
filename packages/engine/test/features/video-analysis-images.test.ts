// Image parts of feature prompts: a feature message with images reaches an OpenAI-compatible upstream as
// `image_url` data-URL parts at low detail (the fake upstream checks their shape as OpenAI does and hands
// them back decoded), and the chat's citations are checked against the result's chunk times.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { chunkCitation, createOpenAICompatibleEngine, defineFeature, groundCitations, parseEngineConfig, type Engine } from '../../src/index.js';
import { imagesOf, startFakeUpstream, type FakeUpstream } from '../../src/testing/index.js';

// A 1×1 JPEG's first bytes are enough for the wire: the fake checks the data URL, not the picture.
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01]);

const looksAt = defineFeature<{ frames: Buffer[] }, { seen: number }>({
  name: 'looks_at',
  schema: z.object({ seen: z.number().int() }),
  prompt: ({ frames }) => [
    { role: 'system', content: 'Count the frames.' },
    {
      role: 'user',
      content: 'Frames follow.',
      images: frames.map((frame, index) => ({ media_type: 'image/jpeg' as const, data: frame.toString('base64'), label: `Frame ${index}:` })),
    },
  ],
  offline: ({ frames }) => ({ seen: frames.length }),
});

describe('image parts to an upstream model', () => {
  let fake: FakeUpstream;
  let engine: Engine;
  beforeAll(async () => {
    fake = await startFakeUpstream();
    engine = createOpenAICompatibleEngine({
      baseUrl: fake.baseUrl,
      apiKey: null,
      model: 'fake-vision',
      timeoutMs: 2000,
      reasoning: false,
      contextWindow: 128000,
      maxOutputTokens: 32768,
      acceptsImages: true,
    });
  });
  afterAll(() => fake.close());

  it('sends each image as a low-detail data URL whose bytes arrive intact', async () => {
    fake.enqueue({ content: '{"seen": 2}' });
    const other = Buffer.concat([JPEG, Buffer.from([1, 2, 3])]);
    const { output } = await engine.run(looksAt, { frames: [JPEG, other] });
    expect(output).toEqual({ seen: 2 });
    const images = imagesOf(fake.requests.at(-1)!);
    expect(images.map((image) => [image.mediaType, image.detail])).toEqual([
      ['image/jpeg', 'low'],
      ['image/jpeg', 'low'],
    ]);
    expect(images[0]!.bytes).toEqual(JPEG);
    expect(images[1]!.bytes).toEqual(other);
    expect(fake.requests.at(-1)!.body.messages[1].content.filter((part: { type: string }) => part.type === 'text')).toEqual([
      { type: 'text', text: 'Frames follow.' },
      { type: 'text', text: 'Frame 0:' },
      { type: 'text', text: 'Frame 1:' },
    ]);
  });

  it('the fake refuses a malformed image part as OpenAI does', async () => {
    const response = await fetch(`${fake.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'x', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'not a url' } }] }] }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/image_url\.url/);
  });

  it('says whether the model reads images, from MODEL_ACCEPTS_IMAGES', () => {
    expect(engine.describe().accepts_images).toBe(true);
    const config = parseEngineConfig({ MODEL_BASE_URL: 'http://127.0.0.1:1/v1', MODEL_NAME: 'm', MODEL_ACCEPTS_IMAGES: 'true' });
    expect(config.engine === 'openai-compatible' && config.upstream.acceptsImages).toBe(true);
    expect(() => parseEngineConfig({ MODEL_BASE_URL: 'http://127.0.0.1:1/v1', MODEL_NAME: 'm', MODEL_ACCEPTS_IMAGES: 'yes' })).toThrow(/MODEL_ACCEPTS_IMAGES/);
  });
});

describe('chat citations', () => {
  const chunk = (start: number, end: number) => ({ start_seconds: start, end_seconds: end }) as Parameters<typeof groundCitations>[2][number];
  const chunks = [chunk(0, 30), chunk(30, 60), chunk(60, 75.5)];

  it('keeps the times of real chunks, drops invented ones, appends the cited chunks when none is left', () => {
    expect(chunkCitation(chunks[2]!)).toBe('[01:00–01:15]');
    expect(groundCitations('Strong open [00:00-00:30], weak at [00:40–00:50].', [0, 9], chunks)).toEqual({
      answer: 'Strong open [00:00–00:30], weak at .',
      chunk_indexes: [0],
    });
    expect(groundCitations('It dips in the middle.', [1], chunks).answer).toBe('It dips in the middle. ([00:30–01:00])');
    expect(groundCitations('Nothing in the analysis says so.', [], chunks).answer).toBe('Nothing in the analysis says so.');
  });
});
