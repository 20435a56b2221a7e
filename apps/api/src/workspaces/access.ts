import { eq, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { memberOf } from '../db/scoped.js';
import { errors } from '../http/errors.js';
import { workspaceMembers, workspaces } from '../resources/workspaces/table.js';
import { can, type Action, type WorkspaceRole } from './roles.js';

export type WorkspaceRow = typeof workspaces.$inferSelect;

export interface Membership {
  workspace: WorkspaceRow;
  role: WorkspaceRole;
}

/**
 * The caller's membership of a workspace. A workspace that does not exist and one the caller does
 * not belong to are the same 404, so ids of other tenants cannot be probed.
 */
export async function requireMembership(db: Executor, workspaceId: string, userId: string, param = 'id'): Promise<Membership> {
  const [row] = await db
    .select({ workspace: workspaces, role: workspaceMembers.role })
    .from(workspaces)
    .innerJoin(workspaceMembers, memberOf(workspaces.id, userId))
    .where(eq(workspaces.id, workspaceId))
    .limit(1);
  if (!row) throw errors.notFound('workspace', workspaceId, param);
  return { workspace: row.workspace, role: row.role as WorkspaceRole };
}

/**
 * The caller's default workspace (DECISIONS.md): the oldest workspace they own, or null when they own
 * none. Operations without a `workspace_id` (responses, chat, suggestions) charge and check roles there.
 * The rule is the database's `default_workspace_of` (migration 0013), which the credit hold reads too.
 */
export async function defaultWorkspace(db: Executor, userId: string): Promise<Membership | null> {
  const [row] = await db
    .select({ workspace: workspaces, role: workspaceMembers.role })
    .from(workspaces)
    .innerJoin(workspaceMembers, memberOf(workspaces.id, userId))
    .where(eq(workspaces.id, sql`(select workspace_id from default_workspace_of(${userId}))`))
    .limit(1);
  return row ? { workspace: row.workspace, role: row.role as WorkspaceRole } : null;
}

export const roleLabel = (role: WorkspaceRole) => role.replace(/_/g, ' ');

/** 403 `permission_denied` unless the member's role allows `action`. */
export function requireRole(role: WorkspaceRole, action: Action, doing: string, param: string | null = null): void {
  if (!can(role, action)) throw errors.permissionDenied(`Your role (${roleLabel(role)}) cannot ${doing}.`, param);
}

/** The spending settings a workspace and a project share, and the row columns they are stored in. */
export const BILLING_COLUMNS = { budget_alert: 'budgetAlert', usage_limit: 'usageLimit', billing_email: 'billingEmail' } as const;

/**
 * 403 naming the first field of `body` the role may not set. `rules` gives the action each field needs;
 * `isSet` tells which values count as setting it (a create body's null is the same as leaving it out).
 */
export function requireFieldRoles(
  role: WorkspaceRole,
  body: object,
  rules: Readonly<Record<string, Action>>,
  doing: (field: string) => string,
  isSet: (value: unknown) => boolean = () => true,
): void {
  for (const [field, action] of Object.entries(rules)) {
    const value = (body as Record<string, unknown>)[field];
    if (field in body && isSet(value)) requireRole(role, action, doing(field), field);
  }
}

/** Setting a spending field of a workspace or a project is a billing decision. */
export const BILLING_FIELD_RULES: Readonly<Record<keyof typeof BILLING_COLUMNS, Action>> = {
  budget_alert: 'workspace.set_billing',
  usage_limit: 'workspace.set_billing',
  billing_email: 'workspace.set_billing',
};

/** A budget alert above the usage limit could never fire before the limit refuses: 400 parameter_conflict. */
export function checkThresholds(budgetAlert: number | null | undefined, usageLimit: number | null | undefined): void {
  if (budgetAlert != null && usageLimit != null && budgetAlert > usageLimit) {
    throw errors.parameterConflict('budget_alert', `budget_alert (${budgetAlert}) may not be larger than usage_limit (${usageLimit}).`);
  }
}
