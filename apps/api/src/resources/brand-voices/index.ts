import { resourceModule } from '../module.js';
import { brandVoiceHandlers } from './handlers.js';
import { brandVoiceIsolation, seedBrandVoice } from './isolation.js';
import { brandVoiceJobs } from './job.js';

export const brandVoicesModule = resourceModule({
  tag: 'Brand voices',
  handlers: brandVoiceHandlers,
  isolation: brandVoiceIsolation,
  isolationSeed: seedBrandVoice,
  jobs: brandVoiceJobs,
});
