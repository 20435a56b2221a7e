import type { components } from '@persona-api/types';
import { and, eq, sql } from 'drizzle-orm';
import { modelResponses } from '../../db/schema/index.js';
import { errors } from '../../http/errors.js';
import type { RequestContext } from '../../http/context.js';
import type { ResolvedInputItem } from './request.js';

type InputItem = components['schemas']['ResponseInputItem'];
type OutputItem = components['schemas']['ResponseOutputItem'];

/**
 * Replaces each `item_reference` of `input` by the output item it names (DECISIONS.md, Responses): an
 * `msg_…` message or `fc_…` function call of one of the caller's own stored responses. An id that is not
 * such an item — unknown, or another account's — is the same 400 `invalid_parameter` at `input.N.id`, so
 * the answer does not reveal whether another account has it.
 */
export async function resolveItemReferences(ctx: RequestContext, input: string | InputItem[]): Promise<string | ResolvedInputItem[]> {
  if (typeof input === 'string' || !input.some((item) => 'type' in item && item.type === 'item_reference')) return input as string | ResolvedInputItem[];
  const resolved: ResolvedInputItem[] = [];
  for (const [index, item] of input.entries()) {
    if (!('type' in item) || item.type !== 'item_reference') {
      resolved.push(item as ResolvedInputItem);
      continue;
    }
    const found = await findOutputItem(ctx, item.id);
    if (!found) throw errors.invalidParameter(`input.${index}.id`, `No output item ${item.id} exists in a stored response of this account.`);
    resolved.push(found);
  }
  return resolved;
}

/** An output item as the input item that sends it back: a function call, or an assistant message's text. */
export function asInputItem(item: OutputItem): ResolvedInputItem {
  if (item.type === 'function_call') return { type: 'function_call', call_id: item.call_id, name: item.name, arguments: item.arguments };
  return { role: 'assistant', content: item.content.map((part) => ({ type: 'output_text' as const, text: part.text })) };
}

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

/** The output item with this id as the input item that sends it back (findStoredOutputItem). */
export async function findOutputItem(ctx: RequestContext, id: string): Promise<ResolvedInputItem | null> {
  const item = await findStoredOutputItem(ctx, id);
  return item ? asInputItem(item) : null;
}
