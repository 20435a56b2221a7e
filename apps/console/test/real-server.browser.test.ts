import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPage, freePort, launchBrowser, openPage } from './support';

// The console against the real API server (PGlite, offline engine), serving the built console at
// /console/. The headline: a new account owner, from the admin CLI's one-time link, signs in, creates a
// key, and a /responses call with that key succeeds — then, revoked in the console, it is refused.

const run = promisify(execFile);
// The project's Node 24 binary itself (not the node_modules/.bin wrapper), so the server can be stopped by PID.
const NODE = fileURLToPath(new URL('../../../node_modules/node/bin/node', import.meta.url));
const API = fileURLToPath(new URL('../../api/dist/', import.meta.url));
const PASSWORD = 'harbor-light-owner-2026';

let dataDir: string;
let server: ChildProcess;
let base: string;
let setupLink: string;
let browser: Browser;
let page: Page;

async function admin(env: NodeJS.ProcessEnv, ...args: string[]): Promise<string> {
  const { stdout } = await run(NODE, [join(API, 'admin/cli.js'), ...args], { env });
  return stdout;
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'persona-console-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const env = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', PUBLIC_BASE_URL: `${base}/api/v1`, LOG_LEVEL: 'warn' };
  // PGlite allows one process per data directory: the operator's CLI runs before the server starts.
  const created = await admin(env, 'accounts', 'create', '--email', 'owner@harborlight.example', '--name', 'Harborlight Coffee', '--credits', '5000');
  const accountId = /^account\s+(acct_\S+)/m.exec(created)?.[1];
  expect(accountId).toBeDefined();
  const invite = await admin(env, 'console', 'invite', accountId!);
  setupLink = /(http\S+#setup=[A-Za-z0-9]+)/.exec(invite)?.[1] ?? '';
  expect(setupLink.startsWith(`${base}/console/#setup=`)).toBe(true);

  server = spawn(NODE, [join(API, 'main.js')], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  server.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const deadline = Date.now() + 60_000;
  while ((await fetch(`${base}/readyz`).catch(() => null))?.status !== 200) {
    if (Date.now() > deadline || server.exitCode !== null) throw new Error(`the server did not become ready:\n${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  browser = await launchBrowser();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  page.setDefaultTimeout(15_000);
});

afterAll(async () => {
  await browser?.close();
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const callResponses = (key: string, personaId: string) =>
  fetch(`${base}/api/v1/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'service-1', persona_id: personaId, input: 'Would you pay $18 per seat for forecasting?' }),
  });

describe('the console on the real server', () => {
  it('serves the console with a strict content security policy', async () => {
    const response = await fetch(`${base}/console/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(await response.text()).toContain('<div id="root">');
  });

  it('takes a new owner from the one-time link to a working key, and revoking it refuses the key', async () => {
    await page.goto(setupLink);
    await page.getByRole('heading', { name: 'Set up your console password' }).waitFor();
    await checkPage(page, 'real-setup');
    await page.getByLabel('New password (12 characters or more)').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    // The token left the address bar.
    expect(page.url()).not.toContain('setup=');

    await page.getByLabel('Name').fill('CI pipeline');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.getByTestId('new-secret').textContent()) ?? '';
    expect(secret).toMatch(/^svc_live_[A-Za-z0-9]{40}$/);
    await checkPage(page, 'real-api-keys');

    // Plain fetch with the key, as curl would: the catalogue, then a persona's answer.
    const personas = await (await fetch(`${base}/api/v1/personas?limit=1`, { headers: { authorization: `Bearer ${secret}` } })).json();
    const personaId = personas.data[0].id as string;
    const answered = await callResponses(secret, personaId);
    expect(answered.status).toBe(200);
    expect((await answered.json()).status).toBe('completed');

    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: 'Revoke CI pipeline' }).click();
    await page.getByRole('cell', { name: /^Revoked / }).waitFor();
    const refused = await callResponses(secret, personaId);
    expect(refused.status).toBe(401);
    expect((await refused.json()).error.code).toBe('invalid_api_key');
  });

  it('streams a playground answer and shows its credits', async () => {
    await openPage(page, 'Playground', 'Playground');
    await page.getByLabel('Persona').locator('option').first().waitFor({ state: 'attached' });
    await page.getByRole('button', { name: 'Send' }).click();
    await expect
      .poll(
        async () =>
          (await page
            .getByTestId('turn-credits')
            .textContent()
            .catch(() => '')) ?? '',
        { timeout: 30_000 },
      )
      .toMatch(/^\d+ credits$/);
    expect((await page.getByTestId('answer').textContent())?.length).toBeGreaterThan(10);
    await checkPage(page, 'real-playground');
  });

  it('shows usage with the balance and a chart per key', async () => {
    await openPage(page, 'Usage', 'Usage and credits');
    await page.getByRole('img', { name: /^Requests per key/ }).waitFor();
    // The playground's answer was charged today, through the Console session key.
    await page.getByRole('img', { name: /^Credits by feature: createResponse \d+/ }).waitFor();
    await page.getByRole('img', { name: /^Credits by key: .*Console session \d+/ }).waitFor();
    expect(await page.getByTestId('balance').textContent()).toMatch(/credits$/);
    await checkPage(page, 'real-usage');
  });

  it('uploads a file with a progress bar and lists it', async () => {
    await openPage(page, 'Files', 'Files');
    const file = join(dataDir, 'pricing-notes.csv');
    writeFileSync(file, `account,region,arr\n${'Northwind Traders,EMEA,184000\n'.repeat(2000)}`);
    await page.getByLabel('Upload a file').setInputFiles(file);
    // The outcome, success or the envelope's message, so a failure says why.
    const outcome = page.locator('[role=status], [role=alert]').filter({ hasText: /Uploaded|upload|file|failed|not/i });
    await expect
      .poll(
        () =>
          outcome
            .first()
            .textContent()
            .catch(() => null),
        { timeout: 30_000 },
      )
      .not.toBeNull();
    expect(await outcome.first().textContent()).toBe('Uploaded pricing-notes.csv.');
    expect(await page.getByRole('progressbar', { name: 'Upload progress' }).getAttribute('aria-valuenow')).toBe('100');
    await page.getByRole('cell', { name: 'pricing-notes.csv' }).waitFor();
    await checkPage(page, 'real-files');
  });

  it('browses the personas with the cost of a custom one shown before paying', async () => {
    await openPage(page, 'Personas', 'Personas');
    await page.locator('.grid .card').first().waitFor();
    await page.getByLabel('Describe who they are').fill('A CFO of a 200-person SaaS company who watches every seat price.');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByText('Creating this persona costs 300 credits').waitFor();
    await checkPage(page, 'real-personas');
  });

  it('shows what to do on an empty results page', async () => {
    await openPage(page, 'Results', 'Results');
    await page.getByText('No video analyses yet').waitFor();
    await page.getByText('No meetings yet').waitFor();
    await checkPage(page, 'real-results-empty');
  });

  it('signs out: the session and its browser key end', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    await checkPage(page, 'real-sign-in');
    const session = await page.evaluate(async () => (await fetch('/api/v1/console/session')).status);
    expect(session).toBe(401);
    // Signing back in with the password chosen from the link works.
    await page.getByLabel('E-mail').fill('owner@harborlight.example');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Back on the page it was on (the hash route), signed in again.
    await page.getByRole('heading', { level: 1, name: 'Results' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  });
});
