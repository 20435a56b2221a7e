import { and, desc, eq, ilike, lt, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { memberOf, memberRowsList } from '../../db/scoped.js';
import { errors } from '../../http/errors.js';
import { containsPattern, listPage, type ListQuery } from '../../lib/pagination.js';
import { addToProjectCounts } from '../projects/repository.js';
import { addToWorkspaceCounts } from '../workspaces/repository.js';
import { workspaceMembers } from '../workspaces/table.js';
import type { WorkspaceRole } from '../../workspaces/roles.js';
import { toAgentMessage, toAgentThread, type AgentMessageRow, type AgentThreadRow } from './mapper.js';
import { agentMessages, agentThreads } from './table.js';

/**
 * Inserts the thread, counted on its workspace and project (`thread_count`, `agent_thread_count`). The
 * counts come first: they take the workspace's and then the project's row lock, in the order a charge
 * takes them. 404 on project_id when the project is not in the thread's workspace (any more).
 */
export async function insertThread(tx: Executor, row: AgentThreadRow): Promise<void> {
  if (!(await addToWorkspaceCounts(tx, row.workspaceId, { agentThreadCount: 1 }))) throw errors.notFound('workspace', row.workspaceId, 'workspace_id');
  if (row.projectId !== null && !(await addToProjectCounts(tx, { id: row.projectId, workspaceId: row.workspaceId }, { agentThreadCount: 1 }))) {
    throw errors.notFound('project', row.projectId, 'project_id');
  }
  await tx.insert(agentThreads).values(row);
}

/**
 * Deletes the thread, counted off its workspace and project (the counts first, as insertThread); 404 when
 * another request deleted it meanwhile, which rolls the counts back with the transaction.
 */
export async function deleteThreadRow(tx: Executor, row: Pick<AgentThreadRow, 'id' | 'workspaceId' | 'projectId'>): Promise<void> {
  await addToWorkspaceCounts(tx, row.workspaceId, { agentThreadCount: -1 });
  // A project deleted meanwhile left the thread without one: its count went with it.
  if (row.projectId !== null) await addToProjectCounts(tx, { id: row.projectId, workspaceId: row.workspaceId }, { agentThreadCount: -1 });
  const gone = await tx.delete(agentThreads).where(eq(agentThreads.id, row.id)).returning({ id: agentThreads.id });
  if (gone.length === 0) throw errors.notFound('agent thread', row.id);
}

/** An answer `in_progress` longer than this was cut by a stopped server: it counts as failed (DECISIONS.md). */
export const STALE_ANSWER_MS = 15 * 60 * 1000;

/** A thread of a workspace the user belongs to, with their role there; another tenant's is the same 404 as a missing one. */
export async function findThread(db: Executor, userId: string, id: string): Promise<{ row: AgentThreadRow; role: WorkspaceRole }> {
  const [found] = await db
    .select({ row: agentThreads, role: workspaceMembers.role })
    .from(agentThreads)
    .innerJoin(workspaceMembers, memberOf(agentThreads.workspaceId, userId))
    .where(eq(agentThreads.id, id))
    .limit(1);
  if (!found) throw errors.notFound('agent thread', id);
  return { row: found.row, role: found.role as WorkspaceRole };
}

export function listThreadsOf(
  db: Executor,
  userId: string,
  query: ListQuery & { workspace_id?: string | undefined; project_id?: string | undefined; search?: string | undefined },
) {
  return listPage(query, {
    list: `agent_threads:${query.workspace_id ?? '*'}:${query.project_id ?? '*'}`,
    // Per workspace also with a project: indexes (workspace_id[, project_id], created_at, id).
    ...memberRowsList(db, agentThreads, Boolean(query.workspace_id)),
    prepared: {
      db,
      name: 'agent_threads',
      values: {
        user_id: userId,
        workspace_id: query.workspace_id,
        project_id: query.project_id,
        search: query.search ? containsPattern(query.search) : undefined,
      },
    },
    filters: [
      query.workspace_id ? eq(agentThreads.workspaceId, sql.placeholder('workspace_id')) : undefined,
      query.project_id ? eq(agentThreads.projectId, sql.placeholder('project_id')) : undefined,
      query.search ? ilike(agentThreads.title, sql.placeholder('search')) : undefined,
    ],
    toItem: ({ row }) => toAgentThread(row),
  });
}

export function listMessagesOf(db: Executor, threadId: string, query: ListQuery & { order?: 'asc' | 'desc' | undefined }) {
  const order = query.order ?? 'asc';
  return listPage(query, {
    list: `agent_messages:${threadId}:${order}`,
    keyset: { sortKey: agentMessages.createdAt, id: agentMessages.id },
    order,
    prepared: { db, name: `agent_messages_${order}`, values: { thread_id: threadId } },
    filters: [eq(agentMessages.threadId, sql.placeholder('thread_id'))],
    rows: (page) =>
      db
        .select()
        .from(agentMessages)
        .where(page.where)
        .orderBy(...page.orderBy)
        .limit(page.fetch),
    keyOf: (row) => ({ sortKey: row.createdAt, id: row.id }),
    toItem: toAgentMessage,
  });
}

/** The thread's completed messages before `before`, oldest first: the context of the next answer. */
export async function conversationOf(db: Executor, threadId: string, limit: number): Promise<AgentMessageRow[]> {
  const rows = await db
    .select()
    .from(agentMessages)
    .where(and(eq(agentMessages.threadId, threadId), eq(agentMessages.status, 'completed')))
    .orderBy(desc(agentMessages.createdAt), desc(agentMessages.id))
    .limit(limit);
  return rows.reverse();
}

/** Marks the thread's answer that has been `in_progress` since before `cutoff` failed (a server stopped mid-answer). */
export async function failStaleAnswer(db: Executor, threadId: string, cutoff: Date, now: Date): Promise<void> {
  await db
    .update(agentMessages)
    .set({ status: 'failed', error: 'The answer was interrupted (the server stopped).', updatedAt: now })
    .where(and(eq(agentMessages.threadId, threadId), eq(agentMessages.status, 'in_progress'), lt(agentMessages.createdAt, cutoff)));
}

/** Whether the thread has an answer in progress. */
export async function hasAnswerInProgress(db: Executor, threadId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: agentMessages.id })
    .from(agentMessages)
    .where(and(eq(agentMessages.threadId, threadId), eq(agentMessages.status, 'in_progress')))
    .limit(1);
  return row !== undefined;
}

