import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOfflineEngine, type Engine } from '@persona-api/engine';
import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { createAccount, createApiKey, createWorkspaceFor } from '../../src/admin/accounts.js';
import { buildApp, type AppOptions } from '../../src/app.js';
import type { HandlerMap } from '../../src/contract/handler-types.js';
import type { Database, DatabaseHandle } from '../../src/db/client.js';
import type { TierId } from '../../src/db/seed.js';
import { MemoryRateLimiter, type RateLimiter } from '../../src/http/rate-limit.js';
import { loadFileSettings, type FileSettings } from '../../src/resources/files/settings.js';
import type { Services } from '../../src/services.js';
import { createLocalStorage } from '../../src/storage/index.js';
import { contract, recordExercised } from './contract.js';
import { openTestDatabase } from './database.js';

export interface Tenant {
  accountId: string;
  userId: string;
  email: string;
  key: string;
  apiKeyId: string;
  workspaceId: string;
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: T;
  text: string;
  /** The body's bytes (images and other binary downloads). */
  bytes: Buffer;
}

export interface RequestOptions {
  key?: string | undefined;
  body?: unknown;
  /** Sent as is, instead of JSON-encoding `body`. */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

/** A settable clock for the server under test. */
export class TestClock {
  constructor(private current = Date.parse('2026-11-15T12:00:00.000Z')) {}
  now = () => new Date(this.current);
  ms = () => this.current;
  advance(ms: number) {
    this.current += ms;
  }
  set(date: Date | string) {
    this.current = new Date(date).getTime();
  }
}

export interface HarnessOptions {
  handlers?: Partial<HandlerMap>;
  clock?: TestClock;
  rateLimiter?: RateLimiter;
  logger?: Logger;
  database?: DatabaseHandle;
  /** The model engine (default: the offline engine, whatever MODEL_* the environment says). */
  engine?: Engine;
  /** Services besides the engine and the clock (e.g. a fetcher that may reach the test's own pages). */
  services?: Partial<Services>;
  /** The MCP endpoint's options (e.g. a short job polling interval). */
  mcp?: AppOptions['mcp'];
}

let emails = 0;

export class Harness {
  private constructor(
    readonly app: FastifyInstance,
    readonly database: DatabaseHandle,
    readonly clock: TestClock,
    private readonly rateLimiter: RateLimiter,
    private readonly ownsDatabase: boolean,
    /** The link base, signing keys and ffmpeg path the server signs and renders with. */
    readonly files: FileSettings,
    private readonly scratchDir: string | null,
  ) {}

  /** The settings a test server signs links with (a stored secret, as in development), on `baseUrl`. */
  static fileSettings(database: DatabaseHandle, baseUrl = 'http://localhost/api/v1'): Promise<FileSettings> {
    return loadFileSettings(database.db, {
      PUBLIC_BASE_URL: baseUrl,
      PORT: 80,
      UPLOAD_SIGNING_SECRET: undefined,
      FFMPEG_PATH: process.env.FFMPEG_PATH ?? 'ffmpeg',
    });
  }

  get db(): Database {
    return this.database.db;
  }

  static async create(options: HarnessOptions = {}): Promise<Harness> {
    const database = options.database ?? (await openTestDatabase());
    const clock = options.clock ?? new TestClock();
    const rateLimiter = options.rateLimiter ?? new MemoryRateLimiter(clock.ms);
    // Real storage by default: a local store under a scratch directory removed on close.
    const scratchDir = options.services?.storage ? null : await mkdtemp(join(tmpdir(), 'persona-test-storage-'));
    const storage = options.services?.storage ?? createLocalStorage(scratchDir!);
    const files = options.services?.files ?? (await Harness.fileSettings(database));
    const app = await buildApp({
      database,
      rateLimiter,
      logger: options.logger ?? pino({ level: 'silent' }),
      handlers: options.handlers,
      ...(options.mcp ? { mcp: options.mcp } : {}),
      services: { ...options.services, storage, files, engine: options.engine ?? createOfflineEngine(), clock },
    });
    await app.ready();
    return new Harness(app, database, clock, rateLimiter, !options.database, files, scratchDir);
  }

