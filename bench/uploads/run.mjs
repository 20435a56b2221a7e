// Upload throughput and memory: MB/s of `PUT /uploads/{key}` (signed URL from POST /files/upload-url,
// bytes streamed through size counting, SHA-256 and type sniffing into storage) next to writing the same
// bytes to a local file directly (plain, and with a SHA-256 on the way), in one run; and the server's RSS
// sampled every 50 ms while the upload streams. Only 127.0.0.1 is a target; every run is bounded.
//
//   pnpm build && pnpm --filter @persona-api/bench uploads [--size-mib 1024] [--json]
//
// The bytes are generated as they are sent (an MP4 `ftyp` box, then pseudo-random filler), so neither
// side ever holds them whole; the API stores them under a scratch DATA_DIR on the same disk as the direct
// write. STORAGE_DRIVER and the S3_* variables from the environment are passed on (an S3 target works too).
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { log } from '../lib/log.mjs';
import { startApiServer, stopProcess } from '../lib/servers.mjs';

const { values: args } = parseArgs({
  options: {
    'size-mib': { type: 'string', default: '1024' },
    json: { type: 'boolean', default: false },
  },
});
const SIZE = Number(args['size-mib']) * 1024 * 1024;
const CHUNK = 256 * 1024;
const KEY = `svc_live_${randomBytes(20).toString('hex')}`;

// One filler for every stream, so the checksum computed first matches the bytes sent later.
const filler = randomBytes(CHUNK);

/** `size` bytes of a plausible MP4: a real `ftyp` box (what type sniffing reads), then filler. */
function mp4Bytes(size) {
  const ftyp = Buffer.from([0, 0, 0, 0x18, ...Buffer.from('ftypisom'), 0, 0, 2, 0, ...Buffer.from('isomiso2')]);
  const mdatHeader = Buffer.alloc(8);
  mdatHeader.writeUInt32BE(Math.min(size - ftyp.length, 0xffffffff), 0);
  mdatHeader.write('mdat', 4);
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= size) return this.push(null);
      let chunk = sent === 0 ? Buffer.concat([ftyp, mdatHeader, filler]) : filler;
      if (sent + chunk.length > size) chunk = chunk.subarray(0, size - sent);
      sent += chunk.length;
      this.push(chunk);
    },
  });
}

function sha256Of(size) {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    mp4Bytes(size)
      .on('data', (c) => hash.update(c))
      .on('end', () => resolve(hash.digest('base64')))
      .on('error', reject);
  });
}

const rssKiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
const mbPerS = (bytes, ms) => Math.round((bytes / 1e6 / (ms / 1000)) * 10) / 10;

async function direct(dir, withHash) {
  const started = performance.now();
  const hash = createHash('sha256');
  const tap = new Transform({
    transform(chunk, _enc, done) {
      if (withHash) hash.update(chunk);
      done(null, chunk);
    },
  });
  await pipeline(mp4Bytes(SIZE), tap, createWriteStream(join(dir, `direct-${withHash}.bin`)));
  if (withHash) hash.digest();
  return performance.now() - started;
}

async function throughServer(dataDir) {
  const { child, baseUrl } = await startApiServer({ BOOTSTRAP_API_KEY: KEY, DATA_DIR: dataDir, PUBLIC_BASE_URL: '' });
  try {
    const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
    const workspaces = await (await fetch(`${baseUrl}/api/v1/workspaces`, { headers })).json();
    const checksum = await sha256Of(SIZE);
    const target = await fetch(`${baseUrl}/api/v1/files/upload-url`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ file_name: 'bench.mp4', file_type: 'video/mp4', file_size: SIZE, workspace_id: workspaces.data[0].id, checksum_sha256: checksum }),
    });
    if (target.status !== 200) throw new Error(`upload-url: ${target.status} ${await target.text()}`);
    const upload = await target.json();
    const baseline = rssKiB(child.pid);
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, rssKiB(child.pid))), 50);
    const started = performance.now();
    // node:http with pipe, not fetch: Readable.toWeb reads its source ahead without backpressure, so the
    // bench process would hold the whole body.
    const res = await new Promise((resolve, reject) => {
      // The link is built on PUBLIC_BASE_URL's default (localhost); the server listens on 127.0.0.1.
      const target = new URL(new URL(upload.upload_url).pathname + new URL(upload.upload_url).search, baseUrl);
      const request = httpRequest(target, { method: 'PUT', headers: { ...upload.headers, 'content-length': String(SIZE) } }, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode, text }));
      });
      request.on('error', reject);
      mp4Bytes(SIZE).pipe(request);
    });
    const body = res.text;
    const ms = performance.now() - started;
    clearInterval(sampler);
    if (res.status !== 200) throw new Error(`PUT: ${res.status} ${body}`);
    return { ms, baselineMiB: Math.round(baseline / 1024), peakMiB: Math.round(peak / 1024) };
  } finally {
    await stopProcess(child);
  }
}

const dir = mkdtempSync(join(tmpdir(), 'persona-bench-uploads-'));
try {
  log(`uploads: ${SIZE / 1024 / 1024} MiB each way`);
  const plain = await direct(dir, false);
  const hashed = await direct(dir, true);
  rmSync(join(dir, 'direct-false.bin'));
  rmSync(join(dir, 'direct-true.bin'));
  const server = await throughServer(join(dir, 'api-data'));
  const rows = [
    { target: 'write to a local file directly', mb_per_s: mbPerS(SIZE, plain), seconds: +(plain / 1000).toFixed(2) },
    { target: 'write to a local file directly, with SHA-256', mb_per_s: mbPerS(SIZE, hashed), seconds: +(hashed / 1000).toFixed(2) },
    {
      target: 'PUT /uploads/{key} through the server (local storage)',
      mb_per_s: mbPerS(SIZE, server.ms),
      seconds: +(server.ms / 1000).toFixed(2),
      server_rss_before_mib: server.baselineMiB,
      server_rss_peak_mib: server.peakMiB,
    },
  ];
  if (args.json) console.log(JSON.stringify({ size_bytes: SIZE, rows }, null, 2));
  else {
    console.log(`| target | MB/s | seconds | server RSS before → peak (MiB) |\n| --- | ---: | ---: | ---: |`);
    for (const r of rows)
      console.log(`| ${r.target} | ${r.mb_per_s} | ${r.seconds} | ${r.server_rss_peak_mib ? `${r.server_rss_before_mib} → ${r.server_rss_peak_mib}` : ''} |`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
