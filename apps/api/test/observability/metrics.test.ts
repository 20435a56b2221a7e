import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOfflineEngine, type Engine, EngineError } from '@persona-api/engine';
import { MemoryRateLimiter } from '../../src/http/rate-limit.js';
import { createGuardedFetcher } from '../../src/lib/guarded-fetch.js';
import { startMetricsServer, type MetricsServer } from '../../src/observability/server.js';
import { collectCreditHolds } from '../../src/observability/billing.js';
import { openTestDatabase, driverName } from '../support/database.js';
import { events } from '../support/ai.js';
import { sample } from './scrape.js';
import { Harness, TestClock, type Tenant } from '../support/harness.js';

const ALERT_RULES = fileURLToPath(new URL('../../../../deploy/observability/alerts.yml', import.meta.url));
const PROMETHEUS_CONFIG = fileURLToPath(new URL('../../../../deploy/observability/prometheus.yml', import.meta.url));
const DASHBOARD = fileURLToPath(new URL('../../../../deploy/observability/grafana/dashboards/persona-api.json', import.meta.url));
const TOKEN = 'scrape-token-0123456789';

function promtool(): string | null {
  const found = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
  if (found.status === 0) return 'promtool';
  // Loud, not silent: CI installs it (scripts/setup.sh); a laptop without it is told how.
  console.warn('\n\n*** promtool is not installed: the promtool checks are SKIPPED (apt-get install prometheus) ***\n\n');
  return null;
}

let h: Harness;
let t: Tenant;
let metrics: MetricsServer;
let stopHolds: () => void;
const clock = new TestClock();

beforeAll(async () => {
  const database = await openTestDatabase();
  // A tier-independent limit of 3 a minute for the key of the rate-limit case (multiplier 1).
  h = await Harness.create({ database, clock, rateLimiter: new MemoryRateLimiter(clock.ms) });
  t = await h.tenant({ credits: 10_000 });
  stopHolds = collectCreditHolds(h.db);
  metrics = await startMetricsServer({ port: 0, host: '127.0.0.1', token: TOKEN });
});
afterAll(async () => {
  stopHolds();
  await metrics.close();
  await h.close();
  await h.database.close();
});

