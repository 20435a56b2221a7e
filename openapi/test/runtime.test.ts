import { expect, test } from 'vitest';

// The suite runs on the Node the root package pins (from the npm registry), not the machine's.
test('the suite runs on Node 24 LTS', () => {
  const major = Number(process.versions.node.split('.')[0]);
  console.log(`node ${process.version}`);
  expect(major).toBe(24);
});
