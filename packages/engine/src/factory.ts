import { parseEngineConfig, type EngineConfig } from './config.js';
import { createOfflineEngine } from './offline/engine.js';
import { createOpenAICompatibleEngine, type OpenAICompatibleEngineOptions } from './openai/engine.js';
import type { Engine } from './types.js';

/**
 * The engine for a configuration (or for the environment, see `parseEngineConfig`): the offline engine when
 * MODEL_BASE_URL is unset, the OpenAI-compatible engine otherwise.
 */
export function createEngine(config: EngineConfig = parseEngineConfig(), options: OpenAICompatibleEngineOptions = {}): Engine {
  if (config.engine === 'offline')
    return createOfflineEngine({
      seed: config.seed,
      contextWindow: config.contextWindow,
      maxOutputTokens: config.maxOutputTokens,
      ...(config.chunkDelayMs ? { chunkDelayMs: config.chunkDelayMs } : {}),
    });
  return createOpenAICompatibleEngine(config.upstream, options);
}
