// The fuzz suite (issue 17): schema-derived valid and broken requests for every operation of the
// bundle, on this file's database (PGlite, and PostgreSQL when TEST_DATABASE_URL is set). Every answer:
// no 5xx but 501, the error envelope on every non-2xx, and valid against the contract for its status.
// Seeded: FUZZ_SEED=<n> reproduces a run; FUZZ_REQUESTS sets the budget (`pnpm fuzz` sends more).
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basePath, loadSpec } from '../../src/contract/spec.js';
import type { DatabaseHandle } from '../../src/db/client.js';
import { MemoryRateLimiter, type RateLimiter } from '../../src/http/rate-limit.js';
import type { JobRuntime } from '../../src/jobs/queue.js';
import { jobDefinitions } from '../../src/jobs/registry.js';
import type { Services } from '../../src/services.js';
import { contract } from '../support/contract.js';
import { openTestDatabase } from '../support/database.js';
import { Harness, type Tenant } from '../support/harness.js';
import { openTestJobQueue } from '../support/jobs.js';
import { fuzzOperations, fuzzRequest, seededRandom, type FuzzRequest } from './generate.js';

const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);
// `pnpm test` sends 10 000 per database (about a minute on PGlite on two cores); `pnpm fuzz` 40 000.
const BUDGET = Number(process.env.FUZZ_REQUESTS ?? 10_000);
const CONCURRENCY = 8;

let database: DatabaseHandle;
let queue: JobRuntime;
let h: Harness;
let tenants: Tenant[];

/** The tier limits stay in force, multiplied: the fuzz sends thousands of requests a minute on purpose. */
function generousLimiter(): RateLimiter {
  const inner = new MemoryRateLimiter();
  return { consume: (key, limit) => inner.consume(key, limit * 100), close: () => inner.close() };
}

beforeAll(async () => {
  database = await openTestDatabase();
  const services = { db: database.db } as Services;
  queue = await openTestJobQueue(database, jobDefinitions(services));
  h = await Harness.create({
    database,
    rateLimiter: generousLimiter(),
    logger: pino({ level: process.env.FUZZ_LOG ?? 'silent' }) /* FUZZ_LOG=error shows a 5xx's cause */,
    services: { jobs: queue },
  });
  tenants = [await h.tenant({ credits: 1_000_000_000 }), await h.tenant({ credits: 1_000_000_000 }), await h.tenant({ credits: 3 })];
}, 120_000);

afterAll(async () => {
  await h?.close();
  await queue?.stop({ timeoutMs: 1_000 });
  await database?.close();
});

interface Failure {
  request: string;
  status: number;
  problems: string[];
}

function judge(request: FuzzRequest, status: number, headers: Record<string, unknown>, body: string, documented501: boolean): string[] {
  const problems: string[] = [];
  if (status >= 500 && !(status === 501 && documented501)) problems.push(`server error ${status}`);
  if (status >= 400) {
    try {
      const parsed = JSON.parse(body) as { error?: { message?: unknown; type?: unknown; code?: unknown } };
      if (typeof parsed.error?.message !== 'string' || typeof parsed.error.code !== 'string' || typeof parsed.error.type !== 'string')
        problems.push('not the error envelope');
      else if (parsed.error.message.length > 2_000) problems.push(`message of ${parsed.error.message.length} characters`);
    } catch {
      problems.push('non-JSON error body');
    }
  }
  problems.push(...contract().check(request.method, request.url, status, headers, body));
  // Declared by its own status, not only under `default` (which stays for 501 and statuses a later version adds).
  const operation = contract().operationFor(request.method, request.url);
  if (operation && status !== 501 && status !== 405) {
    const responses = (contract().spec.paths?.[operation.path]?.[operation.method] as { responses?: Record<string, unknown> } | undefined)?.responses ?? {};
    if (!(String(status) in responses)) problems.push(`status ${status} is not declared by ${operation.operationId}`);
  }
  return problems;
}

