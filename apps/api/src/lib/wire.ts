/** How the contract writes times and deletions, in one place (DECISIONS.md, Conventions). */

/** An ISO 8601 date-time in UTC with milliseconds: the format of every `*_at` field of our own resources. */
export const iso = (date: Date): string => date.toISOString();

/** Whole seconds since the epoch: the format of the OpenAI-shaped objects (`created`, `created_at` of responses and personas). */
export const unix = (date: Date): number => Math.floor(date.getTime() / 1000);

/** The answer of every DELETE: `{id, object, deleted: true}`. */
export interface Deleted<Object extends string> {
  id: string;
  object: Object;
  deleted: true;
}

export const deleted = <Object extends string>(object: Object, id: string): Deleted<Object> => ({ id, object, deleted: true });
