import { lookup as dnsLookup, type LookupAddress, type LookupOneOptions } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { convert } from 'html-to-text';

/** How persona-suggestion sources of type url are read. */
export interface SourceFetchOptions {
  /** Longest time one page may take, redirects included. */
  timeoutMs: number;
  /** Allow loopback and private addresses (tests; an intranet deployment). Off by default. */
  allowPrivateAddresses: boolean;
  /** Bytes read per page at most; the rest is ignored. */
  maxBytes: number;
}

export const DEFAULT_SOURCE_FETCH: SourceFetchOptions = { timeoutMs: 5_000, allowPrivateAddresses: false, maxBytes: 1024 * 1024 };

/** Characters of text kept per source: enough for the engine, small enough for a prompt. */
const MAX_SOURCE_CHARS = 20_000;
const MAX_REDIRECTS = 3;

// Addresses a server-side fetch must not reach unless allowed: it would let a caller probe the
// service's own network (SSRF).
const privateRanges = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  privateRanges.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  privateRanges.addSubnet(network, prefix, 'ipv6');
}

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  // IPv4-mapped IPv6 (::ffff:127.0.0.1) is checked as the IPv4 address it is.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return privateRanges.check(mapped, 'ipv4');
  return privateRanges.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * A DNS lookup for the connection itself that refuses private addresses: checked on the address the
 * socket connects to, so a name that resolves differently on a second lookup cannot slip through.
 */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...(options as LookupOneOptions), all: true }, (err, addresses) => {
    if (err) return callback(err, '', 0);
    const list = addresses as unknown as LookupAddress[];
    const allowed = list.filter((entry) => !isPrivateAddress(entry.address));
    if (allowed.length === 0 || allowed.length !== list.length) {
      return callback(Object.assign(new Error(`${hostname} resolves to a private address`), { code: 'EPRIVATE' }), '', 0);
    }
    if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, allowed);
    const first = allowed[0] as LookupAddress;
    callback(null, first.address, first.family);
  });
};

function get(url: URL, options: SourceFetchOptions, signal: AbortSignal): Promise<IncomingMessage> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    if (!options.allowPrivateAddresses && isIP(url.hostname.replace(/^\[|\]$/g, '')) && isPrivateAddress(url.hostname.replace(/^\[|\]$/g, ''))) {
      reject(new Error('private address'));
      return;
    }
    const req = send(
      url,
      {
        method: 'GET',
        signal,
        headers: { accept: 'text/html, text/plain, text/markdown, application/xhtml+xml;q=0.9, */*;q=0.1', 'user-agent': 'persona-api source reader' },
        ...(options.allowPrivateAddresses ? {} : { lookup: guardedLookup }),
      },
      resolve,
    );
    req.on('error', reject);
    req.end();
  });
}

async function readLimited(response: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response) {
    const buffer = chunk as Buffer;
    chunks.push(buffer);
    size += buffer.length;
    if (size >= maxBytes) {
      response.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, maxBytes);
}

/**
 * The readable text of a web page, or null when it cannot be read within the time limit (unreachable,
 * an error status, not text, a private address): DECISIONS.md skips such sources and does not count them.
 */
export async function fetchSourceText(rawUrl: string, options: SourceFetchOptions): Promise<string | null> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  try {
    let url = new URL(rawUrl);
    for (let redirects = 0; ; redirects++) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
      const response = await get(url, options, signal);
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400 && response.headers.location && redirects < MAX_REDIRECTS) {
        response.resume();
        url = new URL(response.headers.location, url);
        continue;
      }
      if (status < 200 || status >= 300) {
        response.resume();
        return null;
      }
      const type = String(response.headers['content-type'] ?? 'text/plain').toLowerCase();
      if (!/^(text\/|application\/(xhtml\+xml|json|xml))/.test(type)) {
        response.destroy();
        return null;
      }
      const body = (await readLimited(response, options.maxBytes)).toString('utf8');
      const text = type.includes('html') ? convert(body, { wordwrap: false, selectors: [{ selector: 'a', options: { ignoreHref: true } }, { selector: 'img', format: 'skip' }] }) : body;
      const trimmed = text.replace(/\n{3,}/g, '\n\n').trim().slice(0, MAX_SOURCE_CHARS);
      return trimmed.length > 0 ? trimmed : null;
    }
  } catch {
    return null;
  }
}