/**
 * Adds the user's message and the `in_progress` answer, and counts both on the thread. Returns false, with
 * nothing written, when the thread already has an answer in progress (the partial unique index decides,
 * so two concurrent sends cannot both pass).
 */
export async function startAnswer(db: Executor, user: AgentMessageRow, answer: AgentMessageRow): Promise<boolean> {
  const inserted = await db.insert(agentMessages).values(answer).onConflictDoNothing().returning({ id: agentMessages.id });
  if (inserted.length === 0) return false;
  await db.insert(agentMessages).values(user);
  await db
    .update(agentThreads)
    .set({ messageCount: sql`${agentThreads.messageCount} + 2`, lastMessageAt: answer.createdAt, updatedAt: answer.createdAt })
    .where(eq(agentThreads.id, user.threadId));
  return true;
}

/** Writes the end of an answer (only one still in progress). */
export async function finishAnswer(
  db: Executor,
  id: string,
  changes: Pick<AgentMessageRow, 'status' | 'content' | 'sources' | 'inputTokens' | 'outputTokens' | 'creditsUsed' | 'error' | 'updatedAt'>,
): Promise<void> {
  await db
    .update(agentMessages)
    .set(changes)
    .where(and(eq(agentMessages.id, id), eq(agentMessages.status, 'in_progress')));
}

/** Adds an answer's credits (and a generated title) to its thread. */
export async function chargeThread(db: Executor, threadId: string, changes: { credits: number; title: string | null; now: Date }): Promise<void> {
  await db
    .update(agentThreads)
    .set({
      creditsUsed: sql`${agentThreads.creditsUsed} + ${changes.credits}`,
      ...(changes.title !== null ? { title: changes.title, titlePending: false } : {}),
      updatedAt: changes.now,
    })
    .where(eq(agentThreads.id, threadId));
}
