import { defineConfig } from 'vite';

// Served by the API server under /console/ in production; `pnpm console` sets CONSOLE_API_TARGET for the
// dev server's proxy (a real server, or the mock with `--mock`). React's JSX goes through esbuild, so no
// React plugin is needed (no fast refresh, which the console does not need).
const target = process.env.CONSOLE_API_TARGET ?? 'http://127.0.0.1:8080';
const mockSession = process.env.CONSOLE_MOCK === '1';

export default defineConfig({
  base: '/console/',
  esbuild: { jsx: 'automatic' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    target: 'es2022',
    rollupOptions: {
      // TanStack Query marks its hooks "use client" for React Server Components; meaningless in a plain SPA.
      onwarn: (warning, warn) => warning.code !== 'MODULE_LEVEL_DIRECTIVE' && warn(warning),
    },
  },
  server: {
    port: Number(process.env.CONSOLE_PORT ?? 5173),
    strictPort: true,
    proxy: {
      '/api': {
        target,
        changeOrigin: true,
        // The mock keeps no sessions and sets no cookie: the proxy plays the browser's cookie jar, sending
        // a session cookie to the console's operations from a successful sign-in until sign-out.
        ...(mockSession
          ? {
              configure: (proxy) => {
                let signedIn = false;
                proxy.on('proxyReq', (request) => {
                  if (signedIn && request.path.includes('/console/')) request.setHeader('cookie', 'persona_session=mock');
                });
                proxy.on('proxyRes', (response, request) => {
                  const path = request.url ?? '';
                  if (request.method === 'POST' && /\/console\/(session|setup)$/.test(path) && response.statusCode === 200) signedIn = true;
                  if (request.method === 'DELETE' && path.endsWith('/console/session')) signedIn = false;
                });
              },
            }
          : {}),
      },
    },
  },
});
