import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/** apps/console/dist, from apps/api/{src,dist}/resources/console/. */
export const CONSOLE_DIST = fileURLToPath(new URL('../../../../console/dist/', import.meta.url));

/**
 * The console's own pages allow only this origin: scripts and API calls to 'self', inline style
 * attributes (React's `style`), images from 'self' and data URLs; never framed.
 */
const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** Serves the built console at /console/ (index.html for the hash routes). Without a build, nothing is served there. */
export async function serveConsole(app: FastifyInstance, root = CONSOLE_DIST): Promise<boolean> {
  if (!existsSync(`${root}/index.html`)) {
    app.log.info({ root }, 'console not built (pnpm --filter @persona-api/console build): /console is not served');
    return false;
  }
  await app.register(fastifyStatic, {
    root,
    prefix: '/console/',
    index: 'index.html',
    // Hashed asset names never change; index.html must be revalidated so a deploy is picked up.
    setHeaders: (res, path) => {
      res.header('content-security-policy', CONSOLE_CSP);
      res.header('x-content-type-options', 'nosniff');
      res.header('referrer-policy', 'no-referrer');
      res.header('cache-control', path.endsWith('.html') ? 'no-cache' : 'public, max-age=31536000, immutable');
    },
    preCompressed: false,
  });
  app.get('/console', (_request, reply) => reply.redirect('/console/', 301));
  return true;
}
