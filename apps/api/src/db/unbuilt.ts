import { eq, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { workspaceMembers } from '../resources/workspaces/table.js';
import type { Executor } from './client.js';
import { files } from '../resources/files/table.js';
import { agentThreads } from './schema/content.js';
import { countIn, memberOf } from './scoped.js';

// What built resources read of the resources not built yet (research agent, files). The
// issue that builds one moves its part into that resource's repository.

/** Research-agent threads of the workspace or project whose id column is given. */
export const agentThreadsInWorkspace = (workspaceId: AnyPgColumn): SQL<number> => countIn(agentThreads.workspaceId, workspaceId);
export const agentThreadsInProject = (projectId: AnyPgColumn): SQL<number> => countIn(agentThreads.projectId, projectId);

/** Whether the user can see the file (it is in a workspace of theirs). */
export async function fileVisibleTo(db: Executor, userId: string, fileId: string): Promise<boolean> {
  const [file] = await db
    .select({ id: files.id })
    .from(files)
    .innerJoin(workspaceMembers, memberOf(files.workspaceId, userId))
    .where(eq(files.id, fileId))
    .limit(1);
  return file !== undefined;
}