  /** A separate account (tenant) with its own user, workspace and API key. */
  async tenant(options: { tier?: TierId; credits?: number; email?: string } = {}): Promise<Tenant> {
    const email = options.email ?? `person${++emails}.${process.pid}@tenant.example`;
    const now = this.clock.now();
    const { accountId, userId } = await createAccount(this.db, {
      name: `Account of ${email}`,
      email,
      tier: options.tier ?? 'enterprise',
      credits: options.credits ?? 10_000,
      now,
    });
    const workspaceId = await createWorkspaceFor(this.db, { accountId, name: 'Home', now });
    const { id: apiKeyId, key } = await createApiKey(this.db, { accountId, name: 'Test key', now });
    return { accountId, userId, email, key, apiKeyId, workspaceId };
  }

  /**
   * Sends a request under /api/v1 and checks the response against the contract: a response that
   * breaks it fails the test, whatever the test itself asserts.
   */
  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const url = path.startsWith('/api/') || path.startsWith('/healthz') || path.startsWith('/readyz') ? path : `/api/v1${path}`;
    const headers: Record<string, string> = { ...options.headers };
    if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
    let payload: string | Buffer | undefined;
    if (options.rawBody !== undefined) payload = options.rawBody;
    else if (options.body !== undefined) {
      payload = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await this.app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload } : {}) });
    const text = response.body;
    let body: unknown = text;
    if (String(response.headers['content-type'] ?? '').startsWith('application/json')) body = JSON.parse(text);
    if (url.startsWith('/api/')) {
      const problems = contract().check(method, url, response.statusCode, response.headers, text);
      recordExercised(contract().operationFor(method, url)?.operationId, method, response.statusCode);
      if (problems.length > 0) {
        throw new Error(`Response breaks the contract: ${method} ${url} → ${response.statusCode}\n  ${problems.join('\n  ')}\n  body: ${text.slice(0, 2000)}`);
      }
    }
    return { status: response.statusCode, headers: response.headers, body: body as T, text, bytes: response.rawPayload };
  }

  get = <T = any>(path: string, key?: string, headers?: Record<string, string>) => this.request<T>('GET', path, { key, headers });
  post = <T = any>(path: string, key: string | undefined, body?: unknown, headers?: Record<string, string>) =>
    this.request<T>('POST', path, { key, body, headers });
  patch = <T = any>(path: string, key: string | undefined, body?: unknown, headers?: Record<string, string>) =>
    this.request<T>('PATCH', path, { key, body, headers });
  delete = <T = any>(path: string, key?: string, headers?: Record<string, string>) => this.request<T>('DELETE', path, { key, headers });
  /** A raw body without an API key (the signed upload target). */
  put = <T = any>(path: string, body: string | Buffer, headers: Record<string, string> = {}) => this.request<T>('PUT', path, { rawBody: body, headers });

  async close(): Promise<void> {
    await this.app.close();
    await this.rateLimiter.close();
    if (this.ownsDatabase) await this.database.close();
    if (this.scratchDir) await rm(this.scratchDir, { recursive: true, force: true });
  }
}

/** The error envelope fields of a response, for compact assertions. */
export function errorOf(response: ApiResponse): { type: string; code: string; param: string | null } {
  const { type, code, param } = (response.body as { error: { type: string; code: string; param: string | null } }).error;
  return { type, code, param };
}

/**
 * A late-bound stand-in for what a `beforeAll` creates, so a test file can write
 * `const h = useHarness()` at module level instead of `let h` and its own beforeAll/afterAll.
 */
function lateBound<T extends object>(current: () => T | undefined, what: string): T {
  return new Proxy({} as T, {
    get(_target, property) {
      const value = current();
      if (!value) throw new Error(`${what} is used before beforeAll created it`);
      const member = Reflect.get(value, property, value);
      return typeof member === 'function' ? member.bind(value) : member;
    },
  });
}

/**
 * The file's Harness: created before its tests (from `options`, or what the function returns, e.g.
 * with an engine the file builds), closed after them.
 */
export function useHarness(options: HarnessOptions | (() => HarnessOptions | Promise<HarnessOptions>) = {}): Harness {
  let harness: Harness | undefined;
  beforeAll(async () => {
    harness = await Harness.create(typeof options === 'function' ? await options() : options);
  });
  afterAll(async () => {
    await harness?.close();
  });
  return lateBound(() => harness, 'the harness');
}

/** A tenant of `h`, created before the file's tests (after the harness). */
export function useTenant(h: Harness, options: Parameters<Harness['tenant']>[0] = {}): Tenant {
  let tenant: Tenant | undefined;
  beforeAll(async () => {
    tenant = await h.tenant(options);
  });
  return lateBound(() => tenant, 'the tenant');
}
