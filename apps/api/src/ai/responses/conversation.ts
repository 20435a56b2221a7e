import type { components } from '@persona-api/types';
import { sql } from 'drizzle-orm';
import { modelResponses } from '../../db/schema/index.js';
import { rowsOf } from '../../db/sql.js';
import { apiError } from '../../http/errors.js';
import type { RequestContext } from '../../http/context.js';
import { findStoredOutputItem } from './item-reference.js';
import { givenAsInput, givenItems, inputItemOf } from './items.js';
import { itemCharacters, MAX_INPUT_CHARS, type ResolvedInputItem } from './request.js';

type InputItem = components['schemas']['ResponseInputItem'];
type OutputItem = components['schemas']['ResponseOutputItem'];

/** The most earlier responses one call restores (DECISIONS.md, Responses): a bound on the chain's read. */
export const MAX_RESTORED_RESPONSES = 1_000;

/** Characters of a turn's output as `previous_response_id` restores it (messages' text, calls' arguments). */
export const outputCharacters = (output: readonly OutputItem[]): number => output.reduce((sum, item) => sum + itemCharacters(inputItemOf(item)), 0);

interface ChainRow {
  id: string;
  input: string | InputItem[];
  output: OutputItem[] | null;
  chars: number;
  previous: string | null;
}

/** A turn of a restored conversation: its response's id, its input as sent and its output. */
export interface ChainTurn {
  id: string;
  input: string | InputItem[];
  output: OutputItem[];
}

/**
 * The turns `previousId` continues (DECISIONS.md, Responses), oldest first, within `budget` characters.
 * One recursive statement walks the chain newest first by primary key and stops once the turns read pass
 * the budget or MAX_RESTORED_RESPONSES, so a call reads at most one turn more than it can use. A chain that
 * does not fit is a 400 `context_length_exceeded` unless `truncation` is `auto`, which drops the oldest turns.
 */
export async function readChain(
  ctx: RequestContext,
  previousId: string,
  { budget, truncation }: { budget: number; truncation: 'auto' | 'disabled' },
): Promise<ChainTurn[]> {
  const account = ctx.auth.accountId;
  // Responses stored before turn_chars existed are measured from their JSON (an upper bound).
  const chars = (row: string) =>
    sql.raw(`coalesce(${row}.turn_chars, length((${row}.request -> 'input')::text) + length(coalesce(${row}.body -> 'output', '[]'::jsonb)::text))`);
  const rows = rowsOf<ChainRow>(
    await ctx.db.execute(sql`with recursive chain as (
        select r.id, r.request, r.body, ${chars('r')}::bigint as chars, ${chars('r')}::bigint as total, 1 as depth
        from ${modelResponses} r
        where r.id = ${previousId} and r.account_id = ${account} and r.object = 'response'
        union all
        select r.id, r.request, r.body, ${chars('r')}::bigint, chain.total + ${chars('r')}, chain.depth + 1
        from chain join ${modelResponses} r on r.id = chain.request ->> 'previous_response_id'
        where chain.total <= ${budget}::bigint and chain.depth < ${MAX_RESTORED_RESPONSES}::int
          and r.account_id = ${account} and r.object = 'response'
      )
      select id, request -> 'input' as input, body -> 'output' as output, chars::int as chars,
        request ->> 'previous_response_id' as previous
      from chain order by depth`),
  );
  if (rows.length === 0) {
    throw apiError('previous_response_not_found', `Previous response with id '${previousId}' not found.`, 'previous_response_id');
  }
  // Newest first: keep whole turns while they fit.
  let used = 0;
  let kept = 0;
  while (kept < rows.length && used + rows[kept]!.chars <= budget) used += rows[kept++]!.chars;
  const last = rows.at(-1)!;
  // The walk stopped at its cap with more before it: that chain does not fit either.
  const cut = kept < rows.length || (rows.length === MAX_RESTORED_RESPONSES && last.previous !== null);
  if (cut && truncation !== 'auto') {
    throw apiError(
      'context_length_exceeded',
      rows.length === MAX_RESTORED_RESPONSES && kept === rows.length
        ? `The conversation of previous_response_id has more than ${MAX_RESTORED_RESPONSES} responses. Set truncation to "auto" to drop its oldest turns.`
        : `The conversation of previous_response_id and input together exceed ${MAX_INPUT_CHARS} characters. Set truncation to "auto" to drop its oldest turns.`,
      'input',
    );
  }
  return rows
    .slice(0, kept)
    .reverse()
    .map((row) => ({ id: row.id, input: row.input, output: row.output ?? [] }));
}

/**
 * Finds the output items the `item_reference`s of restored turns name: most often an output of one of
 * those turns, otherwise one lookup in the index of output item ids. Null when it was deleted since.
 */
export function chainReferences(ctx: RequestContext, turns: readonly ChainTurn[]): (id: string) => Promise<OutputItem | null> {
  const outputs = new Map<string, OutputItem>();
  for (const turn of turns) for (const item of turn.output) outputs.set(item.id, item);
  return async (id) => outputs.get(id) ?? (await findStoredOutputItem(ctx, id));
}

/**
 * The conversation `previousId` continues, as input items for the engine: each kept turn's input (its
 * `item_reference`s resolved), then its output (readChain for the bounds and `truncation`).
 */
export async function restoreConversation(
  ctx: RequestContext,
  previousId: string,
  bounds: { budget: number; truncation: 'auto' | 'disabled' },
): Promise<ResolvedInputItem[]> {
  const turns = await readChain(ctx, previousId, bounds);
  const referenced = chainReferences(ctx, turns);
  const history: ResolvedInputItem[] = [];
  for (const turn of turns) {
    // References to responses deleted since are left out.
    history.push(...(await givenItems(turn.input, referenced)).map(givenAsInput), ...turn.output.map(inputItemOf));
  }
  return history;
}
