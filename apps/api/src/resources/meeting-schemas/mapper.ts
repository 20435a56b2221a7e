import type { MeetingSchema, MeetingSchemaCategory, MeetingSchemaResult } from '@persona-api/types';
import { iso } from '../../lib/wire.js';
import type { WorkspaceRole } from '../../workspaces/roles.js';
import { BUILT_IN_AUTHOR } from './built-ins.js';
import type { ResultRow } from './repository.js';
import type { meetingSchemas } from './table.js';

/** A schema row as the service writes it: `downloads` is its trigger's alone, read as SchemaView.downloads. */
export type SchemaRow = Omit<typeof meetingSchemas.$inferSelect, 'downloads'>;

/** A schema as one caller sees it: their role when it belongs to a workspace of theirs (null otherwise). */
export interface SchemaView {
  row: SchemaRow;
  role: WorkspaceRole | null;
  workspaceName: string | null;
  downloads: number;
  usage: number;
}

/** Another account's (or another workspace's) published schema: read-only, without its owners' ids. */
export const isMarketplace = (view: SchemaView) => view.row.isBuiltIn === 0 && view.role === null;

export function toMeetingSchema(view: SchemaView): MeetingSchema {
  const { row } = view;
  const builtIn = row.isBuiltIn === 1;
  const published = builtIn || row.isPublished === 1;
  const marketplace = isMarketplace(view);
  return {
    id: row.id,
    object: 'meeting.schema',
    name: row.name,
    description: row.description,
    category: row.category as MeetingSchemaCategory,
    is_built_in: builtIn,
    is_published: published,
    version: row.version,
    workspace_id: builtIn || marketplace ? null : row.workspaceId,
    user_id: builtIn || marketplace ? null : row.userId,
    is_marketplace: marketplace,
    author_name: builtIn ? BUILT_IN_AUTHOR : published ? (view.workspaceName ?? null) : null,
    downloads: published ? view.downloads : null,
    // No rating operation exists yet (DECISIONS.md): null.
    average_rating: null,
    tags: row.tags,
    fields: row.fields,
    field_count: row.fields.length,
    usage_count: view.usage,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

export function toSchemaResult(row: ResultRow, includeEvidence = true): MeetingSchemaResult {
  return {
    id: row.id,
    object: 'meeting.schema_result',
    meeting_id: row.meetingId,
    schema_id: row.schemaId,
    schema_name: row.schemaName,
    schema_version: row.schemaVersion,
    schema_category: row.schemaCategory as MeetingSchemaCategory,
    field_values: row.fieldValues,
    scores: row.scores,
    ...(row.overallScore === null ? {} : { overall_score: row.overallScore }),
    evidence: includeEvidence ? row.evidence : [],
    processing_time_ms: row.processingTimeMs,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}
