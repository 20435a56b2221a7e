import { randomInt } from 'node:crypto';

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Uniformly random base62 text from the CSPRNG (randomInt has no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

/** Prefixed opaque ids (DECISIONS.md): `ws_…`, `proj_…`; 16 base62 characters is ~95 bits. */
export type IdPrefix =
  | 'acct'
  | 'usr'
  | 'stc'
  | 'key'
  | 'ws'
  | 'proj'
  | 'txn'
  | 'hold'
  | 'alert'
  | 'thr'
  | 'va'
  | 'gen'
  | 'bv'
  | 'bvsrc'
  | 'file'
  | 'fld'
  // Responses and their output items, legacy chat completions, custom personas, persona suggestions.
  | 'resp'
  | 'msg'
  | 'fc'
  | 'call'
  | 'chatcmpl'
  | 'cp'
  | 'psug'
  // Meetings.
  | 'mtg'
  // Meeting schemas, their fields and results.
  | 'msch'
  | 'msf'
  | 'msr'
  // Focus groups.
  | 'fg'
  // News stories and digests.
  | 'story'
  | 'dig'
  // Console sign-in sessions.
  | 'csn';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(16)}`;
}