const scrape = async () => {
  const response = await fetch(metrics.url, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain');
  return response.text();
};

describe('GET /metrics', () => {
  it('is on its own port and refuses a scrape without the token', async () => {
    expect((await fetch(metrics.url)).status).toBe(401);
    expect((await fetch(metrics.url, { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status).toBe(401);
    expect((await fetch(metrics.url.replace('/metrics', '/other'), { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(404);
  });

  it('counts what a workload did: requests by operation and status class, model calls, tokens, credits, database statements', async () => {
    const before = await scrape();
    for (let i = 0; i < 5; i++) expect((await h.get('/workspaces', t.key)).status).toBe(200);
    expect((await h.get('/workspaces', 'svc_live_notAKeyAtAll0000000000000000000000')).status).toBe(401);
    expect((await h.get(`/workspaces/ws_missing0000`, t.key)).status).toBe(404);
    const response = await h.post('/responses', t.key, { model: 'service-1', persona_id: 'persona_saas_cfo', input: 'Would you pay $18 per seat?' });
    expect(response.status).toBe(200);
    const usage = response.body.usage as { input_tokens: number; output_tokens: number; credits_used: number };
    const streamed = await h.post('/responses', t.key, { model: 'service-1', persona_id: 'persona_saas_cfo', input: 'And at $12?', stream: true });
    expect(streamed.status).toBe(200);
    expect(streamed.text).toContain('response.completed');
    const after = await scrape();

    const delta = (name: string, labels: Record<string, string> = {}) => sample(after, name, labels) - sample(before, name, labels);
    expect(delta('persona_http_requests_total', { operation: 'listWorkspaces', method: 'GET', status_class: '2xx' })).toBe(5);
    expect(delta('persona_http_requests_total', { operation: 'listWorkspaces', method: 'GET', status_class: '4xx' })).toBe(1);
    expect(delta('persona_http_requests_total', { operation: 'getWorkspace', method: 'GET', status_class: '4xx' })).toBe(1);
    expect(delta('persona_http_request_duration_seconds_count', { operation: 'listWorkspaces', method: 'GET', status_class: '2xx' })).toBe(5);

    const model = { model: 'offline', feature: 'createResponse' };
    const streamedUsage = events(streamed.text).find((e) => e.data.type === 'response.completed')?.data.response.usage as typeof usage;
    expect(delta('persona_http_requests_total', { operation: 'createResponse', method: 'POST', status_class: '2xx' })).toBe(2);
    expect(delta('persona_model_calls_total', { ...model, outcome: 'ok' })).toBe(2);
    expect(delta('persona_model_call_duration_seconds_count', { ...model, outcome: 'ok' })).toBe(2);
    // Time to first token: streamed calls only.
    expect(delta('persona_model_time_to_first_token_seconds_count', model)).toBe(1);
    expect(delta('persona_model_tokens_total', { ...model, type: 'input' })).toBe(usage.input_tokens + streamedUsage.input_tokens);
    expect(delta('persona_model_tokens_total', { ...model, type: 'output' })).toBe(usage.output_tokens + streamedUsage.output_tokens);
    expect(usage.credits_used).toBeGreaterThan(0);
    expect(delta('persona_credits_total', { feature: 'createResponse', kind: 'charged' })).toBe(usage.credits_used + streamedUsage.credits_used);

    const driver = driverName();
    expect(delta('persona_db_statement_duration_seconds_count', { driver, operation: 'select' })).toBeGreaterThan(5);
    // Each settlement (the charge and the stored response) is one WITH statement; inserts are only the usage
    // meter's background flush now, which may land after the scrape.
    expect(delta('persona_db_statement_duration_seconds_count', { driver, operation: 'with' })).toBeGreaterThanOrEqual(2);
    // Background writes (usage counters) may still be out; once they land nothing is left in flight.
    await expect.poll(async () => sample(await scrape(), 'persona_db_statements_in_flight', { driver }), { timeout: 5_000 }).toBe(0);
    // The hold of the call was taken by its charge: none is left open.
    expect(sample(after, 'persona_credit_holds_open')).toBe(0);
    // Runtime metrics of the process.
    expect(sample(after, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(after).toContain('nodejs_eventloop_lag_p99_seconds');
    expect(after).toContain('nodejs_heap_size_used_bytes');
  });

  it('counts rate-limit refusals', async () => {
    const before = sample(await scrape(), 'persona_rate_limit_refusals_total');
    const limited = await h.tenant({ tier: 'starter', credits: 10 });
    let refused = 0;
    for (let i = 0; i < 62; i++) if ((await h.get('/workspaces', limited.key)).status === 429) refused++;
    expect(refused).toBe(2);
    expect(sample(await scrape(), 'persona_rate_limit_refusals_total') - before).toBe(2);
  });

  it('counts failed model calls by their engine error code, and the 5xx they answer', async () => {
    const offline = createOfflineEngine();
    const failing: Engine = {
      ...offline,
      kind: offline.kind,
      describe: () => offline.describe(),
      generate: async () => {
        throw new EngineError('upstream_error', 'The model server answered 500.');
      },
    };
    const broken = await Harness.create({ database: h.database, clock, engine: failing });
    try {
      const before = await scrape();
      const answer = await broken.post('/responses', t.key, { model: 'service-1', persona_id: 'persona_saas_cfo', input: 'Hello?' });
      expect(answer.status).toBe(502);
      const after = await scrape();
      const delta = (name: string, labels: Record<string, string>) => sample(after, name, labels) - sample(before, name, labels);
      expect(delta('persona_model_calls_total', { model: 'offline', feature: 'createResponse', outcome: 'upstream_error' })).toBe(1);
      expect(delta('persona_model_calls_total', { model: 'offline', feature: 'createResponse', outcome: 'ok' })).toBe(0);
      expect(delta('persona_http_requests_total', { operation: 'createResponse', method: 'POST', status_class: '5xx' })).toBe(1);
    } finally {
      await broken.close();
    }
  });

  it('counts guarded-fetch refusals by reason', async () => {
    const before = await scrape();
    const fetcher = createGuardedFetcher();
    await expect(fetcher.get('http://127.0.0.1:9/private')).rejects.toMatchObject({ reason: 'blocked_address' });
    await expect(fetcher.get('ftp://example.com/file')).rejects.toMatchObject({ reason: 'unsupported_protocol' });
    const after = await scrape();
    for (const reason of ['blocked_address', 'unsupported_protocol']) {
      expect(sample(after, 'persona_guarded_fetch_refusals_total', { reason }) - sample(before, 'persona_guarded_fetch_refusals_total', { reason })).toBe(1);
    }
  });

  it('never labels with ids or raw paths', async () => {
    const samples = (await scrape()).split('\n').filter((line) => !line.startsWith('#'));
    expect(samples.join('\n')).not.toMatch(/ws_missing|\/api\/v1\/|svc_live_/);
  });

  it('the dashboard and the alert rules name only metrics the server exports', async () => {
    const text = await scrape();
    const exported = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1]));
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: { targets?: { expr: string }[] }[] };
    const expressions = [...dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr)), readFileSync(ALERT_RULES, 'utf8')];
    const named = new Set(expressions.flatMap((expr) => [...expr.matchAll(/\b((?:persona|nodejs|process)_[a-z0-9_]+)/g)].map((match) => match[1]!)));
    expect(named.size).toBeGreaterThan(20);
    for (const name of named) expect(exported, name).toContain(name.replace(/_(bucket|count|sum)$/, ''));
    // Every metric family is on the dashboard.
    for (const name of exported)
      if (name?.startsWith('persona_'))
        expect(
          [...named].some((used) => used.startsWith(name)),
          `${name} is on no panel`,
        ).toBe(true);
  });

  it('passes promtool check metrics on a real scrape, and the alert rules pass promtool check rules', async () => {
    const tool = promtool();
    if (!tool) return;
    {
      // check metrics reads the exposition on stdin and exits non-zero on a format or naming problem.
      const lint = spawnSync(tool, ['check', 'metrics'], { input: await scrape(), encoding: 'utf8' });
      expect(lint.stderr + lint.stdout).toBe('');
      expect(lint.status).toBe(0);
      const rules = execFileSync(tool, ['check', 'rules', ALERT_RULES], { encoding: 'utf8' });
      expect(rules).toMatch(/SUCCESS: \d+ rules found/);
      // The compose Prometheus configuration, with its rule file where this checkout has it.
      const dir = mkdtempSync(join(tmpdir(), 'promtool-'));
      try {
        const config = readFileSync(PROMETHEUS_CONFIG, 'utf8').replace('/etc/prometheus/alerts.yml', ALERT_RULES);
        writeFileSync(join(dir, 'prometheus.yml'), config);
        expect(execFileSync(tool, ['check', 'config', join(dir, 'prometheus.yml')], { encoding: 'utf8' })).toMatch(/SUCCESS/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });
});
