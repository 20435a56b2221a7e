import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedFetcher, FetchError, isPrivateAddress } from '../../src/lib/guarded-fetch.js';

// The fetcher every caller-given URL goes through (lib/guarded-fetch.ts): the service's own network is
// refused, redirects are followed and bounded, bodies are bounded in size and decoded by charset.

let server: Server;
let base: string;
let requests = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    requests++;
    if (req.url === '/latin1') {
      res.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' });
      res.end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    } else if (req.url?.startsWith('/hop/')) {
      const left = Number(req.url.slice(5));
      res.writeHead(302, { location: left > 0 ? `/hop/${left - 1}` : '/latin1' });
      res.end();
    } else if (req.url === '/to-file') {
      res.writeHead(302, { location: 'file:///etc/passwd' });
      res.end();
    } else if (req.url === '/stalls') {
      // Headers and a first chunk, then nothing: only the time limit ends the read.
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first chunk ');
    } else if (req.url === '/big') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('x'.repeat(10_000));
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => (error instanceof FetchError ? error.reason : String(error)),
  );

describe('the guarded fetcher', () => {
  it('refuses loopback, private, link-local and metadata addresses without connecting', async () => {
    const before = requests;
    const fetcher = createGuardedFetcher();
    expect(await failure(fetcher.get(`${base}/latin1`))).toBe('blocked_address');
    expect(await failure(fetcher.get(`http://localhost:${new URL(base).port}/latin1`))).toBe('blocked_address');
    expect(await failure(fetcher.get('http://169.254.169.254/latest/meta-data/'))).toBe('blocked_address');
    expect(await failure(fetcher.get('http://[::ffff:10.0.0.1]/'))).toBe('blocked_address');
    expect(requests).toBe(before);
    for (const address of ['10.1.2.3', '172.16.0.1', '192.168.1.1', 'fe80::1', '::1', '0.0.0.0']) expect(isPrivateAddress(address)).toBe(true);
    expect(isPrivateAddress('93.184.216.34')).toBe(false);
  });

  it('follows redirects up to its limit, checking each hop, and decodes the declared charset', async () => {
    const fetcher = createGuardedFetcher({ allowPrivateAddresses: true });
    const response = await fetcher.get(`${base}/hop/2`);
    expect(response.url.pathname).toBe('/latin1');
    expect(response.mediaType).toBe('text/plain');
    expect(await response.text()).toBe('café');
    expect(await failure(fetcher.get(`${base}/hop/5`, { maxRedirects: 3 }))).toBe('too_many_redirects');
    expect(await failure(fetcher.get(`${base}/to-file`))).toBe('unsupported_protocol');
  });

  it('bounds the body: text is cut at maxBytes, the stream fails past it', async () => {
    const fetcher = createGuardedFetcher({ allowPrivateAddresses: true, maxBytes: 1_000 });
    expect((await (await fetcher.get(`${base}/big`)).text()).length).toBe(1_000);
    const chunks: Buffer[] = [];
    const streamed = (await fetcher.get(`${base}/big`)).body;
    const read = (async () => {
      for await (const chunk of streamed) chunks.push(chunk as Buffer);
    })();
    expect(await failure(read)).toBe('too_large');
  });

  it('ends a body that stalls after its headers at the time limit, streamed or as text', async () => {
    const fetcher = createGuardedFetcher({ allowPrivateAddresses: true, timeoutMs: 300 });
    const streamed = (await fetcher.get(`${base}/stalls`)).body;
    const read = (async () => {
      for await (const _chunk of streamed) {
      }
    })();
    expect(await failure(read)).toBe('timeout');
    expect(streamed.destroyed).toBe(true);
    expect(await failure((await fetcher.get(`${base}/stalls`)).text())).toBe('timeout');
  });
});
