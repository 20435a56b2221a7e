import { resourceModule } from '../module.js';
import { generationHandlers } from './handlers.js';
import { generationIsolation, seedGeneration } from './isolation.js';

export const generationsModule = resourceModule({
  tag: 'Generations',
  handlers: generationHandlers,
  isolation: generationIsolation,
  isolationSeed: seedGeneration,
});
