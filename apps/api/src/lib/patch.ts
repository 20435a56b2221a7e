import type { Database, Transaction } from '../db/client.js';
import { deleted, type Deleted } from './wire.js';

/**
 * The contract's PATCH rule: a field present in the body replaces the stored value (`null` clears a
 * nullable one); a field left out keeps it. `columns` maps body fields (snake_case) to row columns.
 */
export function applyPatch<Row extends object, Body extends object>(current: Row, body: Body, columns: { readonly [Field in keyof Body]?: keyof Row }): Row {
  const next = { ...current };
  for (const [field, column] of Object.entries(columns) as [keyof Body, keyof Row][]) {
    const value = body[field];
    if (value !== undefined) next[column] = value as unknown as Row[keyof Row];
  }
  return next;
}

/**
 * Every PATCH: in one transaction, find the row (404 for another tenant's), check the caller may change
 * it and these fields, merge the body (`applyPatch`), check the merged row, write it. Returns what
 * `find` found and the merged row, for the handler to map to the wire.
 */
export function patchInTransaction<Found, Next>(
  db: Database,
  steps: {
    find(tx: Transaction): Promise<Found>;
    /** Throws 403 (or 400) when the caller may not make this change. */
    authorize(found: Found): void;
    merge(found: Found): Next;
    /** Checks that span fields (e.g. budget_alert ≤ usage_limit) on the merged row. */
    validate?(next: Next): void;
    save(tx: Transaction, next: Next, found: Found): Promise<void>;
  },
): Promise<{ found: Found; next: Next }> {
  return db.transaction(async (tx) => {
    const found = await steps.find(tx);
    steps.authorize(found);
    const next = steps.merge(found);
    steps.validate?.(next);
    await steps.save(tx, next, found);
    return { found, next };
  });
}

/**
 * Every DELETE: in one transaction, find the row and check the caller may delete it (`remove` throws
 * otherwise), delete it; answers `{id, object, deleted: true}`.
 */
export async function deleteInTransaction<Object extends string>(
  db: Database,
  deletion: { object: Object; id: string },
  remove: (tx: Transaction) => Promise<void>,
): Promise<Deleted<Object>> {
  await db.transaction(remove);
  return deleted(deletion.object, deletion.id);
}
