import { guardedFetchRefusals } from '../observability/metrics.js';
import { lookup as dnsLookup, type LookupAddress, type LookupOneOptions } from 'node:dns';
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { pipeline, Transform, type Readable } from 'node:stream';
import ipaddr from 'ipaddr.js';

/**
 * The one way the server fetches a URL a caller gave it (persona-suggestion sources today; brand-voice
 * documents, news feeds and videos later). A server-side fetch of a caller's URL could reach the
 * service's own network (SSRF), so: the name is resolved here and every address it resolves to must be
 * public (private, loopback, link-local — the cloud metadata address 169.254.169.254 — and multicast
 * ranges are refused unless allowed), every redirect is checked again the same way, and the whole
 * fetch is bounded in time and size.
 */
export interface FetchPolicy {
  /** Longest time the whole fetch may take, redirects and body included. */
  timeoutMs: number;
  /** Bytes of body read at most. */
  maxBytes: number;
  /** Allow private and loopback addresses (tests; an intranet deployment). Off by default. */
  allowPrivateAddresses: boolean;
  /**
   * `host:port`s reachable although their address is private (one intranet service; a test's own server),
   * while every other private address stays refused, redirect targets included.
   */
  allowedPrivateHosts?: readonly string[];
  maxRedirects: number;
}

export const DEFAULT_FETCH_POLICY: FetchPolicy = { timeoutMs: 5_000, maxBytes: 1024 * 1024, allowPrivateAddresses: false, maxRedirects: 3 };

export interface FetchOptions extends Partial<FetchPolicy> {
  headers?: Record<string, string>;
  /** Aborts the fetch besides the time limit (e.g. the client of the request went away). */
  signal?: AbortSignal;
}

export type FetchFailure = 'blocked_address' | 'unsupported_protocol' | 'too_many_redirects' | 'too_large' | 'timeout' | 'network';

export class FetchError extends Error {
  override name = 'FetchError';
  constructor(
    readonly reason: FetchFailure,
    message: string,
  ) {
    super(message);
    guardedFetchRefusals.inc({ reason });
  }
}

const timedOut = (url: URL) => new FetchError('timeout', `The fetch of ${url.href} took too long or was aborted`);

export interface FetchedResponse {
  /** Where the last redirect led. */
  url: URL;
  status: number;
  ok: boolean;
  headers: IncomingHttpHeaders;
  /** The media type without parameters, lower case (`text/html`); null when the server sent none. */
  mediaType: string | null;
  /** The body as a stream, which fails with FetchError `too_large` past `maxBytes`. Read it or `text()`, once. */
  body: Readable;
  /**
   * The body decoded with the charset the server declared (UTF-8 when none or unknown). Text past
   * `maxBytes` is left out rather than failing: a page's first megabyte is what a reader wants.
   */
  text(): Promise<string>;
}

export interface Fetcher {
  /** GET `url` under the policy. Rejects with FetchError when the URL may not or cannot be fetched. */
  get(url: string | URL, options?: FetchOptions): Promise<FetchedResponse>;
}

// Global unicast IPv6 is allocated from 2000::/3 only; anything outside it (including the deprecated
// IPv4-compatible ::a.b.c.d, which URLs normalise to ::7f00:1 and ipaddr.js calls unicast) is refused.
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * True for an address a guarded fetch must not reach (and for anything that is not an IP address): every
 * address but public unicast by ipaddr.js's range names (SECURITY.md, Addresses). IPv4-mapped IPv6 is
 * judged as its IPv4 address; the forms that embed an IPv4 address in other ways (NAT64 `64:ff9b::/96`,
 * 6to4 `2002::/16`, Teredo `2001::/32`, SIIT `::ffff:0:0/96`) have range names of their own and are
 * refused outright, since the embedded address could be private.
 */
