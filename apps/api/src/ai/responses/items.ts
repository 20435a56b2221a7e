import type { components } from '@persona-api/types';
import type { RequestContext } from '../../http/context.js';
import { errors } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import { findStoredOutputItem } from './item-reference.js';
import { assistantText, textOf, type ResolvedInputItem } from './request.js';

type InputItem = components['schemas']['ResponseInputItem'];
type OutputItem = components['schemas']['ResponseOutputItem'];
/** An item in the listed form: what input_items and a conversation's items return. */
export type ListedItem = components['schemas']['ResponseItem'];

/** An input item as sent, or the output item one of its `item_reference`s named. */
export type GivenItem = { sent: ResolvedInputItem } | { referenced: OutputItem };

/** The id prefix of each kind of listed item. */
export const ITEM_PREFIX = { message: 'msg', function_call: 'fc', function_call_output: 'fco' } as const;
export type ItemKind = keyof typeof ITEM_PREFIX;

export function kindOf(given: GivenItem): ItemKind {
  const item = 'sent' in given ? given.sent : given.referenced;
  return 'type' in item && (item.type === 'function_call' || item.type === 'function_call_output') ? item.type : 'message';
}

/** The id the item came with, if any (an output item's; an input item's optional one). */
export const ownIdOf = (given: GivenItem): string | undefined => ('sent' in given ? ('id' in given.sent ? given.sent.id : undefined) : given.referenced.id);

/** The item as listed under `id`: messages with their text as parts, a function call's output as its text. */
export function listedItem(given: GivenItem, id: string): ListedItem {
  if ('referenced' in given) return { ...given.referenced, id };
  const item = given.sent;
  if ('type' in item && item.type === 'function_call') {
    return { id, type: 'function_call', call_id: item.call_id, name: item.name, arguments: item.arguments, status: 'completed' };
  }
  if ('type' in item && item.type === 'function_call_output') {
    return { id, type: 'function_call_output', call_id: item.call_id, output: textOf(item.output), status: 'completed' };
  }
  if (item.role === 'assistant') {
    return {
      id,
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: assistantText(item.content), annotations: [] }],
    };
  }
  const content =
    typeof item.content === 'string'
      ? [{ type: 'input_text' as const, text: item.content }]
      : item.content.map(({ text }) => ({ type: 'input_text' as const, text }));
  return { id, type: 'message', role: item.role, status: 'completed', content };
}

/** Input whose references are resolved already, as given items: a string is one user message. */
export const sentItems = (input: string | ResolvedInputItem[]): GivenItem[] =>
  typeof input === 'string' ? [{ sent: { role: 'user', content: input } }] : input.map((item) => ({ sent: item }));

/** Given items as listed under new ids of their kind: what a conversation stores. */
export const withNewIds = (given: readonly GivenItem[]): ListedItem[] => given.map((entry) => listedItem(entry, newId(ITEM_PREFIX[kindOf(entry)])));

/** A listed item (an output item too) as the input item that sends it to the model again. */
export function inputItemOf(item: ListedItem): ResolvedInputItem {
  switch (item.type) {
    case 'function_call':
      return { type: 'function_call', call_id: item.call_id, name: item.name, arguments: item.arguments };
    case 'function_call_output':
      return { type: 'function_call_output', call_id: item.call_id, output: item.output };
    default:
      return item.role === 'assistant'
        ? { role: 'assistant', content: item.content.map(({ text }) => ({ type: 'output_text' as const, text })) }
        : { role: item.role, content: item.content.map(({ text }) => ({ type: 'input_text' as const, text })) };
  }
}

/** The given item as an input item (a referenced output item as the model would get it back). */
export const givenAsInput = (given: GivenItem): ResolvedInputItem => ('sent' in given ? given.sent : inputItemOf(given.referenced));

/**
 * `input` as given items: a string is one user message; each `item_reference` is the output item it names
 * (`resolve`), or `missing(index)` when it names none — left out, or an error the caller throws.
 */
export async function givenItems(
  input: string | InputItem[],
  resolve: (id: string) => Promise<OutputItem | null>,
  missing: (index: number, id: string) => void = () => {},
): Promise<GivenItem[]> {
  if (typeof input === 'string') return sentItems(input);
  const given: GivenItem[] = [];
  for (const [index, item] of input.entries()) {
    if (!('type' in item) || item.type !== 'item_reference') given.push({ sent: item as ResolvedInputItem });
    else {
      const found = await resolve(item.id);
      if (found) given.push({ referenced: found });
      else missing(index, item.id);
    }
  }
  return given;
}

/**
 * Items a caller sends (`input`, a conversation's `items`): every `item_reference` must name an output item
 * of one of the account's stored responses (DECISIONS.md, Responses). Any other id — unknown, or another
 * account's — is the same 400 `invalid_parameter` at `param.N.id`, so the answer does not reveal whether
 * another account has it.
 */
export const givenItemsOfCaller = (ctx: RequestContext, items: InputItem[], param: string): Promise<GivenItem[]> =>
  givenItems(
    items,
    (id) => findStoredOutputItem(ctx, id),
    (index, id) => {
      throw errors.invalidParameter(`${param}.${index}.id`, `No output item ${id} exists in a stored response of this account.`);
    },
  );

/** `input` with each `item_reference` replaced by the output item it names, as the model gets it (givenItemsOfCaller). */
export async function resolveItemReferences(ctx: RequestContext, input: string | InputItem[]): Promise<string | ResolvedInputItem[]> {
  if (typeof input === 'string' || !input.some((item) => 'type' in item && item.type === 'item_reference')) return input as string | ResolvedInputItem[];
  return (await givenItemsOfCaller(ctx, input, 'input')).map(givenAsInput);
}
