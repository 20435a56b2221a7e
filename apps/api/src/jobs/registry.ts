import { resourceModules } from '../resources/index.js';
import type { Services } from '../services.js';
import type { JobDefinition } from './types.js';

/** Every job kind of every resource module, for the API process and `pnpm worker` alike. */
// biome-ignore lint/suspicious/noExplicitAny: definitions of different payloads live side by side.
export function jobDefinitions(services: Services): JobDefinition<any>[] {
  return resourceModules.flatMap((module) => [...(module.jobs?.(services) ?? [])]);
}
