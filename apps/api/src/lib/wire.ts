/** How the contract writes times and deletions, in one place (DECISIONS.md, Conventions). */

const DAY_MS = 86_400_000;
/** Years 0000–9999: toISOString writes others with a sign and six digits. */
const FOUR_DIGIT_YEARS_END_MS = 253_402_300_800_000;
/** `YYYY-MM-DDT` per day since the epoch, for the days recently written. */
const dayPrefixes = new Map<number, string>();
const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);
const pad3 = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

/**
 * An ISO 8601 date-time in UTC with milliseconds: the format of every `*_at` field of our own resources.
 * Exactly `date.toISOString()`, with the date part kept per day and the time written from the milliseconds:
 * a list page writes two per item, and toISOString took 0.72 µs each against 0.12 µs (3.6 % of a list call).
 */
export function iso(date: Date): string {
  const ms = date.getTime();
  if (!(ms >= 0 && ms < FOUR_DIGIT_YEARS_END_MS)) return date.toISOString();
  const day = Math.floor(ms / DAY_MS);
  let prefix = dayPrefixes.get(day);
  if (prefix === undefined) {
    if (dayPrefixes.size >= 4096) dayPrefixes.clear();
    prefix = date.toISOString().slice(0, 11);
    dayPrefixes.set(day, prefix);
  }
  let rest = ms - day * DAY_MS;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  return `${prefix}${pad2(hours)}:${pad2(minutes)}:${pad2(seconds)}.${pad3(rest - seconds * 1000)}Z`;
}

/** Whole seconds since the epoch: the format of the OpenAI-shaped objects (`created`, `created_at` of responses and personas). */
export const unix = (date: Date): number => Math.floor(date.getTime() / 1000);

/** The answer of every DELETE: `{id, object, deleted: true}`. */
export interface Deleted<Object extends string> {
  id: string;
  object: Object;
  deleted: true;
}

export const deleted = <Object extends string>(object: Object, id: string): Deleted<Object> => ({ id, object, deleted: true });
