import { randomFillSync, randomInt } from 'node:crypto';

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Uniformly random base62 text from the CSPRNG (randomInt has no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

// CSPRNG bytes drawn 4 KiB at a time: one randomFillSync per request id cost 3 % of a list call's CPU.
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

/** `bytes` random bytes from the CSPRNG as base64url text (a request id's 12 bytes are 16 characters). */
export function randomToken(bytes: number): string {
  if (bytes > pool.length) throw new RangeError(`randomToken: at most ${pool.length} bytes`);
  if (poolOffset + bytes > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const token = pool.toString('base64url', poolOffset, poolOffset + bytes);
  poolOffset += bytes;
  return token;
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
  | 'csn'
  // Conversations and function-call outputs stored as their items.
  | 'conv'
  | 'fco';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(16)}`;
}
