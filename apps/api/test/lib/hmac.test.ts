import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hmacSha256, hmacSha256Hex } from '../../src/lib/hmac.js';

describe('hmacSha256', () => {
  it('equals createHmac for keys shorter than, as long as and longer than a block, and any message', () => {
    for (const keyLength of [0, 1, 16, 32, 63, 64, 65, 100, 200]) {
      for (let round = 0; round < 20; round++) {
        const key = randomBytes(keyLength);
        const message = round === 0 ? '' : `${randomBytes(round * 7).toString('base64')}é ☃ 𝄞 ${round}`;
        expect(hmacSha256Hex(key, message)).toBe(createHmac('sha256', key).update(message, 'utf8').digest('hex'));
        // The same key object again: its pads come from the cache.
        expect(hmacSha256(key, message).equals(createHmac('sha256', key).update(message, 'utf8').digest())).toBe(true);
      }
    }
  });

  it('gives the RFC 4231 test case 2 value', () => {
    expect(hmacSha256Hex(Buffer.from('Jefe'), 'what do ya want for nothing?')).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
  });
});
