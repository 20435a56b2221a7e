import type { FastifyBaseLogger } from 'fastify';
import type { DatabaseHandle } from '../db/client.js';
import type { ObjectStorage } from '../storage/types.js';
import type { JobDefinition, JobQueue } from './types.js';

/** What a resource module's job definitions may use. */
export interface JobDependencies {
  database: DatabaseHandle;
  storage: ObjectStorage;
  logger: FastifyBaseLogger;
  /** For jobs that enqueue follow-up jobs; available once the queue exists. */
  jobs: () => JobQueue;
}

/**
 * Every job kind of every resource module, for the API process and `pnpm worker` alike: a module
 * that needs background work adds its definitions here (one line).
 */
// biome-ignore lint/suspicious/noExplicitAny: definitions of different payloads live side by side.
export function jobDefinitions(_deps: JobDependencies): JobDefinition<any>[] {
  return [];
}
