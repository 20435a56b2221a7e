import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, length: number, options: object) => Promise<Buffer>;

/**
 * OWASP's scrypt parameters (DECISIONS.md, Console): N=2^17, r=8, p=1 — 128 MiB and ~0.2 s per hash.
 * New hashes use these; a stored hash keeps its own. The test suite lowers N to keep its many sign-ins fast.
 */
export const passwordCost = { N: 2 ** 17, r: 8, p: 1 };
const HASH_BYTES = 64;

const maxmemFor = (cost: { N: number; r: number }) => 128 * cost.N * cost.r + 1024 * 1024;

/** `scrypt$N$r$p$salt$hash` (base64url): the parameters travel with the hash, so they can be raised later. */
export async function hashPassword(password: string, cost = passwordCost): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(password.normalize('NFKC'), salt, HASH_BYTES, { ...cost, maxmem: maxmemFor(cost) });
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const cost = { N: Number(n), r: Number(r), p: Number(p) };
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scryptAsync(password.normalize('NFKC'), Buffer.from(salt, 'base64url'), expected.length, { ...cost, maxmem: maxmemFor(cost) });
  return timingSafeEqual(actual, expected);
}

/** A hash of a random password: compared against when the e-mail is unknown, so both cost one scrypt. */
let decoy: Promise<string> | null = null;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(24).toString('base64url'));
  return decoy;
}
