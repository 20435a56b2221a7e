import type { GenerationApp, GenerationAppInputField, GenerationContentType, GenerationInputData } from '@persona-api/types';
import { index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { timestampMs } from '../../db/schema/columns.js';
import { users } from '../../db/schema/tenancy.js';
import { projects } from '../projects/table.js';
import { workspaces } from '../workspaces/table.js';

/**
 * The generation-app catalog (a seeded catalog, like tiers and base personas: db/seed.ts writes the
 * engine's catalog on every start). The prompt templates stay in the engine's catalog, never served.
 */
export const generationApps = pgTable(
  'generation_apps',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    category: text('category').$type<GenerationApp['category']>().notNull(),
    description: text('description').notNull(),
    inputFields: jsonb('input_fields').$type<GenerationAppInputField[]>().notNull(),
    outputContentType: text('output_content_type').$type<GenerationContentType>().notNull(),
    estimatedCredits: integer('estimated_credits').notNull(),
    maxOutputTokens: integer('max_output_tokens').notNull(),
    createdAt: timestampMs('created_at').notNull(),
    updatedAt: timestampMs('updated_at').notNull(),
  },
  (t) => [index('generation_apps_list_idx').on(t.createdAt, t.id)],
);

// Generations were a stub table (id, workspace, project, title) until this resource was built, never
// written to, so the new columns need no defaults.
/**
 * Stored generations (DECISIONS.md, Generation apps and generations). The app, brand voice and persona
 * are kept as the {id, name|label} of the time, so a deleted voice or a changed catalog never breaks a read.
 */
export const generations = pgTable(
  'generations',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    // A deleted project leaves its generations in the workspace.
    projectId: text('project_id').references(() => projects.id, { onDelete: 'set null' }),
    createdByUserId: text('created_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    title: text('title').notNull(),
    output: text('output').notNull(),
    contentType: text('content_type').$type<GenerationContentType>().notNull(),
    appId: text('app_id').notNull(),
    app: jsonb('app').$type<{ id: string; name: string; category: GenerationApp['category'] }>().notNull(),
    brandVoice: jsonb('brand_voice').$type<{ id: string; label: string } | null>(),
    persona: jsonb('persona').$type<{ id: string; name: string } | null>(),
    inputData: jsonb('input_data').$type<GenerationInputData>().notNull(),
    promptTokens: integer('prompt_tokens').notNull(),
    completionTokens: integer('completion_tokens').notNull(),
    creditsUsed: integer('credits_used').notNull(),
    createdAt: timestampMs('created_at').notNull(),
    updatedAt: timestampMs('updated_at').notNull(),
  },
  (t) => [
    index('generations_workspace_idx').on(t.workspaceId, t.createdAt, t.id),
    index('generations_project_page_idx').on(t.projectId, t.createdAt, t.id).concurrently(),
    // GET /generations?project_id= per workspace of the caller (pageAcrossWorkspaces).
    index('generations_workspace_project_idx').on(t.workspaceId, t.projectId, t.createdAt, t.id).concurrently(),
    index('generations_workspace_app_idx').on(t.workspaceId, t.appId, t.createdAt, t.id).concurrently(),
    index('generations_app_idx').on(t.appId, t.createdAt, t.id),
  ],
);
