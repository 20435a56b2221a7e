import type { Workspace, WorkspaceMember, WorkspaceRole, WorkspaceSummary } from '@persona-api/types';
import { iso } from '../../lib/wire.js';
import type { Membership, WorkspaceRow } from '../../workspaces/access.js';

export interface WorkspaceCounts {
  memberCount: number;
  projectCount: number;
  threadCount: number;
}

/** The counts of a workspace row (its counter columns). */
export const countsOfRow = (row: WorkspaceRow): WorkspaceCounts => ({
  memberCount: row.memberCount,
  projectCount: row.projectCount,
  threadCount: row.agentThreadCount,
});

export interface MemberRow {
  userId: string;
  email: string;
  role: string;
  joinedAt: Date;
  accountId: string | null;
}

export function toSummary(row: WorkspaceRow, counts: WorkspaceCounts, userId: string): WorkspaceSummary {
  return {
    id: row.id,
    object: 'workspace',
    name: row.name,
    image: row.image,
    is_owner: row.ownerUserId === userId,
    member_count: counts.memberCount,
    project_count: counts.projectCount,
    thread_count: counts.threadCount,
    budget_alert: row.budgetAlert,
    usage_limit: row.usageLimit,
    billing_email: row.billingEmail,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

export function toWorkspace(membership: Membership, counts: WorkspaceCounts, userId: string): Workspace {
  return {
    ...toSummary(membership.workspace, counts, userId),
    type: membership.workspace.type as Workspace['type'],
    role: membership.role,
  };
}

export function toMember(row: MemberRow): WorkspaceMember {
  return {
    object: 'workspace.member',
    user_id: row.userId,
    email: row.email,
    role: row.role as WorkspaceRole,
    // Invited until the person has an account (signs up), active from then on.
    status: row.accountId === null ? 'invited' : 'active',
    joined_at: iso(row.joinedAt),
  };
}
