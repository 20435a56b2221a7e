import { index, pgTable, text } from 'drizzle-orm/pg-core';
import { timestampMs } from './columns.js';
import { projects } from '../../resources/projects/table.js';
import { workspaces } from '../../resources/workspaces/table.js';

// The core of the tables of resources not built yet, which workspace and project counts and deletes
// read. The issue that builds a resource moves its table into resources/<tag>/table.ts and adds the
// remaining columns by migration.

export const generations = pgTable(
  'generations',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    projectId: text('project_id').references(() => projects.id, { onDelete: 'set null' }),
    title: text('title').notNull(),
    createdAt: timestampMs('created_at').notNull(),
    updatedAt: timestampMs('updated_at').notNull(),
  },
  (t) => [index('generations_workspace_idx').on(t.workspaceId, t.createdAt, t.id), index('generations_project_idx').on(t.projectId)],
);
