import type { Project } from '@persona-api/types';
import { iso } from '../../lib/wire.js';
import type { projects } from './table.js';

export type ProjectRow = typeof projects.$inferSelect;

/** A project with what its wire form adds: its workspace's name, its counts and its recent spend. */
export interface ProjectView {
  project: ProjectRow;
  workspaceName: string;
  creditsUsed14d: string | number;
}

export function toProject(row: ProjectView): Project {
  const p = row.project;
  return {
    id: p.id,
    object: 'project',
    name: p.name,
    goal: p.goal,
    workspace_id: p.workspaceId,
    workspace_name: row.workspaceName,
    // Research-agent threads are the only kind of thread stored so far.
    thread_count: p.agentThreadCount,
    agent_thread_count: p.agentThreadCount,
    generation_count: p.generationCount,
    credits_used_14d: Math.max(0, Number(row.creditsUsed14d)),
    budget_alert: p.budgetAlert,
    usage_limit: p.usageLimit,
    billing_email: p.billingEmail,
    created_at: iso(p.createdAt),
    updated_at: iso(p.updatedAt),
  };
}
