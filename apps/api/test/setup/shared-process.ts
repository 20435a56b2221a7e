import { afterAll } from 'vitest';

// Fails the file that leaves an enumerable member on a built-in prototype: with files sharing a process
// (`--no-isolate`) it would change every later file's objects (test/db/online-indexes.test.ts says how).
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
