import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { REDACTED, redactSecrets } from '../../src/observability/redact.js';
import { createLogger } from '../../src/server.js';

function capture() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter((line) => line.trim()),
      );
      done();
    },
  });
  return { logger: createLogger({ LOG_LEVEL: 'info' }, sink), lines };
}

const API_KEY = 'svc_live_Q2x9Vd7XcM3aLp0RfT8uWy1Zb4Nh6Ke5Jg2';
const MODEL_KEY = 'sk-proj-abcdefghijklmnopqrstuvwxyz012345';
const SIGNATURE = '9f2c1e0b7a6d5c4b3a29180f7e6d5c4b3a29180f7e6d5c4b3a29180f7e6d5c4b';
const WEBHOOK_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const UPLOAD_URL = `http://localhost:8080/api/v1/uploads/upl_abc?expires=1795652928&signature=${SIGNATURE}`;

describe('log redaction', () => {
  it('censors fields named like secrets, at the top, one level down and in headers', () => {
    const { logger, lines } = capture();
    logger.info(
      {
        authorization: `Bearer ${API_KEY}`,
        req: { headers: { authorization: `Bearer ${API_KEY}`, 'x-api-key': MODEL_KEY, cookie: 'session=abc' } },
        upstream: { apiKey: MODEL_KEY, MODEL_API_KEY: MODEL_KEY, token: 'tok_123', signature: SIGNATURE },
        secret: WEBHOOK_SECRET,
      },
      'calling the model',
    );
    const line = JSON.parse(lines[0]!) as Record<string, any>;
    expect(line.authorization).toBe(REDACTED);
    expect(line.req.headers).toEqual({ authorization: REDACTED, 'x-api-key': REDACTED, cookie: REDACTED });
    expect(line.upstream).toEqual({ apiKey: REDACTED, MODEL_API_KEY: REDACTED, token: REDACTED, signature: REDACTED });
    expect(line.secret).toBe(REDACTED);
    expect(line.msg).toBe('calling the model');
  });

  it('masks secrets inside any string: messages, URLs, errors, nested objects', () => {
    const { logger, lines } = capture();
    const error = new Error(`upload to ${UPLOAD_URL} failed with key ${API_KEY}`);
    logger.warn(
      { err: error, detail: { url: UPLOAD_URL, note: `model key ${MODEL_KEY} was refused`, header: `v1,${'A'.repeat(44)}=` } },
      `webhook secret ${WEBHOOK_SECRET} rejected`,
    );
    const text = lines.join('\n');
    for (const secret of [API_KEY, MODEL_KEY, SIGNATURE, WEBHOOK_SECRET, 'A'.repeat(44)]) expect(text).not.toContain(secret);
    const line = JSON.parse(lines[0]!) as Record<string, any>;
    expect(line.err.message).toBe(`upload to ${UPLOAD_URL.replace(SIGNATURE, REDACTED)} failed with key svc_live_${REDACTED}`);
    expect(line.err.type).toBe('Error');
    expect(line.err.stack).toContain(`signature=${REDACTED}`);
    expect(line.detail.url).toBe(UPLOAD_URL.replace(SIGNATURE, REDACTED));
    // What is not a secret stays readable.
    expect(line.detail.url).toContain('expires=1795652928');
    expect(line.msg).toBe(`webhook secret whsec_${REDACTED} rejected`);
  });

  it('leaves ordinary text alone', () => {
    const text = 'GET /api/v1/workspaces?limit=20 answered 200 for acct_123 (sk is a prefix; svc_live_ alone is not a key)';
    expect(redactSecrets(text)).toBe(text);
    expect(redactSecrets('Authorization: Bearer abc.def-ghi')).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(redactSecrets('https://bucket.s3.amazonaws.com/k?X-Amz-Credential=AKIA%2F1&X-Amz-Signature=ff00&x=1')).toBe(
      `https://bucket.s3.amazonaws.com/k?X-Amz-Credential=${REDACTED}&X-Amz-Signature=${REDACTED}&x=1`,
    );
  });
});
