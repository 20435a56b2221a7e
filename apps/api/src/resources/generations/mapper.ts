import type { Generation, GenerationApp } from '@persona-api/types';
import { iso } from '../../lib/wire.js';
import type { generationApps, generations } from './table.js';

export type GenerationAppRow = typeof generationApps.$inferSelect;
export type GenerationRow = typeof generations.$inferSelect;

export const toGenerationApp = (row: GenerationAppRow): GenerationApp => ({
  id: row.id,
  object: 'generation_app',
  name: row.name,
  category: row.category,
  description: row.description,
  input_fields: row.inputFields,
  output_content_type: row.outputContentType,
  estimated_credits: row.estimatedCredits,
  max_output_tokens: row.maxOutputTokens,
  created_at: iso(row.createdAt),
  updated_at: iso(row.updatedAt),
});

export const toGeneration = (row: GenerationRow): Generation => ({
  id: row.id,
  object: 'generation',
  title: row.title,
  output: row.output,
  content_type: row.contentType,
  workspace_id: row.workspaceId,
  project_id: row.projectId,
  app: row.app,
  brand_voice: row.brandVoice,
  persona: row.persona,
  input_data: row.inputData,
  created_at: iso(row.createdAt),
  updated_at: iso(row.updatedAt),
});