export function isPrivateAddress(address: string): boolean {
  if (!ipaddr.isValid(address) || isIP(address) === 0) return true;
  const parsed = ipaddr.process(address);
  if (parsed.range() !== 'unicast') return true;
  return parsed.kind() === 'ipv6' && !(parsed as ipaddr.IPv6).match(GLOBAL_UNICAST_V6);
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

function send(url: URL, policy: FetchPolicy, headers: Record<string, string>, signal: AbortSignal): Promise<IncomingMessage> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return Promise.reject(new FetchError('unsupported_protocol', `Only http and https URLs can be fetched, not ${url.protocol}`));
  }
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  const allowPrivate = policy.allowPrivateAddresses || (policy.allowedPrivateHosts ?? []).includes(url.host);
  if (!allowPrivate && isIP(literal) && isPrivateAddress(literal)) {
    return Promise.reject(new FetchError('blocked_address', `${url.hostname} is a private address`));
  }
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', signal, headers, ...(allowPrivate ? {} : { lookup: guardedLookup }) }, resolve);
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPRIVATE') reject(new FetchError('blocked_address', error.message));
      else if (signal.aborted) reject(timedOut(url));
      else reject(new FetchError('network', error.message));
    });
    req.end();
  });
}

/** Passes at most `maxBytes` through; more is a FetchError `too_large`. */
function limited(maxBytes: number): Transform {
  let size = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > maxBytes) done(new FetchError('too_large', `The body is larger than ${maxBytes} bytes`));
      else done(null, chunk);
    },
  });
}

function charsetOf(contentType: string): string {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1]?.toLowerCase() ?? 'utf-8';
  try {
    new TextDecoder(charset);
    return charset;
  } catch {
    return 'utf-8';
  }
}

/**
 * The body through the size limit. pipeline, not pipe: when the time limit aborts the response mid-body
 * (or the limit is passed), the error reaches the reader and both streams are destroyed; with pipe the
 * reader would wait forever.
 */
function limitedBody(response: IncomingMessage, url: URL, maxBytes: number, signal: AbortSignal): Readable {
  const body = limited(maxBytes);
  const onAbort = () => body.destroy(timedOut(url));
  // The request's own abort listener ran first and destroys the response; this names the reason.
  signal.addEventListener('abort', onAbort, { once: true });
  pipeline(response, body, () => signal.removeEventListener('abort', onAbort));
  return body;
}

async function readText(response: IncomingMessage, url: URL, maxBytes: number, contentType: string, signal: AbortSignal): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response) {
      const buffer = chunk as Buffer;
      chunks.push(buffer);
      size += buffer.length;
      if (size >= maxBytes) {
        response.destroy();
        break;
      }
    }
  } catch (error) {
    throw signal.aborted ? timedOut(url) : new FetchError('network', error instanceof Error ? error.message : String(error));
  }
  return new TextDecoder(charsetOf(contentType)).decode(Buffer.concat(chunks).subarray(0, maxBytes));
}

export function createGuardedFetcher(defaults: Partial<FetchPolicy> = {}): Fetcher {
  const base: FetchPolicy = { ...DEFAULT_FETCH_POLICY, ...defaults };
  return {
    async get(target, options = {}) {
      const { headers = {}, signal: outer, ...overrides } = options;
      const policy: FetchPolicy = { ...base, ...overrides };
      const timeout = AbortSignal.timeout(policy.timeoutMs);
      const signal = outer ? AbortSignal.any([timeout, outer]) : timeout;
      let url: URL;
      try {
        url = new URL(target);
      } catch {
        throw new FetchError('unsupported_protocol', `Not a URL: ${String(target)}`);
      }
      for (let redirects = 0; ; redirects++) {
        const response = await send(url, policy, headers, signal);
        const status = response.statusCode ?? 0;
        if (status >= 300 && status < 400 && response.headers.location) {
          response.resume();
          if (redirects >= policy.maxRedirects) throw new FetchError('too_many_redirects', `More than ${policy.maxRedirects} redirects from ${String(target)}`);
          // The next hop goes through send() again: protocol, address and lookup are checked anew.
          url = new URL(response.headers.location, url);
          continue;
        }
        const contentType = String(response.headers['content-type'] ?? '');
        let consumed = false;
        const once = () => {
          if (consumed) throw new Error('the body of a fetched response can be read once');
          consumed = true;
        };
        return {
          url,
          status,
          ok: status >= 200 && status < 300,
          headers: response.headers,
          mediaType: contentType ? (contentType.split(';')[0] ?? '').trim().toLowerCase() : null,
          get body() {
            once();
            return limitedBody(response, url, policy.maxBytes, signal);
          },
          text() {
            once();
            return readText(response, url, policy.maxBytes, contentType, signal);
          },
        };
      }
    },
  };
}
