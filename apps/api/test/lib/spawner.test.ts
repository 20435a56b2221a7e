import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseDocumentBounded } from '../../src/ai/document-parse.js';
import { runCommand, spawnHostPid } from '../../src/lib/spawner.js';
import { pdfStreamBomb } from '../security/bombs.js';

/** Live processes whose parent is `pid` (Linux /proc). */
async function childrenOf(pid: number): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const status = await readFile(`/proc/${entry}/status`, 'utf8').catch(() => '');
    if (new RegExp(`^PPid:\\s+${pid}$`, 'm').test(status) && !/^State:\s+Z/m.test(status)) found.push(Number(entry));
  }
  return found;
}

const alive = async (pid: number) => /^State:\s+[^Z]/m.test(await readFile(`/proc/${pid}/status`, 'utf8').catch(() => ''));

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200 && !(await check()); i += 1) await new Promise((resolve) => setTimeout(resolve, 25));
  expect(await check()).toBe(true);
}

describe('the process host', () => {
  it('starts document parsers, not the server; a cancelled parse kills its worker; a host that dies fails what waits on it', async () => {
    expect((await parseDocumentBounded('text', new TextEncoder().encode('hello'), 100)).ok).toBe(true);
    const hostPid = spawnHostPid()!;
    expect(hostPid).toBeGreaterThan(0);
    expect(hostPid).not.toBe(process.pid);

    const controller = new AbortController();
    const pending = parseDocumentBounded('pdf', pdfStreamBomb(256), 1000, controller.signal);
    await waitFor(async () => (await childrenOf(hostPid)).length === 1);
    const [worker] = await childrenOf(hostPid);
    expect(await childrenOf(process.pid)).not.toContain(worker);
    controller.abort();
    expect(await pending).toEqual({ ok: false, error: 'Reading the PDF document was cancelled.' });
    await waitFor(async () => !(await alive(worker!)));

    // The same host serves the next document.
    expect((await parseDocumentBounded('markdown', new TextEncoder().encode('# Title'), 100)).ok).toBe(true);
    expect(spawnHostPid()).toBe(hostPid);

    // The host dies: the parse fails (nothing hangs), its worker ends itself, the next parse starts a new host.
    const orphaned = parseDocumentBounded('pdf', pdfStreamBomb(256), 1000);
    await waitFor(async () => (await childrenOf(hostPid)).length === 1);
    const [unwatched] = await childrenOf(hostPid);
    process.kill(hostPid, 'SIGKILL');
    expect(await orphaned).toEqual({ ok: false, error: 'The PDF document could not be parsed.' });
    await waitFor(async () => !(await alive(unwatched!)));
    expect(await parseDocumentBounded('text', new TextEncoder().encode('again'), 100)).toEqual({ ok: true, text: 'again', title: null });
    expect(spawnHostPid()).not.toBe(hostPid);
  });

  it('runs commands: exit code, stdout collected or streamed, stderr, a timeout, a signal, a command that cannot start', async () => {
    expect(await runCommand('sh', ['-c', 'printf out; printf err >&2; exit 3'])).toEqual({ code: 3, signal: null, stdout: 'out', stderr: 'err' });
    const streamed: string[] = [];
    const result = await runCommand('sh', ['-c', 'echo one; sleep 0.05; echo two'], { onStdout: (text) => streamed.push(text) });
    expect(result).toMatchObject({ code: 0, stdout: '' });
    expect(streamed.join('')).toBe('one\ntwo\n');
    expect(await runCommand('sleep', ['5'], { timeoutMs: 100 })).toMatchObject({ code: null, signal: 'SIGKILL' });
    await expect(runCommand('/nonexistent/ffmpeg', [])).rejects.toMatchObject({ code: 'ENOENT' });

    // An aborted command is killed, and the call rejects as spawn's does.
    const hostPid = spawnHostPid()!;
    const controller = new AbortController();
    const sleeping = runCommand('sleep', ['30'], { signal: controller.signal });
    await waitFor(async () => (await childrenOf(hostPid)).length === 1);
    const [child] = await childrenOf(hostPid);
    expect(await childrenOf(process.pid)).not.toContain(child);
    controller.abort();
    await expect(sleeping).rejects.toMatchObject({ name: 'AbortError' });
    await waitFor(async () => !(await alive(child!)));
  });

  it('is the only way the server starts a process: no other source imports node:child_process', async () => {
    const src = fileURLToPath(new URL('../../src', import.meta.url));
    const importers: string[] = [];
    for (const entry of await readdir(src, { recursive: true })) {
      if (!entry.endsWith('.ts')) continue;
      const text = await readFile(join(src, entry), 'utf8');
      if (/from ['"](node:)?child_process['"]|require\(['"](node:)?child_process['"]\)/.test(text)) importers.push(relative(src, join(src, entry)));
    }
    expect(importers.sort()).toEqual(['lib/spawn-host.ts', 'lib/spawner.ts']);
  });
});
