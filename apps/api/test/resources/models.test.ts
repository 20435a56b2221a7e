import { createOfflineEngine, type Engine } from '@persona-api/engine';
import type { FakeUpstream } from '@persona-api/engine/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeUpstreamEngine, SwitchableEngine } from '../support/ai.js';
import { errorOf, useHarness, useTenant } from '../support/harness.js';

// GET /models: the one model, service-1, and what serves it in this deployment.

let fake: FakeUpstream;
let upstreamEngine: Engine;
const engine = new SwitchableEngine(createOfflineEngine());
const onUpstream = <T>(run: () => Promise<T>): Promise<T> => engine.using(upstreamEngine, run);

beforeAll(async () => {
  ({ fake, engine: upstreamEngine } = await fakeUpstreamEngine());
});
afterAll(() => fake.close());
const h = useHarness({ engine });
const t = useTenant(h, { credits: 10_000 });

describe('models', () => {
  it('lists service-1 and says what serves it: the offline development engine here', async () => {
    const res = await h.get('/models', t.key);
    expect(res.body).toEqual({
      object: 'list',
      data: [
        {
          id: 'service-1',
          object: 'model',
          created: expect.any(Number),
          owned_by: 'persona-api',
          engine: 'offline',
          upstream_model: null,
          context_window: 128_000,
          max_output_tokens: 32_768,
          accepts_images: false,
        },
      ],
      has_more: false,
      next_cursor: null,
    });
    expect((await h.get('/models/service-1', t.key)).body.engine).toBe('offline');
    expect(errorOf(await h.get('/models/gpt-4o', t.key))).toEqual({ type: 'not_found', code: 'resource_not_found', param: 'id' });
    expect(errorOf(await h.get('/models?cursor=bogus', t.key)).code).toBe('invalid_cursor');
  });

  it('names the upstream model when an OpenAI-compatible server serves it', async () => {
    const model = await onUpstream(() => h.get('/models/service-1', t.key));
    expect(model.body).toMatchObject({ engine: 'openai-compatible', upstream_model: 'fake-gpt' });
  });
});
