import type { BrandVoiceExamplePhrase, BrandVoiceSources, BrandVoiceTone, BrandVoiceVocabulary, BrandVoiceWritingStyle } from '@persona-api/types';
import { index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { timestampMs } from '../../db/schema/columns.js';
import { users } from '../../db/schema/tenancy.js';
import { workspaces } from '../workspaces/table.js';

export type BrandVoiceStatusValue = 'pending' | 'generating' | 'completed' | 'failed';

/**
 * Brand voices (DECISIONS.md, Brand voices). `sources` is stored in its wire shape, each source with its
 * outcome, because the learning job rewrites the outcomes as it reads; `charge_ledger_id` is the 100-credit
 * charge a failure or an early delete refunds.
 */
export const brandVoices = pgTable(
  'brand_voices',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    createdByUserId: text('created_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    label: text('label').notNull(),
    usageContext: text('usage_context').notNull(),
    status: text('status').$type<BrandVoiceStatusValue>().notNull(),
    error: text('error'),
    voiceSummary: text('voice_summary'),
    tone: jsonb('tone').$type<BrandVoiceTone>().notNull(),
    writingStyle: jsonb('writing_style').$type<BrandVoiceWritingStyle>().notNull(),
    vocabulary: jsonb('vocabulary').$type<BrandVoiceVocabulary>().notNull(),
    examplePhrases: jsonb('example_phrases').$type<BrandVoiceExamplePhrase[]>(),
    sources: jsonb('sources').$type<BrandVoiceSources>().notNull(),
    creditsCharged: integer('credits_charged').notNull(),
    chargeLedgerId: text('charge_ledger_id'),
    createdAt: timestampMs('created_at').notNull(),
    updatedAt: timestampMs('updated_at').notNull(),
  },
  (t) => [index('brand_voices_workspace_idx').on(t.workspaceId, t.createdAt, t.id)],
);
