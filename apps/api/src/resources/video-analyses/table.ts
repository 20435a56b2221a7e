import type { VideoAnalysisResult } from '@persona-api/types';
import { doublePrecision, index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { timestampMs } from '../../db/schema/columns.js';
import { users } from '../../db/schema/tenancy.js';
import { workspaces } from '../workspaces/table.js';

/** Video analyses (DECISIONS.md, Video analyses): the row is the job's source of truth. */
export const videoAnalyses = pgTable(
  'video_analyses',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    createdByUserId: text('created_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    // pending | generating | completed | failed
    status: text('status').notNull(),
    progress: integer('progress').notNull().default(0),
    // Exactly one of the two names the video.
    videoUrl: text('video_url'),
    fileId: text('file_id'),
    title: text('title').notNull(),
    brand: text('brand').notNull(),
    product: text('product').notNull(),
    primaryIntent: text('primary_intent').notNull(),
    secondaryIntent: text('secondary_intent').notNull(),
    tertiaryIntent: text('tertiary_intent').notNull(),
    goal: text('goal').notNull(),
    chunkDuration: integer('chunk_duration').notNull(),
    framesPerChunk: integer('frames_per_chunk').notNull(),
    durationSeconds: doublePrecision('duration_seconds'),
    creditsUsed: integer('credits_used').notNull(),
    // The charge to refund when the analysis fails.
    chargeLedgerId: text('charge_ledger_id'),
    error: text('error'),
    result: jsonb('result').$type<VideoAnalysisResult>(),
    createdAt: timestampMs('created_at').notNull(),
    updatedAt: timestampMs('updated_at').notNull(),
    completedAt: timestampMs('completed_at'),
  },
  (t) => [index('video_analyses_workspace_idx').on(t.workspaceId, t.createdAt, t.id)],
);
