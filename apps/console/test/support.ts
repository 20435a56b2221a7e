import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import AxeBuilder from '@axe-core/playwright';
import { type Browser, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';

export const SCREENSHOTS = fileURLToPath(new URL('../test-results/screenshots/', import.meta.url));
const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Debian's Chromium, never a downloaded browser. */
export async function launchBrowser(): Promise<Browser> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** No serious or critical accessibility violation on the page as it is now; then a screenshot. */
export async function checkPage(page: Page, name: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const bad = results.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  expect(
    bad.map((violation) => `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`),
    name,
  ).toEqual([]);
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });
}

/** Opens a page of the console's navigation and waits for its heading. */
export async function openPage(page: Page, link: string, heading: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: link, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

/** Sends the playground's first persona a turn; the text of the turn's credits line, polled until it matches `credits`. */
export async function sendPlaygroundTurn(page: Page, credits: RegExp, timeout: number): Promise<void> {
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
      { timeout },
    )
    .toMatch(credits);
}
