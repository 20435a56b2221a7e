import type { components } from '@persona-api/types';
import { and, eq, sql } from 'drizzle-orm';
import { modelResponses } from '../../db/schema/index.js';
import type { RequestContext } from '../../http/context.js';

type OutputItem = components['schemas']['ResponseOutputItem'];

/**
 * The output item with this id in one of the account's stored responses: a lookup in the index of output
 * item ids (model_responses_output_items_idx, the same expression), so its cost does not grow with the
 * account's history.
 */
export async function findStoredOutputItem(ctx: RequestContext, id: string): Promise<OutputItem | null> {
  const [row] = await ctx.db
    .select({ body: modelResponses.body })
    .from(modelResponses)
    .where(
      and(
        sql`jsonb_path_query_array((${modelResponses.body} -> 'output'), '$[*].id') @> ${JSON.stringify([id])}::jsonb`,
        eq(modelResponses.accountId, ctx.auth.accountId),
        eq(modelResponses.object, 'response'),
      ),
    )
    .limit(1);
  const output = (row?.body as { output?: OutputItem[] } | undefined)?.output ?? [];
  return output.find((candidate) => candidate.id === id) ?? null;
}
