import { billingJobs } from '../billing/holds-purge.js';
import { upkeepJobs } from '../db/upkeep.js';
import { idempotencyJobs } from '../http/idempotency.js';
import { resourceModules } from '../resources/index.js';
import type { Services } from '../services.js';
import type { JobDefinition } from './types.js';

/** Every job kind of every resource module and of the cross-cutting parts, for the API process and `pnpm worker` alike. */
export function jobDefinitions(services: Services): JobDefinition<any>[] {
  return [
    ...resourceModules.flatMap((module) => [...(module.jobs?.(services) ?? [])]),
    ...idempotencyJobs(services),
    ...billingJobs(services),
    ...upkeepJobs(services),
  ];
}
