import { EngineConfigError, parseEngineConfig, type EngineConfig } from '@persona-api/engine';
import { z } from 'zod';

/** API keys: `svc_live_` then at least 32 characters of base62 (DECISIONS.md issues 40). */
export const API_KEY_PATTERN = /^svc_live_[A-Za-z0-9]{32,128}$/;

const optionalUrl = (protocols: string[]) =>
  z
    .string()
    .trim()
    .min(1)
    .refine(
      (value) => {
        try {
          return protocols.includes(new URL(value).protocol);
        } catch {
          return false;
        }
      },
      `must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}`,
    )
    .optional();

const configSchema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(8080),
    HOST: z.string().min(1).default('0.0.0.0'),
    DATA_DIR: z.string().min(1).default('.data'),
    DATABASE_URL: optionalUrl(['postgres:', 'postgresql:']),
    REDIS_URL: optionalUrl(['redis:', 'rediss:']),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    BOOTSTRAP_API_KEY: z.string().regex(API_KEY_PATTERN, 'must be svc_live_ followed by 32 to 128 letters or digits').optional(),
    SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(30_000),
    // After SIGTERM the server keeps accepting for this long (readyz already 503, every answer closing
    // its connection), so requests already on their way are served rather than reset.
    SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).max(60_000).default(500),
    // PGlite only: let V8 optimize PGlite's hot WebAssembly functions. Off by default: optimizing one of them
    // takes about 600 MiB for half a second, most of an embedded server's peak memory (db/wasm-tiering.ts).
    PGLITE_WASM_TIER_UP: z
      .enum(['on', 'off'])
      .default('off')
      .transform((value) => value === 'on'),
    DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
    // Named prepared statements per connection (the default): one round trip per statement and no
    // re-planning. `false` for a pooler in transaction mode that cannot keep them (PgBouncer < 1.21).
    DATABASE_PREPARED_STATEMENTS: z
      .enum(['true', 'false'])
      .default('true')
      .transform((value) => value === 'true'),
    // Multiplies every tier's requests per minute, and the console's per client address (not its sign-in
    // attempts): for load tests and staging only (the benches set it).
    RATE_LIMIT_MULTIPLIER: z.coerce.number().int().min(1).max(100_000).default(1),
    // Persona suggestion sources of type url: how long one page may take, and whether private and
    // loopback addresses may be fetched (off by default: the server must not become a proxy into its
    // own network).
    SOURCE_FETCH_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
    SOURCE_FETCH_ALLOW_PRIVATE: z
      .enum(['true', 'false'])
      .default('false')
      .transform((value) => value === 'true'),
    // News feeds polled every 15 minutes (comma- or space-separated http(s) URLs); the admin CLI adds more.
    NEWS_FEEDS: z
      .string()
      .default('')
      .transform((value) => value.split(/[\s,]+/).filter((url) => url.length > 0))
      .refine((urls) => urls.every((url) => /^https?:\/\/\S+$/.test(url)), 'must be http(s) URLs separated by commas or spaces'),
    // Stored responses (POST /responses, /chat/completions) older than this many days are deleted by an
    // hourly job (DECISIONS.md, Responses); unset: kept until deleted. OpenAI keeps its own for 30 days.
    RESPONSE_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).optional(),
    // A SearXNG-compatible JSON search endpoint for the research tools' `web_search`; unset: no web search.
    WEB_SEARCH_URL: optionalUrl(['http:', 'https:']),
    // Prometheus metrics (DECISIONS.md, Observability): GET /metrics on this port only, never the API's;
    // unset: no metrics endpoint. METRICS_TOKEN, when set, must come as `Authorization: Bearer …`.
    METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    METRICS_HOST: z.string().min(1).default('127.0.0.1'),
    METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
    // Background jobs: `on` runs the workers inside the API process; `off` leaves them to `pnpm worker`.
    WORKERS: z.enum(['on', 'off']).default('on'),
    WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
    // A job whose process died (crash, SIGKILL, lost machine) is retried this long after its last
    // heartbeat, instead of after its whole deadline (up to 15 minutes). pg-boss's minimum is 10.
    JOB_HEARTBEAT_SECONDS: z.coerce.number().int().min(10).max(3600).default(30),
    // How often lost and overdue jobs are looked for (pg-boss's supervisor; its own default is 60 s).
    JOB_SUPERVISE_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(600).default(10),
    // Object storage: files under DATA_DIR (local) or an S3-compatible bucket.
    STORAGE_DRIVER: z.enum(['local', 's3']).default('local'),
    S3_ENDPOINT: optionalUrl(['http:', 'https:']),
    S3_BUCKET: z
      .string()
      .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a bucket name: 3 to 63 lowercase letters, digits, dots or hyphens')
      .optional(),
    S3_REGION: z.string().min(1).default('us-east-1'),
    S3_ACCESS_KEY_ID: z.string().min(1).optional(),
    S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
    S3_FORCE_PATH_STYLE: z
      .enum(['true', 'false'])
      .default('false')
      .transform((value) => value === 'true'),
    // Files and uploads (DECISIONS.md, Files and uploads). The externally visible base of /api/v1 that
    // upload and download links are built on; unset: http://localhost:$PORT/api/v1 (see publicBaseUrl).
    PUBLIC_BASE_URL: optionalUrl(['http:', 'https:']),
    // Signs upload and download links; unset: a random secret kept in the database (server_secrets).
    UPLOAD_SIGNING_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    // The ffmpeg binary that renders video thumbnails.
    FFMPEG_PATH: z.string().min(1).default('ffmpeg'),
    // Meetings imported from a recording: an OpenAI-compatible speech-to-text server (`…/v1`, serving
    // /audio/transcriptions); unset, such meetings fail with `transcription_not_configured`.
    TRANSCRIPTION_BASE_URL: optionalUrl(['http:', 'https:']),
    TRANSCRIPTION_MODEL: z.string().min(1).default('whisper-1'),
    TRANSCRIPTION_API_KEY: z.string().min(1).optional(),
    // A Recall.ai-compatible meeting-bot provider; unset RECALL_API_KEY: the development simulator joins
    // no real call. RECALL_BASE_URL overrides https://$RECALL_REGION.recall.ai (a proxy, or a local fake).
    RECALL_API_KEY: z.string().min(1).optional(),
    RECALL_REGION: z.enum(['us-east-1', 'us-west-2', 'eu-central-1', 'ap-northeast-1']).default('us-west-2'),
    RECALL_BASE_URL: optionalUrl(['http:', 'https:']),
    // The workspace verification secret (`whsec_…`) status webhooks are signed with (Standard Webhooks).
    RECALL_WEBHOOK_SECRET: z
      .string()
      .regex(/^whsec_[A-Za-z0-9+/=]{16,}$/, 'must be the whsec_… verification secret of the Recall workspace')
      .optional(),
  })
  .superRefine((config, context) => {
    if (config.RECALL_API_KEY && !config.RECALL_WEBHOOK_SECRET) {
      context.addIssue({ code: 'custom', path: ['RECALL_WEBHOOK_SECRET'], message: 'is required with RECALL_API_KEY: unsigned status webhooks are refused' });
    }
    if (config.STORAGE_DRIVER !== 's3') return;
    if (!config.S3_BUCKET) context.addIssue({ code: 'custom', path: ['S3_BUCKET'], message: 'is required when STORAGE_DRIVER=s3' });
    if (Boolean(config.S3_ACCESS_KEY_ID) !== Boolean(config.S3_SECRET_ACCESS_KEY)) {
      const missing = config.S3_ACCESS_KEY_ID ? 'S3_SECRET_ACCESS_KEY' : 'S3_ACCESS_KEY_ID';
      context.addIssue({ code: 'custom', path: [missing], message: 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are set together or not at all' });
    }
  });

/** The server's settings; `engine` is the model engine's (MODEL_*, OFFLINE_ENGINE_SEED), parsed by @persona-api/engine. */
export type Config = z.infer<typeof configSchema> & { engine: EngineConfig };

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** The base every upload and download link is built on, without a trailing slash. */
export function publicBaseUrl(config: Pick<Config, 'PUBLIC_BASE_URL' | 'PORT'>): string {
  return (config.PUBLIC_BASE_URL ?? `http://localhost:${config.PORT}/api/v1`).replace(/\/+$/, '');
}

/** Reads the configuration from the environment only; empty variables count as unset. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = configSchema.safeParse(present);
  // The engine's own parser names its variables in each message (and never echoes MODEL_API_KEY).
  let engine: EngineConfig | undefined;
  let engineIssues: string[] = [];
  try {
    engine = parseEngineConfig(present);
  } catch (err) {
    if (!(err instanceof EngineConfigError)) throw err;
    engineIssues = err.issues;
  }
  if (parsed.success && engine) return { ...parsed.data, engine };
  const lines = (parsed.success ? [] : parsed.error.issues).map((issue) => {
    const name = issue.path.join('.');
    const given = present[name];
    // Never echo a secret back; the other variables are safe to show.
    const shown = given === undefined || /KEY|URL|SECRET|TOKEN/.test(name) ? '' : ` (got ${JSON.stringify(given)})`;
    return `  ${name}: ${issue.message}${shown}`;
  });
  lines.push(...engineIssues.map((issue) => `  ${issue}`));
  throw new ConfigError(`Invalid configuration in the environment:\n${lines.join('\n')}`);
}
