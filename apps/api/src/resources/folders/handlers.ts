import { and, eq } from 'drizzle-orm';
import type { HandlerMap } from '../../contract/handler-types.js';
import { newId } from '../../lib/ids.js';
import { deleted } from '../../lib/wire.js';
import { requireMembership, requireRole } from '../../workspaces/access.js';
import type { WorkspaceRole } from '../../workspaces/roles.js';
import { errors } from '../../http/errors.js';
import { deleteFileRows } from '../files/handlers.js';
import { FILE_JOBS } from '../files/jobs.js';
import { toFolder, type FolderRow } from '../files/mappers.js';
import { findFolder, listFilesOf, listFoldersOf, lockAccountOf, type FolderView } from '../files/repository.js';
import { linksAt } from '../files/settings.js';
import { files, folderFavorites, folders } from '../files/table.js';

// DECISIONS.md, Folders: renaming, sharing or deleting a folder needs its creator or someone who runs the
// workspace (owner, department admin — everything an owner may but deleting the workspace — or manager).
const RUNS_WORKSPACE: readonly WorkspaceRole[] = ['owner', 'department_admin', 'manager'];

function requireFolderControl(view: FolderView, userId: string, doing: string, param: string | null = null): void {
  const isCreator = view.folder.createdByUserId === userId;
  if (RUNS_WORKSPACE.includes(view.role)) return;
  if (!isCreator) throw errors.permissionDenied(`Only the folder's creator or a workspace owner or manager can ${doing}.`, param);
  requireRole(view.role, doing === 'delete this folder' ? 'content.delete' : 'content.update', doing, param);
}

async function setFolderFavorite(db: Parameters<typeof findFolder>[0], userId: string, folderId: string, favorite: boolean, now: Date): Promise<void> {
  if (favorite) await db.insert(folderFavorites).values({ userId, folderId, createdAt: now }).onConflictDoNothing();
  else await db.delete(folderFavorites).where(and(eq(folderFavorites.userId, userId), eq(folderFavorites.folderId, folderId)));
}

export const folderHandlers = {
  createFolder: async ({ body }, ctx) => {
    const membership = await requireMembership(ctx.db, body.workspace_id, ctx.auth.userId, 'workspace_id');
    requireRole(membership.role, 'content.create', 'create folders in this workspace');
    const now = ctx.now();
    const row: FolderRow = {
      id: newId('fld'),
      workspaceId: body.workspace_id,
      createdByUserId: ctx.auth.userId,
      name: body.name,
      isShared: body.is_shared ?? false,
      fileCount: 0,
      createdAt: now,
      updatedAt: now,
    };
    await ctx.db.insert(folders).values(row);
    return toFolder(row, { fileCount: 0, isFavorite: false });
  },

  listFolders: async ({ query }, ctx) => {
    await requireMembership(ctx.db, query.workspace_id, ctx.auth.userId, 'workspace_id');
    return listFoldersOf(ctx.db, ctx.auth.userId, query);
  },

  getFolder: async ({ params, query }, ctx) => {
    const view = await findFolder(ctx.db, ctx.auth.userId, params.id);
    const page =
      query.include_files === false
        ? undefined
        : await listFilesOf(
            ctx.db,
            ctx.auth.userId,
            { folder_id: view.folder.id, limit: query.limit, cursor: query.cursor },
            linksAt(ctx.services.files, ctx.now()),
            'folder-files',
          );
    return toFolder(view.folder, { fileCount: view.fileCount, isFavorite: view.isFavorite, ...(page ? { files: page } : {}) });
  },

  updateFolder: async ({ params, body }, ctx) => {
    const userId = ctx.auth.userId;
    const now = ctx.now();
    const view = await ctx.db.transaction(async (tx) => {
      const current = await findFolder(tx, userId, params.id);
      for (const field of ['name', 'is_shared'] as const) {
        if (body[field] !== undefined) requireFolderControl(current, userId, field === 'name' ? 'rename this folder' : 'share or unshare this folder', field);
      }
      // Anyone who sees the folder may set their own favorite flag.
      if (body.is_favorite !== undefined) await setFolderFavorite(tx, userId, params.id, body.is_favorite, now);
      let folder = current.folder;
      if (body.name !== undefined || body.is_shared !== undefined) {
        const changes = {
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.is_shared !== undefined ? { isShared: body.is_shared } : {}),
          updatedAt: now,
        };
        // Only the PATCH's fields: file_count is left to its relative increments (a concurrent one would be lost).
        await tx.update(folders).set(changes).where(eq(folders.id, params.id));
        folder = { ...folder, ...changes };
      }
      return { ...current, folder, isFavorite: body.is_favorite ?? current.isFavorite };
    });
    return toFolder(view.folder, { fileCount: view.fileCount, isFavorite: view.isFavorite });
  },

  deleteFolder: async ({ params, query }, ctx) => {
    const userId = ctx.auth.userId;
    await ctx.db.transaction(async (tx) => {
      const current = await findFolder(tx, userId, params.id);
      requireFolderControl(current, userId, 'delete this folder');
      const deleteFiles = query.delete_files === true;
      if (deleteFiles) {
        requireRole(current.role, 'content.delete', 'delete files in this workspace', 'delete_files');
        // Writers of file rows with bytes lock the account first (addStoredBytes).
        await lockAccountOf(tx, current.folder.workspaceId);
      }
      // The folder's files locked before the folder row (which the delete and ON DELETE SET NULL then
      // take), the order of a move (updateFileRow): a file moving out meanwhile cannot deadlock with this.
      const inFolder = await tx
        .select({ id: files.id, workspaceId: files.workspaceId, sizeBytes: files.sizeBytes })
        .from(files)
        .where(eq(files.folderId, params.id))
        .for(deleteFiles ? 'update' : 'no key update');
      if (deleteFiles) await deleteFileRows(tx, (t, keys) => ctx.services.jobs.enqueue(t, FILE_JOBS.deleteBytes, { keys }), inFolder);
      // Files left in it move to no folder (ON DELETE SET NULL); its file_count goes with its row.
      await tx.delete(folders).where(eq(folders.id, params.id));
    });
    return deleted('folder', params.id);
  },
} satisfies Pick<HandlerMap, 'createFolder' | 'listFolders' | 'getFolder' | 'updateFolder' | 'deleteFolder'>;
