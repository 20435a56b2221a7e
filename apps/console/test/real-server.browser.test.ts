import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { checkPage, freePort, launchBrowser, openPage, sendPlaygroundTurn } from './support';

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
// The account's default workspace and key from `accounts create`: the results are made with them, as a customer's code would.
let workspaceId: string;
let apiKey: string;
let browser: Browser;
let page: Page;
let serverLog = '';

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
  workspaceId = /^workspace\s+(\S+)/m.exec(created)?.[1] ?? '';
  apiKey = /^\s+(svc_live_\S+)/m.exec(created)?.[1] ?? '';
  expect(apiKey).not.toBe('');
  const invite = await admin(env, 'console', 'invite', accountId!);
  setupLink = /(http\S+#setup=[A-Za-z0-9]+)/.exec(invite)?.[1] ?? '';
  expect(setupLink.startsWith(`${base}/console/#setup=`)).toBe(true);

  server = spawn(NODE, [join(API, 'main.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  server.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  // Its warnings and errors (LOG_LEVEL warn), the latest kept, for a test that fails to say what the server saw.
  server.stdout?.on('data', (chunk) => {
    serverLog = `${serverLog}${chunk}`.slice(-20_000);
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
    await sendPlaygroundTurn(page, /^\d+ credits$/, 30_000);
    expect((await page.getByTestId('answer').textContent())?.length).toBeGreaterThan(10);
    await checkPage(page, 'real-playground');
  });

  it('continues the playground conversation on the server: the persona recalls an earlier turn, and a new conversation forgets it', async () => {
    await openPage(page, 'Playground', 'Playground');
    await page.getByLabel('Persona').locator('option').first().waitFor({ state: 'attached' });
    // The last test's turn is still on the page: start afresh.
    await page.getByRole('button', { name: 'New conversation' }).click();
    await expect.poll(async () => page.getByTestId('answer').count()).toBe(0);
    const ask = async (question: string, turns: number) => {
      await page.getByLabel('Message').fill(question);
      await page.getByRole('button', { name: 'Send' }).click();
      await expect.poll(async () => page.getByTestId('turn-credits').count(), { timeout: 30_000 }).toBe(turns);
      return (
        (await page
          .getByTestId('answer')
          .nth(turns - 1)
          .textContent()) ?? ''
      );
    };
    // The cost of the next message is shown before it is sent, the conversation it continues included.
    const cost = async (pattern: RegExp) => {
      await expect
        .poll(
          async () =>
            (await page
              .getByTestId('input-cost')
              .textContent()
              .catch(() => '')) ?? '',
          { timeout: 10_000 },
        )
        .toMatch(pattern);
      return Number(/^([\d,]+) input tokens/.exec((await page.getByTestId('input-cost').textContent()) ?? '')![1]!.replace(/,/g, ''));
    };
    await page.getByLabel('Message').fill('Our pilot budget is 20,000 dollars.');
    const alone = await cost(/^[\d,]+ input tokens: at least \d+ credits, plus the answer\.$/);
    await ask('Our pilot budget is 20,000 dollars.', 1);
    await page.getByLabel('Message').fill('What is my pilot budget?');
    expect(await cost(/with the conversation so far/)).toBeGreaterThan(alone);
    expect(await ask('What is my pilot budget?', 2)).toBe('You said: “Our pilot budget is 20,000 dollars.”');
    await page.getByRole('button', { name: 'New conversation' }).click();
    expect(await ask('What is my pilot budget?', 1)).not.toContain('20,000');
    await checkPage(page, 'real-playground-conversation');
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
    // Requests the page sent and had no answer to, for a failure to name where the upload stopped.
    const pending = new Set<string>();
    const nameOf = (request: Request) => `${request.method()} ${request.url()}`;
    const sent = (request: Request) => pending.add(nameOf(request));
    const ended = (request: Request) => pending.delete(nameOf(request));
    page.on('request', sent).on('requestfinished', ended).on('requestfailed', ended);
    onTestFinished(() => void page.off('request', sent).off('requestfinished', ended).off('requestfailed', ended));
    // The input is enabled once the workspaces have loaded (the upload needs one). Playwright sets files on
    // a disabled input too, and its change would find no workspace: wait, as a user would have to.
    await expect.poll(() => page.getByLabel('Upload a file').isEnabled(), { timeout: 30_000 }).toBe(true);
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
        { timeout: 30_000, message: 'no upload outcome' },
      )
      .not.toBeNull()
      .catch((error: unknown) => {
        throw new Error(`${String(error)}\nunanswered: ${[...pending].join(', ') || 'none'}\nserver log:\n${serverLog || '(empty)'}`);
      });
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

  it('lists the account’s chat completions latest first, filters them by metadata, shows one’s messages and answer, and deletes it', async () => {
    const personas = await (await fetch(`${base}/api/v1/personas?limit=1`, { headers: { authorization: `Bearer ${apiKey}` } })).json();
    const complete = async (content: string, metadata?: Record<string, string>) => {
      const response = await fetch(`${base}/api/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'service-1', persona_id: personas.data[0].id, messages: [{ role: 'user', content }], metadata }),
      });
      expect(response.status).toBe(200);
      return (await response.json()) as { id: string; choices: { message: { content: string } }[] };
    };
    const spring = await complete('Would you switch suppliers for 5% off?', { campaign: 'spring' });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const plain = await complete('What would make you trust a new roaster?');

    await openPage(page, 'Logs', 'Chat completion logs');
    const rows = page.getByRole('table').locator('tbody tr');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(2);
    // Latest first.
    expect(await rows.first().textContent()).toContain(plain.choices[0]!.message.content.slice(0, 40));
    await page.getByLabel('Metadata').fill('campaign=spring');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByRole('cell', { name: 'campaign=spring' }).waitFor();
    await expect.poll(() => rows.count()).toBe(1);

    await rows.first().getByRole('button').click();
    await page.getByRole('heading', { name: spring.id }).waitFor();
    await page.getByRole('list', { name: 'Messages' }).getByText('Would you switch suppliers for 5% off?').waitFor();
    expect(await page.getByTestId('completion-answer').textContent()).toContain(spring.choices[0]!.message.content.slice(0, 40));
    await checkPage(page, 'real-logs');

    await page.getByRole('button', { name: 'Delete…' }).click();
    await page.getByRole('button', { name: 'Delete for good' }).click();
    await page.getByText('No chat completion has campaign=spring.').waitFor();
    const gone = await fetch(`${base}/api/v1/chat/completions/${spring.id}`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(gone.status).toBe(404);
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

// Results made for real through the API on the offline engine, then drawn by the console: the charts must
// agree with the API's own numbers (the mock's examples cannot catch a page that only works on them).
describe('results from the real server, drawn', () => {
  const FIXTURES = fileURLToPath(new URL('../../api/test/resources/meetings/fixtures/', import.meta.url));
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await response.json();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  /** The customer's upload: upload-url → PUT → POST /files. */
  const upload = async (name: string, type: string, bytes: Buffer): Promise<string> => {
    const target = await call('POST', '/files/upload-url', { file_name: name, file_type: type, file_size: bytes.length, workspace_id: workspaceId });
    const put = await fetch(target.upload_url, { method: 'PUT', headers: target.headers, body: new Uint8Array(bytes) });
    expect(put.status, await put.text()).toBeLessThan(300);
    return (await call('POST', '/files', target.next_step.body)).id;
  };
  const until = async <T>(read: () => Promise<T>, settled: (value: T) => boolean): Promise<T> => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const value = await read();
      if (settled(value)) return value;
      if (Date.now() > deadline) throw new Error(`not settled: ${JSON.stringify(value)}`);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  };
  const showResults = async () => {
    // A fresh load, so the pickers list what was just made.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Results' }).waitFor();
  };

  it('draws a real meeting: speakers and times, talk ratio as measured, action items, schema quotes that jump', async () => {
    const fileId = await upload('bant-discovery.vtt', 'text/vtt', readFileSync(join(FIXTURES, 'bant-discovery.vtt')));
    const created = await call('POST', '/meetings', {
      workspace_id: workspaceId,
      transcript_file_id: fileId,
      title: 'Discovery with Marcus',
      schema_ids: ['msch_bantBuiltin'],
    });
    const done = await until(
      () => call('GET', `/meetings/${created.id}`),
      (meeting) => meeting.status === 'done' && meeting.schema_runs.every((run: { status: string }) => !['pending', 'processing'].includes(run.status)),
    );
    expect(done.schema_runs.map((run: { status: string }) => run.status)).toEqual(['completed']);
    const transcript = await call('GET', `/meetings/${created.id}/transcript`);
    const analysis = await call('GET', `/meetings/${created.id}/analysis`);
    const schemaResults = (await call('GET', `/meetings/${created.id}/schema-results`)).data;
    const evidence = schemaResults.flatMap((result: { evidence: { timestamp_start: number; text: string }[] }) => result.evidence);
    expect(evidence.length).toBeGreaterThan(0);

    await showResults();
    const meeting = page.getByRole('region', { name: 'Meeting' });
    await meeting.getByLabel('Meeting').selectOption(created.id);
    // The talk ratio in the chart is the API's, rounded to whole percents, for every speaker.
    const ratio = meeting.getByRole('img', { name: /^Talk ratio/ });
    const expectedRatio = analysis.talk_ratio
      .map((speaker: { speaker: string; ratio: number }) => `${speaker.speaker} ${Math.round(speaker.ratio * 100)}%`)
      .join(', ');
    expect(await ratio.getAttribute('aria-label')).toBe(`Talk ratio: ${expectedRatio}`);
    expect(await ratio.locator('rect').count()).toBe(analysis.talk_ratio.length);
    // The transcript: every segment with its speaker and its start time.
    const segments = meeting.locator('.transcript li');
    await expect.poll(() => segments.count()).toBe(transcript.segments.length);
    const last = transcript.segments.at(-1);
    const clock = (seconds: number) => `${Math.floor(seconds / 60)}:${String(Math.floor(seconds % 60)).padStart(2, '0')}`;
    expect(await segments.last().textContent()).toBe(`${clock(last.start)} ${last.speaker}: ${last.text}`);
    // Action items as the analysis lists them.
    expect(analysis.action_items.length).toBeGreaterThan(0);
    const actionItems = meeting.locator('h3:text-is("Action items") + ul > li');
    expect(await actionItems.allTextContents()).toEqual(
      analysis.action_items.map((item: { text: string; owner: string | null }) => (item.owner ? `${item.text} — ${item.owner}` : `${item.text} `)),
    );
    // The schema's extracted fields, one row each; the text ones as the API has them.
    const [bant] = schemaResults;
    const table = meeting.getByRole('table', { name: 'What the schema extracted' });
    expect(await table.locator('tbody tr').count()).toBe(bant.field_values.length);
    for (const field of bant.field_values) {
      const row = table.getByRole('row', { name: new RegExp(`^${field.field_label}`) });
      if (typeof field.value === 'string') expect(await row.locator('td').first().textContent()).toBe(field.value);
      if (field.value === null) expect(await row.locator('td').first().textContent()).toBe('not found');
    }
    await meeting.getByText(`(overall score ${bant.overall_score})`).waitFor();
    // A schema quote jumps to the segment it was said in: that one is highlighted and in view.
    const quote = evidence.at(-1)!;
    const spoken = transcript.segments.findLast((segment: { start: number }) => segment.start <= quote.timestamp_start + 0.001);
    await meeting.getByRole('button', { name: `“${quote.text}” (${clock(quote.timestamp_start)})` }).click();
    const highlighted = meeting.locator('.transcript li.highlight');
    await highlighted.waitFor();
    expect(await highlighted.getAttribute('id')).toBe(`segment-${spoken.id}`);
    await expect
      .poll(() =>
        highlighted.evaluate((element) => {
          const box = element.getBoundingClientRect();
          return box.top >= 0 && box.bottom <= window.innerHeight;
        }),
      )
      .toBe(true);
    await checkPage(page, 'real-meeting');
  });

  it('draws a real focus group: every persona’s answer side by side with its sentiment', async () => {
    const personas = (await call('GET', '/personas?limit=3')).data;
    const group = await call('POST', '/focus-groups', {
      question: 'Would you switch forecasting tools for a 20% lower seat price?',
      persona_ids: personas.map((persona: { id: string }) => persona.id),
      workspace_id: workspaceId,
    });
    expect(group.status).toBe('completed');
    await showResults();
    const focus = page.getByRole('region', { name: 'Focus group' });
    await focus.getByLabel('Focus group').selectOption(group.id);
    // The summary: the consensus, and the sentiment breakdown as a chart with the API's counts.
    await focus.getByText(group.summary.consensus).waitFor();
    const { positive, neutral, negative, mixed } = group.summary.sentiment_breakdown;
    expect(await focus.getByRole('img', { name: /^Sentiment of the answers/ }).getAttribute('aria-label')).toBe(
      `Sentiment of the answers: positive ${positive}, neutral ${neutral}, negative ${negative}, mixed ${mixed}`,
    );
    expect(positive + neutral + negative + mixed).toBe(group.answers.length);
    const cards = focus.locator('li.card');
    await expect.poll(() => cards.count()).toBe(group.answers.length);
    for (const [index, answer] of group.answers.entries()) {
      const card = cards.nth(index);
      expect(await card.getByRole('heading').textContent()).toBe(answer.persona.name);
      expect(await card.textContent()).toContain(`Sentiment: ${answer.sentiment}`);
      expect(await card.textContent()).toContain(answer.answer.slice(0, 60));
      if (answer.key_points.length > 0)
        expect(
          await card
            .getByRole('list', { name: `Key points of ${answer.persona.name}` })
            .locator('li')
            .count(),
        ).toBe(answer.key_points.length);
    }
    await checkPage(page, 'real-focus-group');
  });

  it('draws a real video analysis: an arc point per chunk, the brand timeline, the scores, the chunks', async () => {
    // 15 s in three 5 s segments (the brand's name on the second), small and at 5 fps so it renders in a moment.
    const video = join(dataDir, 'stride-spot.mp4');
    const segment = (color: string, text: string) =>
      `color=c=${color}:size=320x180:rate=5:duration=5,drawtext=text='${text}':fontsize=28:fontcolor=white:x=(w-tw)/2:y=(h-th)/2`;
    await run('ffmpeg', [
      '-hide_banner',
      '-v',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      segment('black', 'MORNING'),
      '-f',
      'lavfi',
      '-i',
      segment('navy', 'STRIDE ATHLETICS'),
      '-f',
      'lavfi',
      '-i',
      segment('darkgreen', 'RUN FURTHER'),
      '-filter_complex',
      '[0:v][1:v][2:v]concat=n=3:v=1:a=0[v]',
      '-map',
      '[v]',
      '-pix_fmt',
      'yuv420p',
      video,
    ]);
    const fileId = await upload('stride-spot.mp4', 'video/mp4', readFileSync(video));
    const created = await call('POST', '/video-analyses', {
      file_id: fileId,
      title: 'Stride spot',
      brand: 'Stride Athletics',
      product: 'Trail shoes',
      primary_intent: 'awareness',
      goal: 'Drive trial sign-ups',
      chunk_duration: 5,
      frames_per_chunk: 1,
      workspace_id: workspaceId,
    });
    const analysis = await until(
      () => call('GET', `/video-analyses/${created.id}`),
      (value) => value.status === 'completed' || value.status === 'failed',
    );
    expect(analysis.status, JSON.stringify(analysis.error ?? null)).toBe('completed');
    const chunks = analysis.result.chunks;
    expect(chunks.length).toBeGreaterThan(1);

    await showResults();
    const view = page.getByRole('region', { name: 'Video analysis' });
    await view.getByLabel('Analysis').selectOption(created.id);
    // The arc: one path vertex and one dot per chunk, the valence of each in the text alternative.
    const arc = view.getByRole('img', { name: /^Emotional arc/ });
    await arc.waitFor();
    const path = (await arc.locator('path').getAttribute('d')) ?? '';
    expect(path.match(/[ML]/g)?.length).toBe(chunks.length);
    expect(await arc.locator('circle').count()).toBe(chunks.length);
    // Each point sits at its chunk's middle on an axis as long as the video (the plot spans x 30 to 510).
    const videoEnd = chunks.at(-1).end_seconds;
    const xs = await arc.locator('circle').evaluateAll((circles) => circles.map((circle) => Number(circle.getAttribute('cx'))));
    chunks.forEach((chunk: { start_seconds: number; end_seconds: number }, index: number) =>
      expect(xs[index]).toBeCloseTo(30 + ((chunk.start_seconds + chunk.end_seconds) / 2 / videoEnd) * 480, 0),
    );
    for (const chunk of chunks) expect(await arc.getAttribute('aria-label')).toContain(chunk.valence.toFixed(2));
    // The brand timeline marks exactly the chunks the brand was seen in.
    const brand = view.getByRole('img', { name: /^Brand on screen/ });
    const seen = chunks.filter((chunk: { brand_visible: boolean }) => chunk.brand_visible).length;
    expect(await brand.locator('rect').count()).toBe(1 + seen);
    const scores = view.getByRole('img', { name: /^Scores/ });
    expect(await scores.locator('rect').count()).toBe(Object.keys(analysis.result.scores).length);
    expect(await view.locator('ol li').count()).toBe(chunks.length);
    // Each chunk shows its stored frame: the signed frame_url loaded as a real image (a refused link leaves naturalWidth 0).
    const frames = view.locator('ol li img');
    expect(await frames.count()).toBe(chunks.length);
    await page.waitForFunction(() => [...document.querySelectorAll('ol li img')].every((img) => (img as HTMLImageElement).complete));
    for (const [index, chunk] of (chunks as { frame_url: string }[]).entries()) {
      const frame = frames.nth(index);
      expect(new URL((await frame.getAttribute('src'))!).pathname).toBe(new URL(chunk.frame_url).pathname);
      expect(await frame.getAttribute('alt')).toMatch(/^Frame at /);
      expect(await frame.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
    }
    await view.getByText(`Overall score ${analysis.result.overall_score}.`).waitFor();
    await checkPage(page, 'real-video-analysis');
  });
});
