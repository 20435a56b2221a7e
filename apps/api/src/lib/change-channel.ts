import { sql } from 'drizzle-orm';
import type { DatabaseHandle, Executor } from '../db/client.js';

/**
 * A change every instance must hear, for a cache to forget what it holds: announced with `pg_notify` in
 * the changing transaction (so it is sent at commit, or not at all), heard by each instance on its LISTEN
 * connection within milliseconds. The instance that made the change also calls `changedHere()` once it
 * has committed, so its own next request sees the change without waiting for its notification.
 */
export interface ChangeChannel {
  readonly name: string;
  /** In the caller's transaction; `payload` says what changed, for whoever reads the notification. */
  announce(tx: Executor, payload?: string): Promise<void>;
  /** After the announcing transaction committed. */
  changedHere(): void;
  /** Calls `onChange` on every announcement, from any instance, and on `changedHere()`; returns the unsubscribe. */
  subscribe(database: Pick<DatabaseHandle, 'listen'>, onChange: () => void): Promise<() => Promise<void>>;
}

export function changeChannel(name: string): ChangeChannel {
  const here = new Set<() => void>();
  return {
    name,
    async announce(tx, payload = '') {
      await tx.execute(sql`select pg_notify(${name}, ${payload})`);
    },
    changedHere() {
      for (const onChange of here) onChange();
    },
    async subscribe(database, onChange) {
      const unlisten = await database.listen(name, () => onChange());
      here.add(onChange);
      return async () => {
        here.delete(onChange);
        await unlisten().catch(() => undefined);
      };
    },
  };
}
