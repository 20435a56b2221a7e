/**
 * A driver's two projects (files sharing a process, files with a process each: vitest.config.ts) both name its
 * global setup, and vitest runs it for each. The first call does the work (a template database, the contract
 * report's folder) and the others wait for it; the teardown runs once, after the last project's. Kept on
 * globalThis: each project may load the setup module anew.
 */
interface Shared {
  value: Promise<unknown>;
  users: number;
}

const registry = ((globalThis as { __personaTestSetups?: Map<string, Shared> }).__personaTestSetups ??= new Map());

export async function setUpOnce<T>(
  key: string,
  setUp: () => Promise<T>,
  tearDown: (value: T) => void | Promise<void>,
): Promise<{ value: T; release: () => Promise<void> }> {
  const shared = registry.get(key) ?? { value: setUp(), users: 0 };
  registry.set(key, shared);
  shared.users += 1;
  const value = (await shared.value) as T;
  return {
    value,
    async release() {
      shared.users -= 1;
      if (shared.users > 0) return;
      registry.delete(key);
      await tearDown(value);
    },
  };
}
