import { describe, expect, it } from 'vitest';
import { createEngine, EngineConfigError, parseEngineConfig } from '../src/index.js';

describe('engine configuration', () => {
  it('picks the offline engine when MODEL_BASE_URL is unset or blank', () => {
    expect(parseEngineConfig({})).toMatchObject({ engine: 'offline', seed: 0 });
    expect(parseEngineConfig({ MODEL_BASE_URL: '  ', OFFLINE_ENGINE_SEED: '7' })).toMatchObject({ engine: 'offline', seed: 7 });
    expect(createEngine(parseEngineConfig({})).kind).toBe('offline');
  });

  it('configures the OpenAI-compatible engine', () => {
    const config = parseEngineConfig({
      MODEL_BASE_URL: 'http://127.0.0.1:11434/v1/',
      MODEL_NAME: 'llama3.1',
      MODEL_TIMEOUT_MS: '5000',
      MODEL_REASONING: 'true',
    });
    expect(config).toEqual({
      engine: 'openai-compatible',
      upstream: {
        baseUrl: 'http://127.0.0.1:11434/v1',
        apiKey: null,
        model: 'llama3.1',
        timeoutMs: 5000,
        reasoning: true,
        acceptsImages: false,
        contextWindow: 128000,
        maxOutputTokens: 32768,
      },
    });
    const engine = createEngine(config);
    expect(engine.kind).toBe('openai-compatible');
    expect(engine.describe()).toMatchObject({ engine: 'openai-compatible', upstream_model: 'llama3.1' });
  });

  it('explains every problem, without repeating the API key', () => {
    const secret = 'sk-live-this-is-secret-123';
    let error: unknown;
    try {
      parseEngineConfig({ MODEL_BASE_URL: 'ftp://models.example', MODEL_API_KEY: `${secret} x`, MODEL_TIMEOUT_MS: 'soon' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(EngineConfigError);
    const message = (error as Error).message;
    expect(message).toMatch(/MODEL_BASE_URL must use http or https/);
    expect(message).toMatch(/MODEL_API_KEY must not contain whitespace/);
    expect(message).toMatch(/MODEL_TIMEOUT_MS must be a whole number/);
    expect(message).toMatch(/MODEL_NAME is required/);
    expect(message).not.toContain(secret);
  });

  it('refuses a model name or key without a base URL instead of silently going offline', () => {
    expect(() => parseEngineConfig({ MODEL_NAME: 'gpt-4.1-mini' })).toThrow(/MODEL_BASE_URL is required when MODEL_NAME is set/);
    expect(() => parseEngineConfig({ MODEL_BASE_URL: 'not a url', MODEL_NAME: 'x' })).toThrow(/absolute URL/);
  });
});
