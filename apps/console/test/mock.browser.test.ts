import { type RunningMock, startMock } from '@persona-api/mock';
import type { Browser, Page } from 'playwright-core';
import { type PreviewServer, preview } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPage, freePort, launchBrowser, openPage, sendPlaygroundTurn } from './support';

// The built console against the contract's mock (apps/mock: Prism with its streaming front), as a
// frontend developer runs it with `pnpm console --mock`: every page renders the spec's examples, the
// playground streams, and the results pages draw their charts. Proves the mock serves a real frontend.

let mock: RunningMock;
let server: PreviewServer;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  mock = await startMock({ port: 0, logLevel: 'error', streamDelayMs: 5 });
  process.env.CONSOLE_API_TARGET = mock.url;
  process.env.CONSOLE_MOCK = '1';
  server = await preview({
    configFile: new URL('../vite.config.ts', import.meta.url).pathname,
    preview: { port: await freePort(), host: '127.0.0.1', strictPort: true },
  });
  browser = await launchBrowser();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  page.setDefaultTimeout(15_000);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await mock?.close();
});

describe('the console on the mock', () => {
  it('signs in and lists the example API keys', async () => {
    await page.goto(`${server.resolvedUrls?.local[0]}`);
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    await page.getByLabel('E-mail').fill('maya.chen@harborlight.example');
    await page.getByLabel('Password').fill('any-password-will-do');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await page.getByRole('cell', { name: 'Production backend' }).first().waitFor();
    await checkPage(page, 'mock-api-keys');
  });

  it('shows usage charts from the example usage', async () => {
    await openPage(page, 'Usage', 'Usage and credits');
    await page.getByRole('img', { name: /^Requests per key/ }).waitFor();
    await page.getByRole('img', { name: /^Credits by day/ }).waitFor();
    await checkPage(page, 'mock-usage');
  });

  it('streams the example answer in the playground', async () => {
    await sendPlaygroundTurn(page, /credits$/, 20_000);
    expect((await page.getByTestId('answer').textContent())?.length).toBeGreaterThan(10);
    // The example count of POST /responses/input_tokens, shown before the next message is sent.
    await expect.poll(async () => page.getByTestId('input-cost').textContent()).toContain('1,342 input tokens');
    await checkPage(page, 'mock-playground');
  });

  it('draws a video analysis: emotional arc, brand timeline and scores', async () => {
    await openPage(page, 'Results', 'Results');
    const video = page.getByRole('region', { name: 'Video analysis' });
    await video.getByLabel('Analysis').locator('option').nth(1).waitFor({ state: 'attached' });
    const completed = await video.getByLabel('Analysis').locator('option').nth(2).getAttribute('value');
    await video.getByLabel('Analysis').selectOption(completed!);
    await video.getByRole('img', { name: /^Emotional arc/ }).waitFor();
    await video.getByRole('img', { name: /^Brand on screen/ }).waitFor();
    await video.getByRole('img', { name: /^Scores/ }).waitFor();
    // The example's chunks carry a frame_url (a small data: JPEG, the mock serves no images): each is drawn.
    const frames = video.getByRole('img', { name: /^Frame at / });
    await frames.first().waitFor();
    expect(await frames.count()).toBe(await video.locator('ol li').count());
    await page.waitForFunction(() => [...document.querySelectorAll('ol li img')].every((img) => (img as HTMLImageElement).complete));
    for (const width of await frames.evaluateAll((images) => images.map((img) => (img as HTMLImageElement).naturalWidth))) expect(width).toBeGreaterThan(0);
    await checkPage(page, 'mock-video-analysis');
  });

  it('draws a meeting: talk ratio, action items, and schema quotes that jump to the transcript', async () => {
    const meeting = page.getByRole('region', { name: 'Meeting' });
    const done = meeting.getByLabel('Meeting').locator('option', { hasText: '(done)' });
    await done.waitFor({ state: 'attached' });
    await meeting.getByLabel('Meeting').selectOption((await done.getAttribute('value'))!);
    await meeting.getByRole('img', { name: /^Talk ratio/ }).waitFor();
    await meeting.getByRole('heading', { name: 'Action items' }).waitFor();
    const quote = meeting.getByRole('button', { name: /^“/ }).first();
    await quote.click();
    await meeting.locator('.transcript li.highlight').waitFor();
    await checkPage(page, 'mock-meeting');
  });

  it('shows the other pages: personas, files, a focus group side by side', async () => {
    const focus = page.getByRole('region', { name: 'Focus group' });
    const first = focus.getByLabel('Focus group').locator('option').nth(1);
    await first.waitFor({ state: 'attached' });
    await focus.getByLabel('Focus group').selectOption((await first.getAttribute('value'))!);
    await focus.locator('.card').first().waitFor();
    await checkPage(page, 'mock-focus-group');
    await openPage(page, 'Personas', 'Personas');
    await page.locator('.grid .card').first().waitFor();
    await checkPage(page, 'mock-personas');
    await openPage(page, 'Files', 'Files');
    await page.locator('table').waitFor();
    await checkPage(page, 'mock-files');
    await openPage(page, 'Logs', 'Chat completion logs');
    await page.getByRole('table').locator('tbody tr').first().getByRole('button').click();
    await page.getByRole('list', { name: 'Messages' }).getByText('Keep answers under 120 words.').waitFor();
    await checkPage(page, 'mock-logs');
  });
});
