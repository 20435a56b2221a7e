import { resourceModule } from '../module.js';
import { personaHandlers } from './handlers.js';
import { personaIsolation, seedPersona } from './isolation.js';

export const personasModule = resourceModule({ tag: 'Personas', handlers: personaHandlers, isolation: personaIsolation, isolationSeed: seedPersona });
