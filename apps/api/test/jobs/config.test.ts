import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('job and storage configuration', () => {
  it('defaults to workers in the API process and local storage', () => {
    expect(loadConfig({})).toMatchObject({ WORKERS: 'on', WORKER_CONCURRENCY: 2, STORAGE_DRIVER: 'local', S3_REGION: 'us-east-1', S3_FORCE_PATH_STYLE: false });
  });

  it('reads an S3-compatible bucket from the environment', () => {
    const config = loadConfig({
      WORKERS: 'off',
      STORAGE_DRIVER: 's3',
      S3_ENDPOINT: 'http://minio.internal:9000',
      S3_BUCKET: 'persona-objects',
      S3_REGION: 'eu-central-1',
      S3_ACCESS_KEY_ID: 'AKIAEXAMPLE',
      S3_SECRET_ACCESS_KEY: 'secret-value',
      S3_FORCE_PATH_STYLE: 'true',
    });
    expect(config).toMatchObject({ WORKERS: 'off', STORAGE_DRIVER: 's3', S3_BUCKET: 'persona-objects', S3_FORCE_PATH_STYLE: true });
  });

  it('names each bad variable on its own line and never echoes the secret', () => {
    let message = '';
    try {
      loadConfig({ WORKERS: 'sometimes', WORKER_CONCURRENCY: '0', STORAGE_DRIVER: 'ftp', S3_ENDPOINT: 'minio:9000', S3_FORCE_PATH_STYLE: 'yes' });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      message = (err as Error).message;
    }
    const lines = message.split('\n').slice(1);
    for (const name of ['WORKERS', 'WORKER_CONCURRENCY', 'STORAGE_DRIVER', 'S3_ENDPOINT', 'S3_FORCE_PATH_STYLE']) {
      expect(
        lines.filter((line) => line.trimStart().startsWith(`${name}:`)),
        name,
      ).toHaveLength(1);
    }
    expect(() => loadConfig({ STORAGE_DRIVER: 's3' })).toThrow(/S3_BUCKET: is required when STORAGE_DRIVER=s3/);
    try {
      loadConfig({ STORAGE_DRIVER: 's3', S3_BUCKET: 'b-1', S3_SECRET_ACCESS_KEY: 'do-not-print' });
      expect.unreachable();
    } catch (err) {
      expect((err as Error).message).toMatch(/S3_ACCESS_KEY_ID: S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are set together/);
      expect((err as Error).message).not.toContain('do-not-print');
    }
  });
});
