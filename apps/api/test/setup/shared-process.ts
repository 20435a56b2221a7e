import { afterAll } from 'vitest';

// A file that leaves an enumerable member on a built-in prototype changes every later file's objects when
// files share a worker's process (vitest.config.ts, `isolate: false`): drizzle-kit/api's
// `Array.prototype.random` gave fast-json-stringify arrays with holes, and lists answered 500 two files
// later. So the file that leaves one fails here, named, whichever way the files run.
afterAll(() => {
  const inherited = (value: object) => {
    const names: string[] = [];
    for (const name in value) if (!Object.hasOwn(value, name)) names.push(name);
    return names;
  };
  const left = { object: inherited({}), array: inherited([]), string: inherited(new String('')), function: inherited(() => undefined) };
  const found = Object.entries(left).filter(([, names]) => names.length > 0);
  if (found.length > 0) {
    throw new Error(`this file left enumerable members on built-in prototypes: ${found.map(([kind, names]) => `${kind}: ${names.join(', ')}`).join('; ')}`);
  }
});
