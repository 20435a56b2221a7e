import { eq } from 'drizzle-orm';
import { workspaceMembers } from '../resources/workspaces/table.js';
import type { Executor } from './client.js';
import { files } from '../resources/files/table.js';
import { memberOf } from './scoped.js';

// What built resources read of the files resource. The issue that moves it into that resource's
// repository removes this file.

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
