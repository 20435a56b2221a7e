import { resourceModule } from '../module.js';
import { workspaceHandlers } from './handlers.js';
import { workspaceIsolation } from './isolation.js';

export const workspacesModule = resourceModule({ tag: 'Workspaces', handlers: workspaceHandlers, isolation: workspaceIsolation });
