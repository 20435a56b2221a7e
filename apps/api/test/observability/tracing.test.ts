import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { createOfflineEngine } from '@persona-api/engine';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import type { JobRuntime } from '../../src/jobs/queue.js';
import { newId } from '../../src/lib/ids.js';
import { observedEngine } from '../../src/observability/engine.js';
import { scrapeMetrics } from '../../src/observability/metrics.js';
import { observedStorage } from '../../src/observability/storage.js';
import { flushTracing, startTracing, stopTracing, tracer } from '../../src/observability/tracing.js';
import { brandVoiceJobs, LEARN_BRAND_VOICE } from '../../src/resources/brand-voices/job.js';
import { uploadObjectKey } from '../../src/resources/files/keys.js';
import { files } from '../../src/resources/files/table.js';
import { createLogger } from '../../src/server.js';
import { createLocalStorage } from '../../src/storage/local.js';
import type { ObjectStorage } from '../../src/storage/types.js';
import { openTestDatabase } from '../support/database.js';
import { docxOf } from '../support/documents.js';
import { Harness, TestClock, type Tenant } from '../support/harness.js';
import { openTestJobQueue } from '../support/jobs.js';
import { sample } from './scrape.js';
import { testServices } from '../support/services.js';

/** An OTLP/HTTP receiver, as a collector would be: it keeps every export it is sent. */
interface Export {
  contentType: string;
  body: Buffer;
}
const exports: Export[] = [];
let receiver: Server;

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: Record<string, unknown> }[];
  links?: { traceId: string; spanId: string }[];
}

/** Every span of the http/json exports received so far. */
function jsonSpans(): OtlpSpan[] {
  return exports
    .filter((e) => e.contentType.startsWith('application/json'))
    .flatMap((e) => {
      const parsed = JSON.parse(e.body.toString('utf8')) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
      return parsed.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
    });
}

const attribute = (span: OtlpSpan, key: string): unknown => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  if (!value) return undefined;
  if ('intValue' in value) return Number(value.intValue);
  if ('arrayValue' in value) return (value.arrayValue as { values: { stringValue: string }[] }).values.map((v) => v.stringValue);
  return Object.values(value)[0];
};

const logLines: Record<string, unknown>[] = [];
const logSink = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) logLines.push(JSON.parse(line) as Record<string, unknown>);
    done();
  },
});

const savedEnv = { ...process.env };
let database: DatabaseHandle;
let queue: JobRuntime;
let storage: ObjectStorage;
let storageDir: string;
let h: Harness;
let t: Tenant;
const clock = new TestClock();

