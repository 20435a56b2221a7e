import { resourceModule } from '../module.js';
import { videoAnalysisHandlers } from './handlers.js';
import { seedVideoAnalysis, videoAnalysisIsolation } from './isolation.js';
import { videoAnalysisJobs } from './jobs.js';

export const videoAnalysesModule = resourceModule({
  tag: 'Video analyses',
  handlers: videoAnalysisHandlers,
  isolation: videoAnalysisIsolation,
  isolationSeed: seedVideoAnalysis,
  // The speech-to-text server (TRANSCRIPTION_*) is the one configured for meetings' imports.
  jobs: (services) => videoAnalysisJobs(services, { transcriber: services.meetings?.transcriber ?? null }),
});
