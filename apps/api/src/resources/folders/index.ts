import { resourceModule } from '../module.js';
import { folderHandlers } from './handlers.js';
import { folderIsolation } from './isolation.js';

export const foldersModule = resourceModule({ tag: 'Folders', handlers: folderHandlers, isolation: folderIsolation });
