import type { MeetingSchemaEvidenceSpan, MeetingSchemaField, MeetingSchemaFieldValue } from '@persona-api/types';
import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, primaryKey, real, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { timestampMs } from '../../db/schema/columns.js';
import { users } from '../../db/schema/tenancy.js';
import { meetings } from '../meetings/table.js';
import { workspaces } from '../workspaces/table.js';

/**
 * Meeting schemas (DECISIONS.md, Meeting schemas): the built-in ones (`is_built_in`, no workspace,
 * written from built-ins.ts) and the custom ones of a workspace. `list_at` orders the list: built-ins
 * carry a far-future instant so they come first, custom schemas their creation time.
 */
export const meetingSchemas = pgTable(
  'meeting_schemas',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').references(() => workspaces.id, { onDelete: 'cascade' }),
    userId: text('user_id').references(() => users.id, { onDelete: 'set null' }),
    isBuiltIn: integer('is_built_in').notNull().default(0),
    name: text('name').notNull(),
    description: text('description'),
    category: text('category').notNull(),
    isPublished: integer('is_published').notNull().default(0),
    version: integer('version').notNull().default(1),
    tags: jsonb('tags').$type<string[] | null>(),
    fields: jsonb('fields').$type<MeetingSchemaField[]>().notNull(),
    listAt: timestampMs('list_at').notNull(),
    // The workspaces with a result of this schema (meeting_schema_usage rows), kept by its trigger (migration 0028).
    downloads: integer('downloads').notNull().default(0),
    createdAt: timestampMs('created_at').notNull(),
    updatedAt: timestampMs('updated_at').notNull(),
  },
  (t) => [
    index('meeting_schemas_list_idx').on(t.listAt, t.id),
    index('meeting_schemas_workspace_idx').on(t.workspaceId),
    // The list: a page of each of the caller's workspaces' schemas, and one of the schemas every caller
    // sees (built-in or published), never a walk past other tenants' unpublished ones.
    index('meeting_schemas_workspace_page_idx').on(t.workspaceId, t.listAt, t.id).concurrently(),
    index('meeting_schemas_shared_page_idx').on(t.listAt, t.id).where(sql`${t.isBuiltIn} = 1 or ${t.isPublished} = 1`).concurrently(),
  ],
);

/**
 * What one schema extracted from one meeting. `schema_id` is no foreign key: a result outlives its schema
 * (name, version and category are copied). Deleted with the meeting.
 */
export const meetingSchemaResults = pgTable(
  'meeting_schema_results',
  {
    id: text('id').primaryKey(),
    meetingId: text('meeting_id')
      .notNull()
      .references(() => meetings.id, { onDelete: 'cascade' }),
    // The meeting's workspace (the one that ran the schema): `downloads` counts these.
    workspaceId: text('workspace_id').notNull(),
    schemaId: text('schema_id').notNull(),
    schemaName: text('schema_name').notNull(),
    schemaVersion: integer('schema_version').notNull(),
    schemaCategory: text('schema_category').notNull(),
    fieldValues: jsonb('field_values').$type<MeetingSchemaFieldValue[]>().notNull(),
    scores: jsonb('scores').$type<Record<string, number>>().notNull(),
    overallScore: real('overall_score'),
    evidence: jsonb('evidence').$type<MeetingSchemaEvidenceSpan[]>().notNull(),
    // Quotes the extractor gave that were not found in the transcript (dropped); kept for review.
    droppedQuotes: integer('dropped_quotes').notNull().default(0),
    // The engine that made it (`offline` or the upstream model).
    engine: text('engine').notNull(),
    processingTimeMs: integer('processing_time_ms').notNull(),
    createdAt: timestampMs('created_at').notNull(),
    updatedAt: timestampMs('updated_at').notNull(),
  },
  (t) => [uniqueIndex('meeting_schema_results_meeting_schema_idx').on(t.meetingId, t.schemaId), index('meeting_schema_results_schema_idx').on(t.schemaId)],
);

/**
 * How many results of a schema each workspace holds, kept by a trigger on meeting_schema_results (migration
 * 0028) in the transaction that writes or deletes a result, cascades included: `usage_count` sums the
 * caller's workspaces' rows and `downloads` counts the rows of a schema, so neither reads the results.
 * No foreign keys: a result outlives its schema, and a row leaves when its last result does.
 */
export const meetingSchemaUsage = pgTable(
  'meeting_schema_usage',
  {
    schemaId: text('schema_id').notNull(),
    workspaceId: text('workspace_id').notNull(),
    results: integer('results').notNull(),
  },
  (t) => [primaryKey({ columns: [t.schemaId, t.workspaceId] })],
);
