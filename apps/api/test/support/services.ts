import { createOfflineEngine } from '@persona-api/engine';
import { pino } from 'pino';
import type { Database } from '../../src/db/client.js';
import { createGuardedFetcher } from '../../src/lib/guarded-fetch.js';
import { filesNotConfigured, jobsNotConfigured, storageNotConfigured, type Services } from '../../src/services.js';
import { TestClock } from './harness.js';

/**
 * The one `Services` object a test's jobs run with, built like the server's: the database given, the
 * rest defaulted (offline engine, silent logger, guarded fetcher, a TestClock) unless overridden.
 * Services a test does not give (jobs, storage, files) fail loudly when used. The object is mutable so
 * a test can set `jobs` once its queue, which needs the job definitions, is open.
 */
export function testServices(db: Database, overrides: Partial<Services> = {}): Services {
  return {
    db,
    engine: createOfflineEngine(),
    jobs: jobsNotConfigured,
    storage: storageNotConfigured,
    clock: new TestClock(),
    logger: pino({ level: 'silent' }),
    fetcher: createGuardedFetcher(),
    files: filesNotConfigured,
    rateLimitMultiplier: 1,
    ...overrides,
  };
}
