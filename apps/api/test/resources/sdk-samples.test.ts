import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLibServer, type LibServer } from '../support/sdk-libs.js';
import { agentsSample, aiSdkSample, langchainSample, openaiSample } from './sdk-samples.js';

// The docs' and README's library samples, run as written against a listening server (offline engine).
let server: LibServer;
beforeAll(async () => {
  server = await startLibServer();
});
afterAll(() => server.close());

describe('the documented library samples', () => {
  it.each([
    ['openai', openaiSample],
    ['AI SDK', aiSdkSample],
    ['LangChain', langchainSample],
    ['OpenAI Agents SDK', agentsSample],
  ])('%s sample answers', async (_name, sample) => {
    const log = console.log;
    console.log = () => {};
    try {
      expect((await sample(server.baseURL, server.t.key)).length).toBeGreaterThan(0);
    } finally {
      console.log = log;
    }
  });
});
