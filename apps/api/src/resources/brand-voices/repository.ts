import { and, desc, eq, ilike, sql, type Placeholder } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { creditLedger } from '../../db/schema/billing.js';
import { CALLER, memberOf, pageAcrossWorkspaces, pageSource } from '../../db/scoped.js';
import { errors } from '../../http/errors.js';
import { containsPattern, listPage, type ListQuery, type PageQuery } from '../../lib/pagination.js';
import type { WorkspaceRole } from '../../workspaces/roles.js';
import { workspaceMembers } from '../workspaces/table.js';
import { toBrandVoice, type BrandVoiceRow } from './mapper.js';
import { brandVoices, type BrandVoiceStatusValue } from './table.js';

const visibleVoices = (db: Executor, userId: string | Placeholder, page?: PageQuery) =>
  db
    .select({ voice: brandVoices, role: workspaceMembers.role })
    .from(pageSource(brandVoices, page))
    .innerJoin(workspaceMembers, memberOf(brandVoices.workspaceId, userId));

/** The voice with the caller's role in its workspace; another tenant's voice is a 404. */
export async function findBrandVoice(db: Executor, userId: string, id: string, param = 'id'): Promise<{ row: BrandVoiceRow; role: WorkspaceRole }> {
  const [found] = await visibleVoices(db, userId).where(eq(brandVoices.id, id)).limit(1);
  if (!found) throw errors.notFound('brand_voice', id, param);
  return { row: found.voice, role: found.role as WorkspaceRole };
}

export function listBrandVoicesOf(
  db: Executor,
  userId: string,
  query: ListQuery & { workspace_id?: string | undefined; status?: BrandVoiceStatusValue | undefined; search?: string | undefined },
) {
  return listPage(query, {
    list: `brand-voices:${query.workspace_id ?? '*'}`,
    keyset: { sortKey: brandVoices.createdAt, id: brandVoices.id },
    prepared: {
      db,
      name: 'brand_voices',
      values: { user_id: userId, workspace_id: query.workspace_id, status: query.status, search: query.search ? containsPattern(query.search) : undefined },
    },
    filters: [
      query.workspace_id ? eq(brandVoices.workspaceId, sql.placeholder('workspace_id')) : undefined,
      query.status ? eq(brandVoices.status, sql.placeholder('status')) : undefined,
      query.search ? ilike(brandVoices.label, sql.placeholder('search')) : undefined,
    ],
    acrossWorkspaces: query.workspace_id ? undefined : pageAcrossWorkspaces(brandVoices, { workspaceId: brandVoices.workspaceId }, CALLER),
    rows: (page) =>
      visibleVoices(db, CALLER, page)
        .where(page.where)
        .orderBy(...page.orderBy)
        .limit(page.fetch),
    keyOf: (row) => ({ sortKey: row.voice.createdAt, id: row.voice.id }),
    toItem: (row) => toBrandVoice(row.voice),
  });
}

/** Stores a new voice with the id of the charge just written in the same transaction (a refund needs it). */
export async function insertBrandVoice(tx: Executor, row: BrandVoiceRow): Promise<void> {
  const [charge] = await tx
    .select({ id: creditLedger.id })
    .from(creditLedger)
    .where(and(eq(creditLedger.kind, 'charge'), eq(creditLedger.description, chargeDescription(row.id))))
    .orderBy(desc(creditLedger.seq))
    .limit(1);
  await tx.insert(brandVoices).values({ ...row, chargeLedgerId: charge?.id ?? null });
}

export const chargeDescription = (id: string) => `Brand voice ${id}`;

/** The row as the job reads it, locked against a concurrent delete or edit within `tx`. */
export async function lockBrandVoice(tx: Executor, id: string): Promise<BrandVoiceRow | null> {
  const [row] = await tx.select().from(brandVoices).where(eq(brandVoices.id, id)).for('update');
  return row ?? null;
}

export async function updateBrandVoiceRow(tx: Executor, next: BrandVoiceRow): Promise<void> {
  const { id, ...changes } = next;
  await tx.update(brandVoices).set(changes).where(eq(brandVoices.id, id));
}

export async function deleteBrandVoiceRow(tx: Executor, id: string): Promise<void> {
  await tx.delete(brandVoices).where(eq(brandVoices.id, id));
}
