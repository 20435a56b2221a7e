// Opens the built reference from disk in headless Chromium (the Debian package, never a downloaded
// browser) with every non-file request blocked and recorded, and checks what a reader sees.
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { listOperations, type OpenApiDocument } from '@persona-api/openapi/document';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const docsDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const htmlPath = join(docsDir, 'dist', 'index.html');
const resultsDir = join(docsDir, 'test-results');
const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const VIEWPORT = { width: 1400, height: 900 };

// The docs-only copy of the bundle the page was built from (code samples and decisions included).
const spec = JSON.parse(readFileSync(join(docsDir, 'dist', 'openapi.json'), 'utf8')) as OpenApiDocument;
const operations = listOperations(spec).map(({ method, path, operation }) => ({
  name: `${method.toUpperCase()} ${path}`,
  summary: operation.summary ?? '',
  tag: operation.tags?.[0] ?? '',
}));
const decisionsTag = spec.tags?.find((tag) => (tag as { 'x-traitTag'?: boolean })['x-traitTag']);

let browser: Browser;
let page: Page;
const externalRequests: string[] = [];

const menuGroup = (name: string) => page.locator('.menu-item-type-group > a').filter({ has: page.locator(`[data-text="${name}"]`) });
const menuOperation = (summary: string) =>
  page
    .locator('.menu-item-type-operation')
    .filter({ has: page.getByText(summary, { exact: true }) })
    .first();
const heading = (text: string) =>
  page
    .locator('h2')
    .filter({ hasText: new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) })
    .first();

/**
 * Redoc scrolls the chosen section to the top of the page. It renders sections above it lazily, so on a
 * loaded machine the heading can pass through the lower half before the layout settles: wait for it to
 * arrive in the upper half rather than reading it once.
 */
async function expectScrolledTo(text: string): Promise<void> {
  await heading(text).waitFor({ state: 'visible', timeout: 5000 });
  await expect
    .poll(() => heading(text).evaluate((element) => Math.round(element.getBoundingClientRect().top)), { timeout: 5000 })
    .toSatisfy((top: number) => top >= 0 && top < VIEWPORT.height / 2);
}

/** Chooses an operation in the side menu (opening its tag first) and waits for its section. */
async function openOperation(operation: (typeof operations)[number]): Promise<void> {
  if (!(await menuOperation(operation.summary).isVisible())) await menuGroup(operation.tag).click({ timeout: 5000 });
  await menuOperation(operation.summary).click({ timeout: 5000 });
  await expectScrolledTo(operation.summary);
}

beforeAll(async () => {
  expect(existsSync(htmlPath), `${htmlPath} is built by \`pnpm docs\``).toBe(true);
  mkdirSync(resultsDir, { recursive: true });
  expect(existsSync(executablePath), `no Chromium at ${executablePath}: apt-get install -y chromium, or set CHROMIUM_PATH`).toBe(true);
  browser = await chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  const context = await browser.newContext({ viewport: VIEWPORT });
  // The page must work offline: anything that is not the file itself is refused and recorded.
  await context.route('**/*', async (route) => {
    const url = route.request().url();
    if (url.startsWith('file:')) return route.continue();
    externalRequests.push(url);
    return route.abort('blockedbyclient');
  });
  page = await context.newPage();
  await page.goto(pathToFileURL(htmlPath).href, { waitUntil: 'load' });
  // Server-rendered HTML is there at once; clicks work once React has hydrated it.
  await page.waitForFunction(() =>
    [...document.querySelectorAll('#redoc *')].some((element) => Object.keys(element).some((key) => key.startsWith('__reactFiber'))),
  );
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

describe('the reference page, opened from disk without network', () => {
  it('shows the API title', async () => {
    expect(await page.title()).toBe(`${spec.info.title} reference`);
    await expect.poll(() => page.locator('h1').first().textContent()).toContain(spec.info.title);
  });

  it.each(operations.map((operation) => [operation.name, operation] as const))(
    '%s: the menu lists its summary, and choosing it shows its section headed by the summary',
    async (_name, operation) => {
      await openOperation(operation);
    },
  );

  it('shows the code samples: curl, and TypeScript with @persona-api/client', async () => {
    const operation = operations.find(({ name }) => name.startsWith('POST '))!;
    await openOperation(operation);
    const sample = page.locator('[data-testid="source-code"]').first();
    await expect.poll(() => sample.textContent()).toContain(`curl -X POST '${spec.servers?.[0]?.url}`);
    // The visible tabs, chosen by a DOM click event: Redoc also renders other operations' samples, and while it
    // lays out sections lazily on a loaded machine a pointer click can find its tab "outside of the viewport"
    // after every scroll (CI, twice).
    await page.getByText('curl', { exact: true }).filter({ visible: true }).first().dispatchEvent('click', undefined, { timeout: 5000 });
    await page.getByText('TypeScript', { exact: true }).filter({ visible: true }).first().dispatchEvent('click', undefined, { timeout: 5000 });
    await expect.poll(() => sample.textContent()).toContain(`persona.POST('${operation.name.slice(5)}'`);
    await page.screenshot({ path: join(resultsDir, 'docs-operation.png') });
  });

  it('has the design decisions (openapi/DECISIONS.md) in the menu', async () => {
    expect(decisionsTag).toBeDefined();
    await menuGroup(decisionsTag!.name).click();
    await expectScrolledTo(decisionsTag!.name);
    const firstDecision = readFileSync(join(docsDir, '..', '..', 'openapi', 'DECISIONS.md'), 'utf8')
      .split('\n')
      .find((line) => line.startsWith('- **'))!
      .replace(/^- \*\*(.+?)\*\*.*$/, '$1')
      .replace(/`/g, '');
    await expect(page.getByText(firstDecision, { exact: false }).first().isVisible()).resolves.toBe(true);
  });

  it('saves a screenshot', async () => {
    const screenshot = join(resultsDir, 'docs.png');
    await page.screenshot({ path: screenshot });
    expect(statSync(screenshot).size).toBeGreaterThan(10_000);
  });

  it('made no request outside the file (no CDN script, font, image or telemetry)', async () => {
    await page.close({ runBeforeUnload: true }); // lets anything queued for "page hide" try to go out
    expect(externalRequests).toEqual([]);
  });
});
