import { resourceModule } from '../module.js';
import { videoAnalysisHandlers } from './handlers.js';
import { seedVideoAnalysis, videoAnalysisIsolation } from './isolation.js';
import { videoAnalysisJobs } from './jobs.js';
import { transcriberFromEnv } from '../meetings/transcriber.js';

export const videoAnalysesModule = resourceModule({
  tag: 'Video analyses',
  handlers: videoAnalysisHandlers,
  isolation: videoAnalysisIsolation,
  isolationSeed: seedVideoAnalysis,
  jobs: (services) => videoAnalysisJobs(services, { transcriber: transcriberFromEnv() }),
});
