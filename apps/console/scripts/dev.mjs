// `pnpm console` — the console's dev server on http://127.0.0.1:5173/console/, its /api proxied to a real
// server (CONSOLE_API_TARGET, default http://127.0.0.1:8080: run `pnpm start` first), or with `--mock` to
// the contract's mock (apps/mock: Prism and its streaming front), started here on a free port.
import { createServer } from 'vite';

if (process.argv.includes('--mock')) {
  const { startMock } = await import('@persona-api/mock');
  const mock = await startMock({ port: 0, logLevel: 'error' });
  process.env.CONSOLE_API_TARGET = mock.url;
  process.env.CONSOLE_MOCK = '1';
  console.log(`mock API on ${mock.url}/api/v1 (sign in with any e-mail and a 12-character password)`);
}
const server = await createServer({ configFile: new URL('../vite.config.ts', import.meta.url).pathname });
await server.listen();
server.printUrls();