async function useProtocol(protocol: 'http/json' | 'http/protobuf') {
  await stopTracing();
  process.env.OTEL_EXPORTER_OTLP_PROTOCOL = protocol;
  expect(await startTracing('persona-api-test')).toBe(true);
}

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.url === '/v1/traces') exports.push({ contentType: String(request.headers['content-type']), body: Buffer.concat(chunks) });
      response.writeHead(200, { 'content-type': String(request.headers['content-type']) }).end(request.headers['content-type']?.includes('json') ? '{}' : '');
    });
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  const { port } = receiver.address() as AddressInfo;
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${port}`;
  process.env.OTEL_BSP_SCHEDULE_DELAY = '20';
  process.env.OTEL_NODE_RESOURCE_DETECTORS = 'none';
  await useProtocol('http/json');

  database = await openTestDatabase();
  storageDir = await mkdtemp(join(tmpdir(), 'tracing-'));
  storage = observedStorage(createLocalStorage(storageDir));
  const engine = observedEngine(createOfflineEngine());
  const services = testServices(database.db, { engine, clock, storage });
  queue = await openTestJobQueue(database, brandVoiceJobs(services));
  services.jobs = queue;
  h = await Harness.create({ database, engine, clock, logger: createLogger({ LOG_LEVEL: 'info' }, logSink), services: { jobs: queue, storage } });
  t = await h.tenant({ credits: 10_000 });
});
afterAll(async () => {
  await h.close();
  await queue.stop({ timeoutMs: 1_000 });
  await database.close();
  await stopTracing();
  receiver.close();
  await rm(storageDir, { recursive: true, force: true });
  for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
  Object.assign(process.env, savedEnv);
});

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

describe('traces over OTLP', () => {
  it('exports the span tree of a /responses call (http/json): request → database → model call with GenAI attributes, under the caller’s traceparent', async () => {
    const response = await h.post(
      '/responses',
      t.key,
      { model: 'service-1', persona_id: 'persona_saas_cfo', input: 'Would you pay $18 per seat?' },
      { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` },
    );
    expect(response.status).toBe(200);
    const traceresponse = String(response.headers.traceresponse);
    expect(traceresponse).toMatch(new RegExp(`^00-${CALLER_TRACE}-[0-9a-f]{16}-01$`));
    await flushTracing();

    const spans = jsonSpans().filter((span) => span.traceId === CALLER_TRACE);
    const server = spans.find((span) => span.name === 'createResponse');
    expect(server).toBeDefined();
    expect(server!.parentSpanId).toBe(CALLER_SPAN);
    expect(server!.spanId).toBe(traceresponse.split('-')[2]);
    expect(server!.kind).toBe(2); // SERVER
    expect(attribute(server!, 'http.response.status_code')).toBe(200);
    expect(attribute(server!, 'http.request.method')).toBe('POST');

    const children = spans.filter((span) => span.parentSpanId === server!.spanId);
    const statements = children.filter((span) => attribute(span, 'db.system.name') === 'postgresql');
    // The credit hold (one function call) and the settlement with the stored response (one statement), after
    // the key lookup of the authentication hook when the key is not cached yet.
    expect(statements.length).toBeGreaterThanOrEqual(2);
    const texts = statements.map((span) => String(attribute(span, 'db.query.text')));
    expect(texts.some((text) => /^select hold\.\* from hold_credits\(/i.test(text))).toBe(true);
    expect(texts.some((text) => /^with settled as \(select \* from charge_credits\(/i.test(text))).toBe(true);
    expect(statements.map((span) => span.name)).toEqual(expect.arrayContaining(['SELECT', 'WITH']));

    const model = children.find((span) => span.name === 'chat offline');
    expect(model).toBeDefined();
    const usage = response.body.usage as { input_tokens: number; output_tokens: number };
    expect(attribute(model!, 'gen_ai.operation.name')).toBe('chat');
    expect(attribute(model!, 'gen_ai.request.model')).toBe('offline');
    expect(attribute(model!, 'gen_ai.usage.input_tokens')).toBe(usage.input_tokens);
    expect(attribute(model!, 'gen_ai.usage.output_tokens')).toBe(usage.output_tokens);
    expect(attribute(model!, 'gen_ai.response.finish_reasons')).toEqual(['stop']);

    // The one log line of the request carries its trace, operation, status, ids and duration.
    const line = logLines.find((l) => l.msg === 'request completed' && l.operation_id === 'createResponse');
    expect(line).toMatchObject({
      trace_id: CALLER_TRACE,
      span_id: server!.spanId,
      status: 200,
      method: 'POST',
      account_id: t.accountId,
      request_id: response.headers['x-request-id'],
    });
    expect(typeof line!.duration_ms).toBe('number');
  });

  it('links the span of a job to the request that enqueued it', async () => {
    const fileId = newId('file');
    const key = `upl_${newId('file').slice(5)}`;
    const text = docxOf([
      'Short, warm sentences. We say hello to every customer by name.',
      'We thank them for their time and promise only what we can deliver this week.',
    ]);
    const jobsBefore = await scrapeMetrics();
    await storage.put(uploadObjectKey(key), Readable.from([text]));
    const now = clock.now();
    await h.db.insert(files).values({
      id: fileId,
      workspaceId: t.workspaceId,
      name: 'voice.docx',
      type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      sizeBytes: text.length,
      size: text.length,
      storageKey: key,
      createdAt: now,
      updatedAt: now,
    });
    const created = await h.post('/brand-voices', t.key, {
      label: 'House voice',
      usage_context: 'Marketing copy.',
      workspace_id: t.workspaceId,
      sources: { file_ids: [fileId] },
    });
    expect(created.status).toBe(200);
    const requestTrace = String(created.headers.traceresponse).split('-');
    expect(await queue.drain()).toEqual({ completed: 1, failed: 0 });
    await flushTracing();

    const spans = jsonSpans();
    const job = spans.find((span) => span.name === `job ${LEARN_BRAND_VOICE}` && span.links?.some((link) => link.traceId === requestTrace[1]));
    expect(job).toBeDefined();
    // A job outlives its request: a trace of its own, linked (not parented) to the request's span.
    expect(job!.traceId).not.toBe(requestTrace[1]);
    expect(job!.links![0]).toMatchObject({ traceId: requestTrace[1], spanId: requestTrace[2] });
    expect(attribute(job!, 'messaging.destination.name')).toBe(LEARN_BRAND_VOICE);
    const inJob = spans.filter((span) => span.parentSpanId === job!.spanId);
    expect((await h.get(`/brand-voices/${created.body.id}`, t.key)).body.status).toBe('completed');
    const model = inJob.find((span) => attribute(span, 'gen_ai.operation.name') === 'chat');
    expect(model).toBeDefined();
    expect(attribute(model!, 'persona.feature')).toBe(LEARN_BRAND_VOICE);
    expect(inJob.some((span) => attribute(span, 'db.system.name') === 'postgresql')).toBe(true);
    // Reading the document: the storage read and the parser are spans of the job too.
    expect(inJob.map((span) => span.name)).toEqual(expect.arrayContaining(['storage get', 'parse docx']));

    // The same run in the job metrics (this process's counters; the queue gauges read the database).
    const jobsAfter = await scrapeMetrics();
    const kind = { kind: LEARN_BRAND_VOICE };
    for (const counter of ['persona_jobs_enqueued_total', 'persona_jobs_started_total', 'persona_jobs_completed_total']) {
      expect(sample(jobsAfter, counter, kind) - sample(jobsBefore, counter, kind)).toBe(1);
    }
    expect(sample(jobsAfter, 'persona_jobs_failed_total', kind) - sample(jobsBefore, 'persona_jobs_failed_total', kind)).toBe(0);
    expect(sample(jobsAfter, 'persona_job_queue_depth', { ...kind, state: 'queued' })).toBe(0);
    expect(jobsAfter).toContain(`persona_job_oldest_waiting_seconds{kind="${LEARN_BRAND_VOICE}"} 0`);
    const bytesOut = { driver: 'local', direction: 'out' };
    expect(sample(jobsAfter, 'persona_storage_bytes_total', bytesOut) - sample(jobsBefore, 'persona_storage_bytes_total', bytesOut)).toBe(text.length);
  });

  it('creates no child spans in a request the caller sampled out: statements and the model call cost nothing to trace', async () => {
    const unsampledTrace = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
    const startSpan = vi.spyOn(tracer(), 'startSpan');
    try {
      const response = await h.post(
        '/responses',
        t.key,
        { model: 'service-1', persona_id: 'persona_saas_cfo', input: 'Would you pay $18 per seat?' },
        { traceparent: `00-${unsampledTrace}-${CALLER_SPAN}-00` },
      );
      expect(response.status).toBe(200);
      // The trace goes on (its id answered, flag 0 as the caller sent it) but only the request's span was started.
      expect(String(response.headers.traceresponse)).toMatch(new RegExp(`^00-${unsampledTrace}-[0-9a-f]{16}-00$`));
      expect(startSpan.mock.calls.map(([name]) => name)).toEqual(['createResponse']);
    } finally {
      startSpan.mockRestore();
    }
    await flushTracing();
    expect(jsonSpans().filter((span) => span.traceId === unsampledTrace)).toEqual([]);
    // The log line still names the trace, so a sampled-out request can be found by its id.
    expect(logLines.find((l) => l.msg === 'request completed' && l.trace_id === unsampledTrace)).toMatchObject({ status: 200 });
  });

  it('exports over http/protobuf too', async () => {
    await useProtocol('http/protobuf');
    const before = exports.length;
    const listed = await h.get('/workspaces', t.key);
    expect(listed.status).toBe(200);
    await flushTracing();
    const proto = exports.slice(before).filter((e) => e.contentType === 'application/x-protobuf');
    expect(proto.length).toBeGreaterThan(0);
    const bytes = Buffer.concat(proto.map((e) => e.body));
    // Protobuf keeps strings as UTF-8 bytes: the span name, the trace id (16 raw bytes) and attributes are there.
    expect(bytes.includes(Buffer.from('listWorkspaces'))).toBe(true);
    expect(bytes.includes(Buffer.from(String(listed.headers.traceresponse).split('-')[1]!, 'hex'))).toBe(true);
    expect(bytes.includes(Buffer.from('db.query.text'))).toBe(true);
  });
});
