import { eq, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { workspaceMembers } from '../resources/workspaces/table.js';
import type { Executor } from './client.js';
import { files } from '../resources/files/table.js';
import { generations } from './schema/content.js';
import { countIn, memberOf } from './scoped.js';

// What built resources read of the resources not built yet (generations, files). The
// issue that builds one moves its part into that resource's repository.

/** Generations of the project whose id column is given. */
export const generationsInProject = (projectId: AnyPgColumn): SQL<number> => countIn(generations.projectId, projectId);

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
