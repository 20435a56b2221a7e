import { hash } from 'node:crypto';
import type { RequestContext } from '../../http/context.js';
import { ApiError } from '../../http/errors.js';
import { chainReferences, readChain, type ChainTurn } from '../../ai/responses/conversation.js';
import { findStoredOutputItem } from '../../ai/responses/item-reference.js';
import {
  givenAsInput,
  givenItems,
  ITEM_PREFIX,
  kindOf,
  listedItem,
  ownIdOf,
  type GivenItem,
  type ItemKind,
  type ListedItem,
} from '../../ai/responses/items.js';
import { itemPage, type ItemPageQuery } from '../../ai/responses/item-page.js';
import { inputCharacters, MAX_INPUT_CHARS } from '../../ai/responses/request.js';
import { readItemRange } from '../conversations/repository.js';
import { findStoredInput } from './stored.js';

/**
 * Gives listed items their ids (DECISIONS.md, Responses): an item keeps the id it has when that id has
 * the item's prefix and is not taken yet in this list, otherwise it gets one derived from its response's
 * id and its position there, the same on every call, so ids work as cursors.
 */
const OWN_ID = {
  message: /^msg_[A-Za-z0-9_-]{1,60}$/,
  function_call: /^fc_[A-Za-z0-9_-]{1,61}$/,
  function_call_output: /^fco_[A-Za-z0-9_-]{1,60}$/,
} satisfies Record<ItemKind, RegExp>;

class ItemIds {
  readonly #taken = new Set<string>();

  assign(kind: ItemKind, own: string | undefined, responseId: string, position: number): string {
    const prefix = ITEM_PREFIX[kind];
    let id = own !== undefined && OWN_ID[kind].test(own) ? own : undefined;
    for (let attempt = 0; id === undefined || this.#taken.has(id); attempt++) {
      id = `${prefix}_${hash('sha256', `${responseId}/${position}/${attempt}`, 'base64url').slice(0, 24)}`;
    }
    this.#taken.add(id);
    return id;
  }

  list(given: GivenItem, responseId: string, position: number): ListedItem {
    return listedItem(given, this.assign(kindOf(given), ownIdOf(given), responseId, position));
  }
}

/**
 * The items the model was given for response `id`, oldest first: the turns its `previous_response_id`
 * restores as they stand now (readChain, within the budget its own input left), each turn's input then
 * output, then its own input. The same bounded reads as the call that made it; references to responses
 * deleted since are left out.
 */
async function itemsOf(ctx: RequestContext, id: string): Promise<ListedItem[]> {
  const stored = await findStoredInput(ctx.db, ctx.auth.accountId, id);
  const own = await givenItems(stored.input, (itemId) => findStoredOutputItem(ctx, itemId));
  const ids = new ItemIds();
  const items: ListedItem[] = [];
  if (stored.conversation) {
    // The conversation's items it read, those still there, under their own ids.
    const { id: conversationId, from, to } = stored.conversation;
    const read = await readItemRange(ctx.db, ctx.auth.accountId, conversationId, from, to);
    read.forEach((item, position) => items.push({ ...item, id: ids.assign(item.type, item.id, conversationId, from + position) }));
  }
  let turns: ChainTurn[] = [];
  if (stored.previousResponseId) {
    const budget = MAX_INPUT_CHARS - inputCharacters(own.map(givenAsInput));
    try {
      turns = await readChain(ctx, stored.previousResponseId, { budget, truncation: 'auto' });
    } catch (error) {
      // Every turn before it was deleted since: it lists its own input only.
      if (!(error instanceof ApiError && error.code === 'previous_response_not_found')) throw error;
    }
  }
  const resolve = chainReferences(ctx, turns);
  for (const turn of turns) {
    const given = [...(await givenItems(turn.input, resolve)), ...turn.output.map((item) => ({ referenced: item }))];
    given.forEach((item, position) => items.push(ids.list(item, turn.id, position)));
  }
  own.forEach((item, position) => items.push(ids.list(item, id, position)));
  return items;
}

/** A page of GET /responses/{id}/input_items: newest first unless `order=asc`, after the item `cursor` or `after` names. */
export async function listInputItems(ctx: RequestContext, id: string, query: ItemPageQuery) {
  const items = await itemsOf(ctx, id);
  return itemPage(query, (from, order, count) => {
    if (order === 'desc') items.reverse();
    const start = from === undefined ? 0 : items.findIndex((item) => item.id === from) + 1;
    return start === 0 && from !== undefined ? null : items.slice(start, start + count);
  });
}
