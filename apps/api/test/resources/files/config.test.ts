import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, publicBaseUrl } from '../../../src/config.js';

describe('files configuration', () => {
  it('builds links on PUBLIC_BASE_URL, defaulting to the local port over http', () => {
    expect(publicBaseUrl(loadConfig({}))).toBe('http://localhost:8080/api/v1');
    expect(publicBaseUrl(loadConfig({ PORT: '9000' }))).toBe('http://localhost:9000/api/v1');
    expect(publicBaseUrl(loadConfig({ PUBLIC_BASE_URL: 'https://api.example.com/api/v1/' }))).toBe('https://api.example.com/api/v1');
    expect(loadConfig({}).FFMPEG_PATH).toBe('ffmpeg');
  });

  it('refuses a short signing secret without echoing it, and a non-http base', () => {
    let error: unknown;
    try {
      loadConfig({ UPLOAD_SIGNING_SECRET: 'short-secret-value', PUBLIC_BASE_URL: 'ftp://files.example' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toContain('UPLOAD_SIGNING_SECRET:');
    expect(message).toContain('PUBLIC_BASE_URL:');
    expect(message).not.toContain('short-secret-value');
  });
});
