import { resourceModule } from '../module.js';
import { newsHandlers } from './handlers.js';
import { newsIsolation, seedNews } from './isolation.js';
import { newsJobs } from './jobs.js';

export const newsModule = resourceModule({ tag: 'News', handlers: newsHandlers, isolation: newsIsolation, isolationSeed: seedNews, jobs: newsJobs });
