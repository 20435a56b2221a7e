import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalStorage } from '../../src/storage/local.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openFilesStand, pathOf, uploadAndRecord, type FilesStand } from '../resources/files/flow.js';
import type { Tenant } from '../support/harness.js';

// SECURITY.md, Downloads: a signed GET /uploads/{key} link never renders active content on the API's
// origin. Real uploads through the flow, under their own types and under generic ones.

let dir: string;
let stand: FilesStand;
let t: Tenant;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'security-downloads-'));
  stand = await openFilesStand(createLocalStorage(dir));
  t = await stand.h.tenant();
});
afterAll(async () => {
  await stand?.close();
  await rm(dir, { recursive: true, force: true });
});

const HTML = '<!doctype html><html><body><script>fetch("/api/v1/files").then(r=>r.text()).then(alert)</script></body></html>';
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(document.domain)</script><rect width="10" height="10"/></svg>';
const XHTML = '<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><body><script>alert(document.domain)</script></body></html>';
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

async function download(bytes: Buffer | string, type: string, name: string) {
  const { file } = await uploadAndRecord(stand.h, t, Buffer.from(bytes), type, { file_name: name });
  const response = await stand.h.app.inject({ method: 'GET', url: pathOf(file.url) });
  expect(response.statusCode, response.body).toBe(200);
  return response;
}

describe('downloads of stored files', () => {
  it('sends HTML, SVG, XHTML, JavaScript and XML as sandboxed attachments, under their own types and under generic ones', async () => {
    const cases: [string | Buffer, string, string][] = [
      [HTML, 'text/html', 'page.html'],
      [HTML, 'application/octet-stream', 'page.bin'],
      [SVG, 'image/svg+xml', 'logo.svg'],
      [SVG, 'application/octet-stream', 'logo.svg'],
      [XHTML, 'application/xhtml+xml', 'page.xhtml'],
      [XHTML, 'application/xml', 'page.xml'],
      [XHTML, 'text/xml', 'page.xml'],
      ['alert(document.domain)', 'application/javascript', 'app.js'],
      ['alert(document.domain)', 'text/javascript', 'app.js'],
      [HTML, 'text/markdown', 'notes.md'],
    ];
    for (const [bytes, type, name] of cases) {
      const response = await download(bytes, type, name);
      expect(response.headers['content-type'], type).toBe(type);
      expect(response.headers['x-content-type-options'], type).toBe('nosniff');
      expect(response.headers['content-security-policy'], type).toBe("default-src 'none'; sandbox");
      expect(response.headers['content-disposition'], type).toMatch(/^attachment; filename="upl_[A-Za-z0-9]+(\.[A-Za-z0-9]+)?"$/);
      expect(response.body).toBe(Buffer.from(bytes).toString());
    }
  });

  it('shows only passive types inline, still with nosniff and the sandbox (HTML sent as text/plain stays text)', async () => {
    for (const [bytes, type] of [
      [PNG, 'image/png'],
      [HTML, 'text/plain'],
      ['a,b\n1,2\n', 'text/csv'],
    ] as const) {
      const response = await download(bytes, type, 'x');
      expect(response.headers['content-type']).toBe(type);
      expect(response.headers['content-disposition']).toBe('inline');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['content-security-policy']).toBe("default-src 'none'; sandbox");
    }
  });

  it('lets the browser keep the bytes until the link expires, never a shared cache', async () => {
    const { file } = await uploadAndRecord(stand.h, t, PNG, 'image/png', { file_name: 'pixel.png' });
    const expires = Number(new URL(file.url).searchParams.get('expires'));
    const response = await stand.h.app.inject({ method: 'GET', url: pathOf(file.url) });
    const nowSeconds = Math.floor(stand.h.clock.now().getTime() / 1000);
    expect(response.headers['cache-control']).toBe(`private, max-age=${expires - nowSeconds}, immutable`);
    expect(expires - nowSeconds).toBeGreaterThanOrEqual(3600);
    const ranged = await stand.h.app.inject({ method: 'GET', url: pathOf(file.url), headers: { range: 'bytes=0-9' } });
    expect(ranged.headers['cache-control']).toBe(response.headers['cache-control']);
  });

  it('puts the same headers on a range answer (206)', async () => {
    const { file } = await uploadAndRecord(stand.h, t, Buffer.from(HTML), 'text/html', { file_name: 'p.html' });
    const response = await stand.h.app.inject({ method: 'GET', url: pathOf(file.url), headers: { range: 'bytes=0-9' } });
    expect(response.statusCode).toBe(206);
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['content-disposition']).toMatch(/^attachment/);
    expect(response.headers['content-security-policy']).toBe("default-src 'none'; sandbox");
  });
});
