/**
 * The rule that keeps secrets out of logs (tested in test/observability/redaction.test.ts): fields named
 * like secrets are censored by pino's path redaction, and secrets inside any string field — API keys,
 * bearer tokens, signed links' signatures, webhook secrets — are masked by pattern, whatever field they
 * travel in (an error message, a URL, a header echoed by a library).
 */
export const REDACTED = '[redacted]';

const SECRET_FIELDS = [
  'authorization',
  'cookie',
  'apiKey',
  'api_key',
  'modelApiKey',
  'MODEL_API_KEY',
  'secret',
  'signature',
  'token',
  'upload_token',
  'password',
  'x-api-key',
];

/** pino `redact.paths`: each secret field at the top level, one level down, and in request/response headers. */
export const REDACT_PATHS = [
  ...SECRET_FIELDS.flatMap((field) => [`["${field}"]`, `*["${field}"]`]),
  ...SECRET_FIELDS.flatMap((field) => [`req.headers["${field}"]`, `res.headers["${field}"]`, `headers["${field}"]`]),
];

const SECRET_PATTERNS: [RegExp, string][] = [
  // API keys of this service and OpenAI-style model keys.
  [/\b(svc_live_|sk-(?:proj-)?)[A-Za-z0-9_-]{8,}/g, `$1${REDACTED}`],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, `$1 ${REDACTED}`],
  // Signed links (uploads, downloads, S3 presigned URLs) and token query parameters.
  [/([?&](?:signature|sig|token|access_token|X-Amz-Signature|X-Amz-Credential|X-Amz-Security-Token)=)[^&\s"']+/gi, `$1${REDACTED}`],
  // Standard Webhooks secrets and signatures.
  [/\b(whsec_)[A-Za-z0-9+/=]{8,}/g, `$1${REDACTED}`],
  [/\b(v1,)[A-Za-z0-9+/=]{20,}/g, `$1${REDACTED}`],
];

/** A string with every secret pattern masked. */
export function redactSecrets(text: string): string {
  let result = text;
  for (const [pattern, replacement] of SECRET_PATTERNS) result = result.replace(pattern, replacement);
  return result;
}

const MAX_DEPTH = 3;

function scrub(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactSecrets(value);
  if (depth >= MAX_DEPTH || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) {
    // pino serialises errors itself: hand it a copy whose message and stack are scrubbed.
    const copy = Object.create(Object.getPrototypeOf(value) as object) as Error;
    for (const key of Object.getOwnPropertyNames(value)) {
      (copy as unknown as Record<string, unknown>)[key] = scrub((value as unknown as Record<string, unknown>)[key], depth + 1);
    }
    return copy;
  }
  if (Array.isArray(value)) return value.map((item) => scrub(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = scrub(item, depth + 1);
  return out;
}

/** pino `formatters.log`: the log object with secrets in its strings masked (a few levels deep). */
export function redactLogObject(object: Record<string, unknown>): Record<string, unknown> {
  return scrub(object, 0) as Record<string, unknown>;
}

/** pino `hooks.logMethod`: the message (and format arguments) masked too, not only the object. */
export function redactLogMessage(this: unknown, args: unknown[], method: (...args: unknown[]) => void): void {
  method.apply(
    this,
    args.map((arg) => (typeof arg === 'string' ? redactSecrets(arg) : arg)),
  );
}
