import { resourceModule } from '../module.js';
import { agentHandlers } from './handlers.js';
import { agentIsolation, seedAgentThread } from './isolation.js';

export const agentModule = resourceModule({
  tag: 'Research agent',
  handlers: agentHandlers,
  isolation: agentIsolation,
  isolationSeed: seedAgentThread,
});
