import { z } from 'zod';

/** API keys: `svc_live_` then at least 32 characters of base62 (DECISIONS.md issues 40). */
export const API_KEY_PATTERN = /^svc_live_[A-Za-z0-9]{32,128}$/;

const optionalUrl = (protocols: string[]) =>
  z
    .string()
    .trim()
    .min(1)
    .refine((value) => {
      try {
        return protocols.includes(new URL(value).protocol);
      } catch {
        return false;
      }
    }, `must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}`)
    .optional();

const configSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().min(1).default('.data'),
  DATABASE_URL: optionalUrl(['postgres:', 'postgresql:']),
  REDIS_URL: optionalUrl(['redis:', 'rediss:']),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BOOTSTRAP_API_KEY: z
    .string()
    .regex(API_KEY_PATTERN, 'must be svc_live_ followed by 32 to 128 letters or digits')
    .optional(),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(30_000),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  // Multiplies every tier's requests per minute: for load tests and staging only (bench/api sets it).
  RATE_LIMIT_MULTIPLIER: z.coerce.number().int().min(1).max(100_000).default(1),
});

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Reads the configuration from the environment only; empty variables count as unset. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  );
  const parsed = configSchema.safeParse(present);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((issue) => {
    const name = issue.path.join('.');
    const given = present[name];
    // Never echo a secret back; the other variables are safe to show.
    const shown = given === undefined || /KEY|URL/.test(name) ? '' : ` (got ${JSON.stringify(given)})`;
    return `  ${name}: ${issue.message}${shown}`;
  });
  throw new ConfigError(`Invalid configuration in the environment:\n${lines.join('\n')}`);
}
