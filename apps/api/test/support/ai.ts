import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOfflineEngine, createOpenAICompatibleEngine, type Engine } from '@persona-api/engine';
import { startFakeUpstream, type FakeUpstream } from '@persona-api/engine/testing';
import { eq } from 'drizzle-orm';
import { accounts, creditLedger, modelResponses } from '../../src/db/schema/index.js';
import { parseEventStream } from './contract.js';
import type { Harness } from './harness.js';

/**
 * One server per test file, two engines: the harness gets this engine, and a test switches what it
 * delegates to (the offline engine, or the OpenAI-compatible engine pointed at a fake upstream). Every
 * Engine member is forwarded by a Proxy, so a new engine method or feature needs no edit here.
 */
export interface SwitchableEngine extends Engine {}
// Declaration merging types the instance as an Engine; the Proxy below supplies those members.
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the merged interface is exactly what the Proxy forwards.
export class SwitchableEngine {
  current: Engine;
  constructor(initial: Engine = createOfflineEngine()) {
    this.current = initial;
    // The instance is its forwarding Proxy: members of this class first, then the current engine.
    // biome-ignore lint/correctness/noConstructorReturn: returning the Proxy is what makes forwarding need no per-method code.
    return new Proxy(this, {
      get(target, property, receiver) {
        if (property in target) return Reflect.get(target, property, receiver);
        const value: unknown = Reflect.get(target.current, property);
        return typeof value === 'function' ? value.bind(target.current) : value;
      },
    });
  }
  /** Runs `run` with `engine` serving, then goes back to a fresh offline engine. */
  async using<T>(engine: Engine, run: () => Promise<T>): Promise<T> {
    this.current = engine;
    try {
      return await run();
    } finally {
      this.current = createOfflineEngine();
    }
  }
}

export const UPSTREAM_KEY = 'sk-test-upstream-key-0123456789';

/** A fake OpenAI-compatible server and an engine configured for it (as MODEL_* would). */
export async function fakeUpstreamEngine(options: { timeoutMs?: number; acceptsImages?: boolean } = {}): Promise<{ fake: FakeUpstream; engine: Engine }> {
  const fake = await startFakeUpstream({ apiKey: UPSTREAM_KEY });
  const engine = createOpenAICompatibleEngine({
    baseUrl: fake.baseUrl,
    apiKey: UPSTREAM_KEY,
    model: 'fake-gpt',
    timeoutMs: options.timeoutMs ?? 2_000,
    reasoning: false,
    contextWindow: 128_000,
    maxOutputTokens: 32_768,
    acceptsImages: options.acceptsImages ?? false,
  });
  return { fake, engine };
}

export interface SseEvent {
  event: string | null;
  data: any;
}

/** The JSON events of an SSE body, without the closing `[DONE]`. */
export function events(body: string): SseEvent[] {
  return parseEventStream(body)
    .filter((entry) => entry.data !== '[DONE]')
    .map((entry) => ({ event: entry.event, data: JSON.parse(entry.data) }));
}

export const typesOf = (body: string) => events(body).map((entry) => entry.data.type ?? entry.data.object);

export async function balanceOf(h: Harness, accountId: string): Promise<number> {
  const [row] = await h.db.select({ balance: accounts.creditBalance }).from(accounts).where(eq(accounts.id, accountId));
  return row?.balance ?? Number.NaN;
}

export async function chargesOf(h: Harness, accountId: string) {
  const rows = await h.db.select().from(creditLedger).where(eq(creditLedger.accountId, accountId)).orderBy(creditLedger.seq);
  return rows.filter((row) => row.kind === 'charge');
}

export async function storedResponse(h: Harness, id: string) {
  const [row] = await h.db.select().from(modelResponses).where(eq(modelResponses.id, id));
  return row;
}

export async function storedResponsesOf(h: Harness, accountId: string) {
  return h.db.select().from(modelResponses).where(eq(modelResponses.accountId, accountId));
}

/**
 * A streaming POST over a real connection that reads until `until(received)` holds, then drops the
 * connection: a client that goes away mid-stream.
 */
export function postAndDisconnect(
  h: Harness,
  path: string,
  key: string,
  body: unknown,
  until: (received: string) => boolean,
  headers: Record<string, string> = {},
): Promise<string> {
  const { port } = h.app.server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    let received = '';
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `/api/v1${path}`,
        agent: false,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      },
      (res) => {
        res.on('data', (chunk: Buffer) => {
          received += chunk.toString('utf8');
          if (until(received)) {
            req.destroy();
            resolve(received);
          }
        });
        res.on('end', () => resolve(received));
      },
    );
    req.on('error', (error) => (received ? resolve(received) : reject(error)));
    req.end(JSON.stringify(body));
  });
}

/** A POST over a real connection that the client drops once `leave` resolves, before any answer. */
export function postAndLeave(
  h: Harness,
  path: string,
  key: string,
  body: unknown,
  leave: Promise<unknown>,
  headers: Record<string, string> = {},
): Promise<void> {
  const { port } = h.app.server.address() as AddressInfo;
  return new Promise((resolve) => {
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: `/api/v1${path}`,
      agent: false,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    });
    req.on('error', () => resolve());
    req.end(JSON.stringify(body));
    void leave.then(() => {
      req.destroy();
      resolve();
    });
  });
}

/** Waits until `check` holds (for effects that finish after the client has gone), at most `ms`. */
export async function eventually<T>(check: () => Promise<T | undefined | null | false>, ms = 5_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
