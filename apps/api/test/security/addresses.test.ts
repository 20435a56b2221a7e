import { describe, expect, it } from 'vitest';
import { createGuardedFetcher, FetchError, isPrivateAddress } from '../../src/lib/guarded-fetch.js';

// SECURITY.md, Addresses: only public unicast is fetched; every IPv6 form that embeds or maps an IPv4
// address is judged by (or refused for) what it embeds.

const REFUSED = [
  // IPv4 ranges
  '127.0.0.1',
  '127.255.255.254',
  '10.0.0.1',
  '172.16.0.1',
  '192.168.1.1',
  '169.254.169.254',
  '100.64.0.1',
  '0.0.0.0',
  '255.255.255.255',
  '224.0.0.1',
  '192.0.2.1',
  '198.18.0.1',
  '240.0.0.1',
  // IPv6 ranges
  '::',
  '::1',
  'fe80::1',
  'fc00::1',
  'fd12:3456::1',
  'ff02::1',
  'fec0::1',
  '2001:db8::1',
  '100::1',
  // IPv4 inside IPv6: mapped, compatible (and its URL-normalised hex form), SIIT, NAT64, 6to4, Teredo
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '::ffff:169.254.169.254',
  '::127.0.0.1',
  '::7f00:1',
  '::a9fe:a9fe',
  '::ffff:0:7f00:1',
  '64:ff9b::7f00:1',
  '64:ff9b::a9fe:a9fe',
  '64:ff9b:1::a00:1',
  '2002:7f00:1::1',
  '2002:a9fe:a9fe::1',
  '2001:0:4136:e378:8000:63bf:3fff:fdd2',
  // not addresses at all
  'localhost',
  '',
  '1.2.3',
  '::ffff:999.1.1.1',
];
const ALLOWED = ['93.184.216.34', '1.1.1.1', '8.8.8.8', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '::ffff:93.184.216.34'];

describe('address classification (ipaddr.js range names)', () => {
  it('refuses every non-public form', () => {
    expect(REFUSED.filter((address) => !isPrivateAddress(address))).toEqual([]);
  });
  it('allows public unicast, IPv4-mapped public addresses included', () => {
    expect(ALLOWED.filter((address) => isPrivateAddress(address))).toEqual([]);
  });

  it('refuses URL literals before connecting, whatever way the URL spells them', async () => {
    const fetcher = createGuardedFetcher();
    for (const url of [
      'https://[::127.0.0.1]/x',
      'http://[::ffff:127.0.0.1]:8080/',
      'http://[::ffff:7f00:1]/',
      'http://[64:ff9b::a9fe:a9fe]/latest/meta-data/',
      'http://[2002:a9fe:a9fe::]/',
      'http://[fd00::1]/',
      'http://2130706433/',
      'http://0x7f.0.0.1/',
      'http://0177.0.0.1/',
      'http://127.1/',
      'http://169.254.169.254/latest/meta-data/',
      // a name that resolves to loopback: refused on the resolved address
      'http://localhost:9/',
    ]) {
      const error = await fetcher.get(url).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error, url).toBeInstanceOf(FetchError);
      expect((error as FetchError).reason, url).toBe('blocked_address');
    }
  });
});
