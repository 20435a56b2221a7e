#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { DEFAULT_PORT, DEFAULT_SEED, DEFAULT_STREAM_DELAY_MS, startMock } from './index.js';
import type { PrismLogLevel } from './prism.js';

const usage = `Usage: pnpm mock [options]   (or: pnpm --filter @persona-api/mock start [options])

  --port <n>            public port (env MOCK_PORT, default ${DEFAULT_PORT})
  --host <addr>         listen address (env MOCK_HOST, default 127.0.0.1)
  --dynamic             generate data from the schemas instead of the spec's examples (env MOCK_DYNAMIC=1)
  --seed <s>            seed of the dynamic data, for repeatable runs (env MOCK_SEED, default ${DEFAULT_SEED})
  --stream-delay <ms>   pause between streamed events (env MOCK_STREAM_DELAY_MS, default ${DEFAULT_STREAM_DELAY_MS})
  --spec <file>         bundled spec to serve (default: openapi/dist/openapi.json)
  --log-level <level>   Prism's log level: trace|debug|info|warn|error|fatal|silent (env MOCK_LOG_LEVEL, default info)
  --help`;

const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    host: { type: 'string' },
    dynamic: { type: 'boolean' },
    seed: { type: 'string' },
    'stream-delay': { type: 'string' },
    spec: { type: 'string' },
    'log-level': { type: 'string' },
    help: { type: 'boolean' },
  },
});

if (values.help) {
  console.log(usage);
  process.exit(0);
}

function integer(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    console.error(`${name} must be a non-negative integer, got "${raw}"\n\n${usage}`);
    process.exit(2);
  }
  return value;
}

const env = process.env;
const mock = await startMock({
  port: integer('--port', values.port ?? env.MOCK_PORT, DEFAULT_PORT),
  host: values.host ?? env.MOCK_HOST ?? '127.0.0.1',
  dynamic: values.dynamic ?? ['1', 'true'].includes(env.MOCK_DYNAMIC ?? ''),
  seed: values.seed ?? env.MOCK_SEED ?? DEFAULT_SEED,
  streamDelayMs: integer('--stream-delay', values['stream-delay'] ?? env.MOCK_STREAM_DELAY_MS, DEFAULT_STREAM_DELAY_MS),
  ...(values.spec === undefined ? {} : { specPath: values.spec }),
  logLevel: (values['log-level'] ?? env.MOCK_LOG_LEVEL ?? 'info') as PrismLogLevel,
});

console.log(
  `\nPersona API mock: ${mock.url}/api/v1 (the spec's paths also answer at the root, ${mock.url}).` +
    `\nSend any 'Authorization: Bearer svc_live_…' key. (Prism listens on an internal port behind this one.)\n`,
);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void mock.close().then(() => process.exit(0));
  });
}
