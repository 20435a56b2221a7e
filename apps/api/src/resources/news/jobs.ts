import type { JobDefinition } from '../../jobs/types.js';
import type { Services } from '../../services.js';
import { pollAllFeeds } from './feeds.js';

/** Polls the configured feeds every 15 minutes (conditional GET: an unchanged feed costs one 304). */
export const newsJobs = (services: Services): JobDefinition[] => [
  {
    kind: 'news.poll',
    schedule: '*/15 * * * *',
    deadlineSeconds: 600,
    retryLimit: 0,
    run: async (_payload, { signal, log }) => {
      const results = await pollAllFeeds(services.db, services.engine, services.fetcher, { now: () => services.clock.now(), signal });
      for (const result of results) {
        if (result.error) log.warn({ feed: result.url, error: result.error }, 'news feed poll failed');
        else log.info({ feed: result.url, added: result.added, not_modified: result.notModified }, 'news feed polled');
      }
    },
  },
];
