import { resourceModule } from '../module.js';
import { projectHandlers } from './handlers.js';
import { projectIsolation, seedProject } from './isolation.js';

export const projectsModule = resourceModule({ tag: 'Projects', handlers: projectHandlers, isolation: projectIsolation, isolationSeed: seedProject });
