import type { FocusGroup } from '@persona-api/types';
import { iso } from '../../lib/wire.js';
import type { focusGroups } from './table.js';

export type FocusGroupRow = typeof focusGroups.$inferSelect;

export function toFocusGroup(row: FocusGroupRow): FocusGroup {
  return {
    id: row.id,
    object: 'focus_group',
    question: row.question,
    instructions: row.instructions,
    persona_ids: row.personas.map((persona) => persona.id),
    status: row.status,
    // The answers so far, in request order.
    answers: row.answers.filter((answer) => answer !== null),
    summary: row.summary ?? null,
    usage: {
      input_tokens: row.inputTokens,
      output_tokens: row.outputTokens,
      total_tokens: row.inputTokens + row.outputTokens,
      credits_used: row.creditsUsed,
    },
    workspace_id: row.workspaceId,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}
