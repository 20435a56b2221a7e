import { describe, expect, it } from 'vitest';
import { randomToken } from '../../src/lib/ids.js';
import { iso } from '../../src/lib/wire.js';

describe('iso', () => {
  it('writes exactly what toISOString writes, across days, millisecond edges and 100 000 random instants', () => {
    const edges = [0, 1, 999, 1000, 59_999, 86_399_999, 86_400_000, Date.UTC(2026, 10, 28, 23, 59, 59, 999), Date.UTC(2024, 1, 29, 12), 253_402_300_799_999];
    const random = Array.from({ length: 100_000 }, () => Math.floor(Math.random() * 253_402_300_800_000));
    for (const ms of [...edges, ...random]) expect(iso(new Date(ms))).toBe(new Date(ms).toISOString());
  });

  it('falls back to toISOString outside years 0000–9999, and refuses an invalid date as it does', () => {
    for (const ms of [-1, -62_198_755_200_000, 253_402_300_800_000, 8.64e15]) expect(iso(new Date(ms))).toBe(new Date(ms).toISOString());
    expect(() => iso(new Date(Number.NaN))).toThrow(RangeError);
  });
});

describe('randomToken', () => {
  it('is base64url of the asked length, different every time, across pool refills', () => {
    const tokens = Array.from({ length: 2000 }, () => randomToken(12));
    for (const token of tokens) expect(token).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(new Set(tokens).size).toBe(tokens.length);
    expect(randomToken(3)).toMatch(/^[A-Za-z0-9_-]{4}$/);
    expect(() => randomToken(5000)).toThrow(RangeError);
  });
});
