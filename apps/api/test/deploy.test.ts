// The production shape as files (docker-compose.yml, Procfile, Dockerfile): it cannot run on these
// machines (no Docker), so what can go wrong in it unnoticed is checked here — every variable it sets is
// one the server reads and accepts, the replicas run no workers and the worker runs apart, and the
// commands name entry points the build produces. test/hardening/instances.test.ts runs the same shape.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../src/config.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
// Every variable the server reads is named in one of these two files.
const READ_VARIABLES = `${read('apps/api/src/config.ts')}\n${read('packages/engine/src/config.ts')}`;

/** Compose's `${NAME:?message}` and `${NAME:-default}`, as an operator would fill them in. */
const substitute = (value: string) =>
  value.replace(/\$\{(\w+)(?::([?-])([^}]*))?\}/g, (_match, _name: string, kind?: string, rest?: string) => (kind === '-' ? (rest ?? '') : 'x'.repeat(40)));

interface Service {
  environment?: Record<string, string>;
  command?: string[];
  deploy?: { replicas?: number };
  build?: string;
}

describe('docker-compose.yml', () => {
  const compose = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, Service> };

  it('runs two API replicas without workers and one worker, on PostgreSQL, Redis and S3 storage', () => {
    const { api, worker } = compose.services;
    expect(api?.deploy?.replicas).toBe(2);
    expect(api?.environment?.WORKERS).toBe('off');
    expect(worker?.command).toEqual(['node', 'dist/worker.js']);
    expect(worker?.environment?.WORKERS).toBeUndefined();
    for (const service of [api, worker]) {
      expect(service?.environment).toMatchObject({ STORAGE_DRIVER: 's3', S3_BUCKET: 'persona-uploads' });
      expect(service?.environment?.DATABASE_URL).toMatch(/^postgres:\/\/.*@postgres:5432\//);
      expect(service?.environment?.REDIS_URL).toBe('redis://redis:6379');
    }
    expect(Object.keys(compose.services)).toEqual(expect.arrayContaining(['postgres', 'redis', 'minio', 'minio-bucket']));
  });

  it('runs Prometheus and Grafana on the files in deploy/observability, scraping the metrics port of the API and the worker', () => {
    const services = compose.services as Record<string, Service & { volumes?: string[] }>;
    expect(services.api?.environment?.METRICS_PORT).toBe('9464');
    expect(services.worker?.environment?.METRICS_PORT).toBe('9464');
    const mounted = [...(services.prometheus?.volumes ?? []), ...(services.grafana?.volumes ?? [])].filter((volume) => volume.startsWith('./'));
    expect(mounted.length).toBe(4);
    for (const volume of mounted) expect(() => readFileSync(join(ROOT, volume.split(':')[0]!))).not.toThrow(/ENOENT/);
    const prometheus = parse(read('deploy/observability/prometheus.yml')) as { scrape_configs: { dns_sd_configs: { names: string[]; port: number }[] }[] };
    const targets = prometheus.scrape_configs.flatMap((job) => job.dns_sd_configs.map((sd) => `${sd.names.join(',')}:${sd.port}`));
    expect(targets).toEqual(['api:9464', 'worker:9464']);
  });

  it('sets only variables the server reads, with values it accepts', () => {
    for (const name of ['api', 'worker']) {
      const environment = Object.fromEntries(Object.entries(compose.services[name]?.environment ?? {}).map(([key, value]) => [key, substitute(String(value))]));
      for (const key of Object.keys(environment)) expect(READ_VARIABLES, `${name}: ${key}`).toContain(`${key}:`);
      expect(() => loadConfig(environment)).not.toThrow();
    }
  });
});

describe('Procfile and Dockerfile', () => {
  it('start the built entry points: web processes without workers, the worker apart', () => {
    const processes = Object.fromEntries(
      read('Procfile')
        .split('\n')
        .filter((line) => /^\w+:/.test(line))
        .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]),
    );
    expect(processes).toEqual({ web: 'MALLOC_ARENA_MAX=2 WORKERS=off node apps/api/dist/main.js', worker: 'MALLOC_ARENA_MAX=2 node apps/api/dist/worker.js' });
    const build = JSON.parse(read('apps/api/tsconfig.build.json')) as { compilerOptions?: { outDir?: string } };
    expect(build.compilerOptions?.outDir ?? 'dist').toMatch(/dist$/);
    const dockerfile = read('Dockerfile');
    expect(dockerfile).toContain('FROM node:24');
    expect(dockerfile).toContain('CMD ["node", "dist/main.js"]');
    // glibc's arenas, read at process start (bench/README.md, soak): set where the process is started.
    expect(dockerfile).toMatch(/^ENV .*MALLOC_ARENA_MAX=2/m);
  });
});
