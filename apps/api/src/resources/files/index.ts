import { resourceModule } from '../module.js';
import { fileHandlers } from './handlers.js';
import { fileIsolation, seedFiles } from './isolation.js';
import { fileJobs } from './jobs.js';

export const filesModule = resourceModule({
  tag: 'Files',
  handlers: fileHandlers,
  isolation: fileIsolation,
  isolationSeed: seedFiles,
  // Read when a job runs, not when the queue registers the definitions.
  jobs: (services) =>
    fileJobs({
      db: services.db,
      storage: services.storage,
      now: () => services.clock.now(),
      get ffmpegPath() {
        return services.files.ffmpegPath;
      },
    }),
});
