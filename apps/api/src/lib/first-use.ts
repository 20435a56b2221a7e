import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** `make`'s result, made at the first call and kept. */
export function onFirstUse<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => {
    made ??= { value: make() };
    return made.value;
  };
}

/**
 * A dependency loaded at its first use rather than when the server starts, for one that only some requests
 * or jobs need (bench/README.md, Cold start). `require` loads ES modules too on Node 24, so the code using it
 * stays synchronous.
 *
 *     const feeds = loadedOnFirstUse<typeof import('feedsmith')>('feedsmith');
 *     feeds().parseFeed(text);
 */
export function loadedOnFirstUse<Module>(specifier: string): () => Module {
  return onFirstUse(() => require(specifier) as Module);
}
