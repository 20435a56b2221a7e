// Crash and restart (issue 17, item 3): the real server process (dist/main.js) under concurrent write
// load is SIGKILLed and restarted on the same data, CRASH_ROUNDS times (default 2; e.g. CRASH_ROUNDS=20
// for a longer run). Every write it acknowledged must be readable afterwards, money and resources must
// agree, jobs it was running must resume and finish once, and a SIGTERM under load must answer every
// request and finish an open stream before the process exits. On PGlite (a DATA_DIR) and on PostgreSQL.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq, type SQL, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/db/client.js';
import { lockDataDir } from '../../src/db/open.js';
import { accounts, creditLedger } from '../../src/db/schema/index.js';
import { brandVoices } from '../../src/resources/brand-voices/table.js';
import { personas } from '../../src/resources/personas/table.js';
import { driverName, openTestDatabase } from '../support/database.js';
import { killServerProcesses, startServerProcess, type ServerProcess } from '../support/processes.js';

// Each round is a restart (10 to 15 s on a busy 2-core machine), hence few by default.
const ROUNDS = Math.max(1, Number(process.env.CRASH_ROUNDS ?? 2));
// Custom personas cost 300 of the development account's 50 000 credits: bounded, so that a fast
// machine never runs out (a 402 would count as a refused write); the rest of the load is free creates.
const PERSONAS_PER_ROUND = Math.max(1, Math.min(20, Math.floor(40_000 / 300 / ROUNDS)));
const KEY = `svc_live_${'C'.repeat(40)}`;
const auth = { authorization: `Bearer ${KEY}` };
const scratch = mkdtempSync(join(tmpdir(), 'persona-crash-'));

type Kind = 'workspace' | 'project' | 'persona' | 'brand_voice';
interface Ack {
  kind: Kind;
  id: string;
  name: string;
  round: number;
}
const pathOf: Record<Kind, string> = { workspace: 'workspaces', project: 'projects', persona: 'personas', brand_voice: 'brand-voices' };

const until = async <T>(probe: () => Promise<T | undefined | false>, what: string, timeoutMs = 90_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
};

/**
 * The web pages brand voices learn from. The first fetch of each page is held (never answered): the
 * voice's job is then certainly running when the server is killed. Later fetches are answered at once.
 */
function startPages() {
  const fetches = new Map<string, number>();
  const held: http.ServerResponse[] = [];
  const server = http.createServer((request, response) => {
    const path = request.url ?? '/';
    const count = (fetches.get(path) ?? 0) + 1;
    fetches.set(path, count);
    if (count === 1) {
      held.push(response);
      return;
    }
    const label = path.split('/').pop() ?? 'brand';
    const paragraph = `At ${label} we write the way we ride: plainly, warmly and with a grin. We tell customers what a bike does, not what it promises. We keep sentences short and verbs busy, and we always thank people for riding with us.`;
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(
      `<!doctype html><html><head><title>${label} newsletter</title></head><body><article><h1>${label}</h1>${`<p>${paragraph}</p>`.repeat(6)}</article></body></html>`,
    );
  });
  return {
    fetches,
    listen: () => new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`))),
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of held) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function api(server: ServerProcess, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server.api}${path}`, {
    method,
    headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

/** One request on its own connection; the answer, or the socket error's code (a reset, a refusal). */
function rawRequest(
  origin: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string } | { error: string }> {
  return new Promise((resolve) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const request = http.request(`${origin}${path}`, {
      method,
      agent: false,
      headers: { ...auth, ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}) },
    });
    request.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text }));
      response.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    });
    request.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    request.end(payload);
  });
}

