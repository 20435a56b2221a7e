import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A dependency loaded at its first use rather than when the server starts, for one that only some requests
 * or jobs need (bench/README.md, Cold start). `require` loads ES modules too on Node 24, so the code using it
 * stays synchronous.
 *
 *     const feeds = loadedOnFirstUse<typeof import('feedsmith')>('feedsmith');
 *     feeds().parseFeed(text);
 */
export function loadedOnFirstUse<Module>(specifier: string): () => Module {
  let loaded: Module | undefined;
  return () => {
    loaded ??= require(specifier) as Module;
    return loaded;
  };
}