describe(`fuzz (seed ${SEED}, ${BUDGET} requests)`, () => {
  it('answers every schema-derived request without a 5xx, in the envelope, within the contract', async () => {
    const spec = loadSpec();
    const prefix = basePath(spec);
    const operations = fuzzOperations(spec, SEED);
    expect(operations.length).toBeGreaterThan(50);
    const random = seededRandom(SEED);
    // Ids that exist (the tenants' workspaces, a base persona) and ids that do not.
    const ids = [tenants[0]!.workspaceId, tenants[1]!.workspaceId, 'persona_saas_cfo', 'ws_doesnotexist00000', 'resp_nope', 'x'];
    const keys = tenants.map((t) => t.key);
    const failures: Failure[] = [];
    const statuses = new Map<number, number>();
    const perOperation = new Map<string, number>();
    const requests: { request: FuzzRequest; operationId: string }[] = [];
    // Every operation gets an equal share, round-robin, so none is starved by the budget.
    for (let i = 0; i < BUDGET; i++) {
      const op = operations[i % operations.length]!;
      requests.push({ request: fuzzRequest(op, random, { prefix, keys, ids }), operationId: op.operationId });
    }
    const started = Date.now();
    let next = 0;
    const worker = async () => {
      while (next < requests.length) {
        const { request, operationId } = requests[next++]!;
        const response = await h.app.inject({
          method: request.method as 'GET',
          url: request.url,
          headers: request.headers,
          ...(request.payload !== undefined ? { payload: request.payload } : {}),
        });
        statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
        perOperation.set(operationId, (perOperation.get(operationId) ?? 0) + 1);
        const documented501 = response.statusCode === 501 && response.body.includes('"not_implemented"');
        const problems = judge(request, response.statusCode, response.headers, response.body, documented501);
        if (problems.length > 0 && failures.length < 200) {
          failures.push({
            request: `${request.method} ${request.url.slice(0, 160)} [${request.mutation}] body=${String(request.payload ?? '').slice(0, 160)}`,
            status: response.statusCode,
            problems: problems.map((p) => p.slice(0, 300)),
          });
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const seconds = (Date.now() - started) / 1000;
    console.log(
      `fuzz seed ${SEED}: ${requests.length} requests over ${perOperation.size} operations in ${seconds.toFixed(1)} s; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}`,
    );
    expect(perOperation.size).toBe(operations.length);
    if (failures.length > 0) {
      const report = failures
        .slice(0, 25)
        .map((f) => `  ${f.status} ${f.request}\n    ${f.problems.join('\n    ')}`)
        .join('\n');
      throw new Error(`fuzz seed ${SEED} (rerun with FUZZ_SEED=${SEED}): ${failures.length} answers broke the rules:\n${report}`);
    }
  }, 600_000);

  it('answers requests Node or the router cannot take in the envelope, with a request id', async () => {
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = h.app.server.address() as AddressInfo;
    const key = tenants[0]!.key;
    const raw = (text: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = new net.Socket();
        let received = '';
        socket.on('data', (chunk: Buffer) => {
          received += chunk.toString('utf8');
          // A whole answer with a Content-Length: done, whether or not the server closes.
          const length = /content-length: (\d+)/i.exec(received)?.[1];
          const [head, body] = received.split('\r\n\r\n');
          if (head && length && body !== undefined && Buffer.byteLength(body) >= Number(length)) socket.end();
        });
        socket.on('close', () => resolve(received));
        socket.on('error', reject);
        socket.connect(port, '127.0.0.1', () => socket.write(text));
      });
    const cases: [string, string, number][] = [
      [
        'malformed chunked body',
        `POST /api/v1/workspaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\n{}\r\n0\r\n\r\n`,
        400,
      ],
      ['a 50 000-character query', `GET /api/v1/workspaces?search=${'a'.repeat(50_000)} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`, 431],
      ['headers over 16 KiB', `GET /api/v1/workspaces HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`, 431],
      ['a request line that is not HTTP', 'BLAH\r\n\r\n', 400],
      [
        'a bad percent-encoding in the path',
        `GET /api/v1/workspaces/%ZZ HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`,
        400,
      ],
      [
        'a 201-character path parameter',
        `GET /api/v1/workspaces/${'a'.repeat(201)} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`,
        400,
      ],
    ];
    for (const [name, text, status] of cases) {
      const answer = await raw(text);
      const [head = '', body = ''] = answer.split('\r\n\r\n');
      expect(head, name).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
      expect(head.toLowerCase(), name).toMatch(/\r\nx-request-id: req_[A-Za-z0-9_-]+/);
      expect(JSON.parse(body.replace(/^[0-9a-f]+\r\n/, '').replace(/\r\n0\s*$/, '')), name).toMatchObject({ error: { type: 'invalid_request_error' } });
    }
    // Router errors come after authentication, so they carry the rate-limit headers too.
    const routed = await raw(`GET /api/v1/workspaces/%ZZ HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`);
    expect(routed.toLowerCase()).toContain('ratelimit-limit:');
    expect(http.STATUS_CODES[431]).toBeDefined();
  });
});
