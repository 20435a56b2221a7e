import type { BrandVoice } from '@persona-api/types';
import { iso } from '../../lib/wire.js';
import type { brandVoices } from './table.js';

export type BrandVoiceRow = typeof brandVoices.$inferSelect;

export const toBrandVoice = (row: BrandVoiceRow): BrandVoice => ({
  id: row.id,
  object: 'brand_voice',
  label: row.label,
  usage_context: row.usageContext,
  status: row.status,
  error: row.error,
  voice_summary: row.voiceSummary,
  tone: row.tone,
  writing_style: row.writingStyle,
  vocabulary: row.vocabulary,
  example_phrases: row.examplePhrases,
  sources: row.sources,
  credits_charged: row.creditsCharged,
  workspace_id: row.workspaceId,
  created_at: iso(row.createdAt),
  updated_at: iso(row.updatedAt),
});

/** What a voice holds until it is learned (DECISIONS.md: empty objects, null summary and phrases). */
export const emptyVoice = (): Pick<BrandVoiceRow, 'voiceSummary' | 'tone' | 'writingStyle' | 'vocabulary' | 'examplePhrases'> => ({
  voiceSummary: null,
  tone: { adjectives: [], dos: [], donts: [] },
  writingStyle: { sentence_structure: '', jargon_usage: '' },
  vocabulary: { preferred_terms: [], avoid_terms: [] },
  examplePhrases: null,
});