/** Concurrent creates until `stop()`; every 2xx with an id is recorded as acknowledged. */
async function writeLoad(server: ServerProcess, ctx: { workspaceId: string; round: number; acks: Ack[]; refused: string[]; stop: () => boolean }) {
  let next = 0;
  let personaCount = 0;
  const worker = async () => {
    while (!ctx.stop()) {
      const n = next++;
      const name = `r${ctx.round}-${n}-${Math.random().toString(36).slice(2, 8)}`;
      const [kind, body]: [Kind, unknown] =
        n % 4 === 0 && personaCount++ < PERSONAS_PER_ROUND
          ? ['persona', { workspace_id: ctx.workspaceId, name, description: `A city commuter who rides a cargo bike to work and back (${name}).` }]
          : n % 4 === 1
            ? ['project', { workspace_id: ctx.workspaceId, name }]
            : ['workspace', { name }];
      try {
        const answer = await api(server, 'POST', `/${pathOf[kind]}`, body);
        if (answer.status >= 200 && answer.status < 300 && typeof answer.body?.id === 'string')
          ctx.acks.push({ kind, id: answer.body.id, name, round: ctx.round });
        else if (!ctx.stop()) ctx.refused.push(`${kind} ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
      } catch {
        return; // The connection died with the process: not acknowledged.
      }
    }
  };
  await Promise.all(Array.from({ length: 6 }, worker));
}

/** Every acknowledged write reads back with the name it was created with. */
async function expectReadable(server: ServerProcess, acks: readonly Ack[]) {
  const missing: string[] = [];
  for (let index = 0; index < acks.length; index += 8) {
    await Promise.all(
      acks.slice(index, index + 8).map(async (ack) => {
        const read = await api(server, 'GET', `/${pathOf[ack.kind]}/${ack.id}`);
        const name = ack.kind === 'brand_voice' ? read.body?.label : read.body?.name;
        if (read.status !== 200 || name !== ack.name) missing.push(`${ack.kind} ${ack.id} (round ${ack.round}): ${read.status} ${name}`);
      }),
    );
  }
  expect(missing).toEqual([]);
}

/** The rows of a raw query, on either driver (PGlite answers `{ rows }`, postgres.js an array). */
async function rowsOf<Row>(database: DatabaseHandle, query: SQL): Promise<Row[]> {
  const result = (await database.db.execute(query)) as unknown;
  return Array.isArray(result) ? (result as Row[]) : (result as { rows: Row[] }).rows;
}

/** Invariants of the stored data, read with SQL once the server has stopped. */
async function expectConsistent(database: DatabaseHandle, voices: readonly Ack[]) {
  const db = database.db;
  // The balance is what the ledger says, and each entry's balance_after chains on the one before.
  const accountRows = await db.select({ id: accounts.id, balance: accounts.creditBalance }).from(accounts);
  for (const account of accountRows) {
    const entries = await db
      .select({ amount: creditLedger.amount, balanceAfter: creditLedger.balanceAfter })
      .from(creditLedger)
      .where(eq(creditLedger.accountId, account.id))
      .orderBy(creditLedger.seq);
    expect(entries.reduce((sum, entry) => sum + entry.amount, 0)).toBe(account.balance);
    let running = 0;
    for (const entry of entries) {
      running += entry.amount;
      expect(entry.balanceAfter).toBe(running);
    }
  }
  // No charge without its resource, no resource without its charge, no refund twice.
  const charges = await db
    .select({ id: creditLedger.id, description: creditLedger.description, amount: creditLedger.amount })
    .from(creditLedger)
    .where(eq(creditLedger.kind, 'charge'));
  const customPersonas = await db.select({ id: personas.id }).from(personas).where(eq(personas.isCustom, true));
  const voiceRows = await db.select({ id: brandVoices.id, status: brandVoices.status, chargeLedgerId: brandVoices.chargeLedgerId }).from(brandVoices);
  const personaCharges = charges.filter((c) => c.description.startsWith('Custom persona '));
  expect(personaCharges.map((c) => c.description.slice('Custom persona '.length)).sort()).toEqual(customPersonas.map((p) => p.id).sort());
  for (const charge of personaCharges) expect(charge.amount).toBe(-300);
  const voiceCharges = charges.filter((c) => c.description.startsWith('Brand voice '));
  expect(voiceCharges.map((c) => c.description.slice('Brand voice '.length)).sort()).toEqual(voiceRows.map((v) => v.id).sort());
  for (const voice of voiceRows) {
    const refunds = await db
      .select({ id: creditLedger.id })
      .from(creditLedger)
      .where(and(eq(creditLedger.kind, 'refund'), eq(creditLedger.id, `${voice.chargeLedgerId}_refund`)));
    expect(refunds.length, `refunds of ${voice.id} (${voice.status})`).toBe(voice.status === 'failed' ? 1 : 0);
  }
  // Each voice's learning job ran to its end once: one job, completed, none left active.
  for (const voice of voices) {
    const rows = await rowsOf<{ state: string; retry_count: number }>(
      database,
      sql`select state, retry_count from pgboss.job where name = 'brand-voice.learn' and singleton_key = ${voice.id}`,
    );
    expect(rows.map((row) => row.state)).toEqual(['completed']);
    // Its first run was killed with the process: the job was resumed, not started afresh.
    expect(Number(rows[0]?.retry_count)).toBeGreaterThanOrEqual(1);
  }
  expect(await rowsOf(database, sql`select id from pgboss.job where state = 'active'`)).toEqual([]);
}

let postgres: DatabaseHandle | undefined;
const pages = startPages();
let pagesUrl = '';

beforeAll(async () => {
  pagesUrl = await pages.listen();
  if (driverName() === 'postgres') postgres = await openTestDatabase();
});

afterAll(async () => {
  // Whatever failed: no server outlives the file, then the scratch database and directory go.
  await killServerProcesses();
  await pages.close();
  await postgres?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('crash and restart', { timeout: 600_000 }, () => {
  it('loses no acknowledged write across SIGKILLs, resumes running jobs once, and drains on SIGTERM', async () => {
    const dataDir = join(scratch, 'data');
    const env: Record<string, string> = {
      BOOTSTRAP_API_KEY: KEY,
      DATA_DIR: dataDir,
      DATABASE_URL: postgres?.connection.driver === 'postgres' ? postgres.connection.url : '',
      RATE_LIMIT_MULTIPLIER: '1000',
      // The brand voices read their pages from this machine, and the held first fetch must not time out.
      SOURCE_FETCH_ALLOW_PRIVATE: 'true',
      SOURCE_FETCH_TIMEOUT_MS: '60000',
      // A job lost with its process is found within ~10 s (the heartbeat's minimum) on PostgreSQL.
      JOB_HEARTBEAT_SECONDS: '10',
      JOB_SUPERVISE_INTERVAL_SECONDS: '1',
      // Long enough for this test to see the drain (readyz 503) and send requests into it on a busy machine.
      SHUTDOWN_DRAIN_MS: '3000',
      // A streamed answer that lasts a few seconds, so that it is open when SIGTERM arrives.
      OFFLINE_ENGINE_CHUNK_DELAY_MS: '5',
    };
    let server = await startServerProcess(env);
    const workspaces = await api(server, 'GET', '/workspaces');
    const workspaceId: string = workspaces.body.data[0].id;
    const acks: Ack[] = [];
    const voices: Ack[] = [];

    for (let round = 1; round <= ROUNDS; round++) {
      // Two voices whose learning is running (their page fetch held) when the process dies.
      for (const suffix of ['a', 'b']) {
        const label = `voice-r${round}${suffix}`;
        const created = await api(server, 'POST', '/brand-voices', {
          workspace_id: workspaceId,
          label,
          usage_context: 'Newsletters and product pages for our cycling customers.',
          sources: { urls: [{ url: `${pagesUrl}/voice/${label}` }] },
        });
        expect(created.status, JSON.stringify(created.body)).toBe(200);
        const ack: Ack = { kind: 'brand_voice', id: created.body.id, name: label, round };
        acks.push(ack);
        voices.push(ack);
      }
      const roundAcks: Ack[] = [];
      const refused: string[] = [];
      const started = Date.now();
      let stopped = false;
      const load = writeLoad(server, { workspaceId, round, acks: roundAcks, refused, stop: () => stopped });
      await until(
        async () =>
          voices.filter((v) => v.round === round).every((v) => pages.fetches.has(`/voice/${v.name}`)) && roundAcks.length >= 12 && Date.now() - started > 500,
        `round ${round}: load acknowledged and the voices' jobs running`,
      );
      // Mid-load: requests are in flight on every worker.
      server.child.kill('SIGKILL');
      const exit = await server.exited;
      stopped = true;
      await load;
      expect(exit.signal).toBe('SIGKILL');
      expect(refused).toEqual([]);
      acks.push(...roundAcks);

      // The same data: up and ready again (PGlite recovers its files), and nothing acknowledged is lost.
      server = await startServerProcess(env);
      await expectReadable(server, acks);
    }

    // The killed jobs resume: every voice is learned, from a second fetch of its page.
    const terminal = await until(
      async () => {
        const states = await Promise.all(voices.map(async (voice) => (await api(server, 'GET', `/brand-voices/${voice.id}`)).body?.status as string));
        return states.every((state) => state === 'completed' || state === 'failed') && states;
      },
      'every brand voice to finish learning',
      120_000,
    );
    expect(terminal).toEqual(voices.map(() => 'completed'));
    for (const voice of voices) expect(pages.fetches.get(`/voice/${voice.name}`)).toBeGreaterThanOrEqual(2);

    // SIGTERM under load: a stream open, requests in flight, requests arriving while it drains.
    const persona = (await api(server, 'GET', '/personas?is_custom=false&limit=1')).body.data[0].id as string;
    let streamFirstAt = 0;
    let streamEndAt = 0;
    let streamText = '';
    const streamed = new Promise<string>((resolve, reject) => {
      const payload = JSON.stringify({
        model: 'service-1',
        input: 'Write a long, detailed report on the market for electric cargo bikes in cities, chapter by chapter.',
        persona_id: persona,
        stream: true,
        artifact_mode: true,
        text: { verbosity: 'high' },
      });
      const request = http.request(`${server.api}/responses`, {
        method: 'POST',
        agent: false,
        headers: { ...auth, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      });
      request.on('response', (response) => {
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          streamFirstAt ||= Date.now();
          streamText += chunk;
        });
        response.on('end', () => {
          streamEndAt = Date.now();
          resolve(streamText);
        });
        response.on('error', reject);
      });
      request.on('error', reject);
      request.end(payload);
    });
    await until(async () => streamText.includes('response.output_text.delta'), 'the stream to start writing text', 60_000);
    const inFlight = Array.from({ length: 6 }, (_, index) =>
      rawRequest(server.origin, 'POST', index % 3 === 0 ? '/api/v1/personas' : '/api/v1/workspaces', {
        ...(index % 3 === 0 ? { workspace_id: workspaceId, description: 'A parent who rides the children to school on a cargo bike.' } : {}),
        name: `drain-${index}`,
      }),
    );
    // The requests are on their way (their connections accepted) before the signal.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const signalledAt = Date.now();
    server.child.kill('SIGTERM');
    await until(
      async () =>
        (await fetch(`${server.origin}/readyz`).then(
          (r) => r.status,
          () => 0,
        )) === 503,
      'readyz to report the drain',
      5_000,
    );
    const late = await Promise.all(Array.from({ length: 4 }, () => rawRequest(server.origin, 'GET', '/api/v1/workspaces?limit=1')));
    const exit = await server.exited;

    for (const answer of await Promise.all(inFlight)) {
      expect('status' in answer ? answer.status : answer.error, JSON.stringify(answer).slice(0, 300)).toBe(200);
    }
    for (const answer of late) {
      // Served with Connection: close, or refused in the envelope: never reset.
      if (!('status' in answer)) throw new Error(`a request sent during the drain got no answer: ${answer.error}`);
      expect([200, 503], answer.text.slice(0, 300)).toContain(answer.status);
      expect(answer.headers.connection).toBe('close');
      expect(answer.headers['x-request-id']).toBeTruthy();
      if (answer.status === 503) expect(JSON.parse(answer.text).error.code).toBe('service_unavailable');
    }
    const transcript = await streamed;
    // The stream was open when the signal came and still ended with its terminal event (a process that
    // exited first would have cut it without one).
    expect(streamFirstAt).toBeLessThan(signalledAt);
    expect(streamEndAt).toBeGreaterThan(signalledAt);
    expect(transcript).toContain('event: response.completed');
    expect(transcript.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(exit.code, server.logTail()).toBe(0);

    // Stopped cleanly: the stored data is consistent (PGlite is opened here only now, the server gone).
    const database = postgres ?? (await openDatabase({ driver: 'pglite', dataDir: join(dataDir, 'pglite') }));
    try {
      await expectConsistent(database, voices);
    } finally {
      if (!postgres) await database.close();
    }
  });

  it.runIf(driverName() === 'pglite')('takes over a PGlite lock left by a dead process, including one naming its own pid', () => {
    const dir = join(scratch, 'lock');
    const lockFile = join(dir, 'pglite.lock');
    // A live process's lock is respected (here the test runner's).
    lockDataDir(dir, 'first')();
    writeFileSync(lockFile, `${process.ppid} persona-api\n`);
    expect(() => lockDataDir(dir, 'second')).toThrow(/in use by process/);
    // A container's server restarts with the pid its predecessor had (often 1): that lock is stale.
    writeFileSync(lockFile, `${process.pid} persona-api\n`);
    lockDataDir(dir, 'restarted')();
    // A pid no process has.
    writeFileSync(lockFile, '2147483646 persona-api\n');
    lockDataDir(dir, 'restarted')();
  });
});
