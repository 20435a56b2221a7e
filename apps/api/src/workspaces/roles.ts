import type { AssignableWorkspaceRole, WorkspaceRole } from '@persona-api/types';

export type { WorkspaceRole };
export type AssignableRole = AssignableWorkspaceRole;

/**
 * What each workspace role may do: the table of DECISIONS.md, "Workspace roles" (the same rules are
 * stated on each operation of the contract). Reading is open to every member except the member list
 * for a client_viewer; the checks below are the rest.
 */
export type Action =
  | 'ai.call' // paid AI calls: responses, chat, suggestions, focus groups, news, video, agent
  | 'workspace.rename' // name, image
  | 'workspace.set_billing' // budget_alert, usage_limit, billing_email (workspace and project)
  | 'workspace.delete'
  | 'members.list'
  | 'members.manage'
  | 'content.create'
  | 'content.update'
  | 'content.delete';

const CAN: Record<Action, readonly WorkspaceRole[]> = {
  'ai.call': ['owner', 'department_admin', 'manager', 'editor', 'creative_specialist', 'analyst'],
  'workspace.rename': ['owner', 'department_admin', 'manager'],
  'workspace.set_billing': ['owner', 'department_admin'],
  'workspace.delete': ['owner'],
  'members.list': ['owner', 'manager', 'analyst', 'viewer', 'editor', 'creative_specialist', 'department_admin'],
  'members.manage': ['owner', 'department_admin', 'manager'],
  'content.create': ['owner', 'department_admin', 'manager', 'editor', 'creative_specialist'],
  'content.update': ['owner', 'department_admin', 'manager', 'editor', 'creative_specialist'],
  'content.delete': ['owner', 'department_admin', 'manager', 'editor'],
};

export function can(role: WorkspaceRole, action: Action): boolean {
  return CAN[action].includes(role);
}

/** The roles that may do `action` (for a check made inside a statement: billing's hold). */
export function rolesThatCan(action: Action): readonly WorkspaceRole[] {
  return CAN[action];
}

// A manager runs the team but cannot hand out or touch the roles at or above their own.
const MANAGER_PROTECTED: readonly WorkspaceRole[] = ['owner', 'manager', 'department_admin'];

/** May `actor` give a new member `role`? */
export function canGrant(actor: WorkspaceRole, role: AssignableRole): boolean {
  if (actor === 'owner' || actor === 'department_admin') return true;
  if (actor === 'manager') return !MANAGER_PROTECTED.includes(role);
  return false;
}

/** May `actor` change a member from `current` to `next`? (Self and owner are refused by the caller.) */
export function canChangeRole(actor: WorkspaceRole, current: WorkspaceRole, next: AssignableRole): boolean {
  if (current === 'owner') return false;
  if (actor === 'owner' || actor === 'department_admin') return true;
  if (actor === 'manager') return !MANAGER_PROTECTED.includes(current) && !MANAGER_PROTECTED.includes(next);
  return false;
}

/** May `actor` remove a member whose role is `target`? (Leaving, i.e. removing oneself, is handled apart.) */
export function canRemove(actor: WorkspaceRole, target: WorkspaceRole): boolean {
  if (target === 'owner') return false;
  if (actor === 'owner' || actor === 'department_admin') return true;
  if (actor === 'manager') return !MANAGER_PROTECTED.includes(target);
  return false;
}
