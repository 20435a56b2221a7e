import { resourceModule } from '../module.js';
import { focusGroupHandlers } from './handlers.js';
import { focusGroupIsolation, seedFocusGroup } from './isolation.js';

export const focusGroupsModule = resourceModule({
  tag: 'Focus groups',
  handlers: focusGroupHandlers,
  isolation: focusGroupIsolation,
  isolationSeed: seedFocusGroup,
});
