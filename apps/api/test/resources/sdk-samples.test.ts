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
    // (The openai sample's answer is its follow-up, which quotes the first question back.)
    const log = console.log;
    console.log = () => {};
    try {
      const answer = await sample(server.baseURL, server.t.key);
      expect(answer.length).toBeGreaterThan(0);
      if (sample === openaiSample) expect(answer).toBe('You asked: “Would you pay $18 per seat for forecasting?”');
    } finally {
      console.log = log;
    }
  });
});
