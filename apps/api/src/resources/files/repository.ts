import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { memberOf, pageAcrossWorkspaces } from '../../db/scoped.js';
import { accounts, tiers } from '../../db/schema/tenancy.js';
import { apiError, errors } from '../../http/errors.js';
import { listPage, type ListQuery } from '../../lib/pagination.js';
import type { WorkspaceRole } from '../../workspaces/roles.js';
import { workspaceMembers, workspaces } from '../workspaces/table.js';
import {
  fileIsFavorite,
  fileListConditions,
  fileVisibleTo,
  folderFileCount,
  folderIsFavorite,
  folderListConditions,
  folderVisibleTo,
  type FileListFilters,
} from './filters.js';
import { toFile, toFolder, type FileRow, type FolderRow, type LinkContext } from './mappers.js';
import { files, folders, uploads } from './table.js';

/** A file as a read returns it: the row, its folder's id and name, the caller's favorite flag and role. */
export interface FileView {
  file: FileRow;
  folderName: string | null;
  isFavorite: boolean;
  role: WorkspaceRole;
}

const fileColumns = (userId: string) => ({
  file: files,
  folderName: folders.name,
  isFavorite: fileIsFavorite(userId),
  role: workspaceMembers.role,
});

/** Files the caller sees: in their workspaces, and not in another member's private folder. */
const visibleFiles = (db: Executor, userId: string) =>
  db.select(fileColumns(userId)).from(files).innerJoin(workspaceMembers, memberOf(files.workspaceId, userId)).leftJoin(folders, eq(folders.id, files.folderId));

export const fileToWire = (view: Omit<FileView, 'role'>, links: LinkContext) =>
  toFile(
    view.file,
    { folder: view.file.folderId !== null && view.folderName !== null ? { id: view.file.folderId, name: view.folderName } : null, isFavorite: view.isFavorite },
    links,
  );

/** A file the caller sees; another tenant's (or one in someone's private folder) is a 404. */
export async function findFile(db: Executor, userId: string, fileId: string): Promise<FileView> {
  const [row] = await visibleFiles(db, userId)
    .where(and(eq(files.id, fileId), fileVisibleTo(userId)))
    .limit(1);
  if (!row) throw errors.notFound('file', fileId);
  return { ...row, role: row.role as WorkspaceRole };
}

export function listFilesOf(
  db: Executor,
  userId: string,
  query: ListQuery & FileListFilters & { workspace_id?: string | undefined },
  links: LinkContext,
  listName = 'files',
) {
  return listPage(query, {
    list: `${listName}:${query.workspace_id ?? '*'}:${query.folder_id ?? '*'}`,
    keyset: { sortKey: files.createdAt, id: files.id },
    filters: fileListConditions(userId, query),
    // Per workspace, folder or not: indexes (workspace_id[, folder_id], created_at, id). The favorites are
    // looked up instead (fileIsFavoriteOf): what the caller bookmarked bounds that list.
    acrossWorkspaces:
      query.workspace_id || query.is_favorite === true ? undefined : pageAcrossWorkspaces(files, { id: files.id, workspaceId: files.workspaceId }, userId),
    rows: (page) =>
      visibleFiles(db, userId)
        .where(page.where)
        .orderBy(...page.orderBy)
        .limit(page.fetch),
    keyOf: (row) => ({ sortKey: row.file.createdAt, id: row.file.id }),
    toItem: (row) => fileToWire(row, links),
  });
}

/** A folder as a read returns it, with the caller's role in its workspace. */
export interface FolderView {
  folder: FolderRow;
  fileCount: number;
  isFavorite: boolean;
  role: WorkspaceRole;
}

const visibleFolders = (db: Executor, userId: string) =>
  db
    .select({ folder: folders, fileCount: folderFileCount(), isFavorite: folderIsFavorite(userId), role: workspaceMembers.role })
    .from(folders)
    .innerJoin(workspaceMembers, memberOf(folders.workspaceId, userId));

/** A folder the caller sees (shared, or their own); anything else is a 404 naming `param`. */
export async function findFolder(db: Executor, userId: string, folderId: string, param = 'id'): Promise<FolderView> {
  const [row] = await visibleFolders(db, userId)
    .where(and(eq(folders.id, folderId), folderVisibleTo(userId)))
    .limit(1);
  if (!row) throw errors.notFound('folder', folderId, param);
  return { ...row, role: row.role as WorkspaceRole };
}

/** The folder a file goes into: visible to the caller and in the file's workspace, else a 404 on `param`. */
export async function targetFolder(db: Executor, userId: string, folderId: string, workspaceId: string, param = 'folder_id'): Promise<FolderRow> {
  const found = await findFolder(db, userId, folderId, param).catch(() => null);
  if (!found || found.folder.workspaceId !== workspaceId) throw errors.notFound('folder', folderId, param);
  return found.folder;
}

export function listFoldersOf(
  db: Executor,
  userId: string,
  query: ListQuery & { workspace_id: string; is_favorite?: boolean | undefined; search?: string | undefined },
) {
  return listPage(query, {
    list: `folders:${query.workspace_id}`,
    keyset: { sortKey: folders.createdAt, id: folders.id },
    filters: [eq(folders.workspaceId, query.workspace_id), ...folderListConditions(userId, query)],
    rows: (page) =>
      visibleFolders(db, userId)
        .where(page.where)
        .orderBy(...page.orderBy)
        .limit(page.fetch),
    keyOf: (row) => ({ sortKey: row.folder.createdAt, id: row.folder.id }),
    toItem: (row) => toFolder(row.folder, { fileCount: row.fileCount, isFavorite: row.isFavorite }),
  });
}

/**
 * The storage the account's tier includes, in bytes. With `lock` (inside a transaction) the account row
 * stays locked until it ends, so two requests checking the quota of one account run one after the other
 * and the second sees the first's file.
 */
export async function includedStorage(db: Executor, accountId: string, { lock }: { lock: boolean }): Promise<number> {
  const query = db
    .select({ included: tiers.storageBytesIncluded })
    .from(accounts)
    .innerJoin(tiers, eq(tiers.id, accounts.tierId))
    .where(eq(accounts.id, accountId));
  const [row] = lock ? await query.for('update', { of: accounts }) : await query;
  if (!row) throw new Error(`account ${accountId} has no row`);
  return Number(row.included);
}

/** Bytes of the recorded uploads in an account's workspaces (what GET /usage reports and the quota counts). */
export async function storedBytes(db: Executor, accountId: string): Promise<number> {
  const [row] = await db
    .select({ bytes: sql<string>`coalesce(sum(${files.sizeBytes}), 0)` })
    .from(files)
    .innerJoin(workspaces, eq(workspaces.id, files.workspaceId))
    .where(eq(workspaces.accountId, accountId));
  return Number(row?.bytes ?? 0);
}

/** 402 `usage_limit_exceeded` when `adding` more bytes would pass the account's included storage. */
export function checkStorageQuota(used: number, adding: number, included: number, param: string): void {
  if (used + adding <= included) return;
  throw apiError(
    'usage_limit_exceeded',
    `This file (${adding} bytes) does not fit in the storage your plan includes: ${used} of ${included} bytes are used. Delete files or upgrade the plan.`,
    param,
  );
}

export type UploadRow = typeof uploads.$inferSelect;

export async function findUpload(db: Executor, key: string, lock = false): Promise<UploadRow | undefined> {
  const query = db.select().from(uploads).where(eq(uploads.key, key)).limit(1);
  const [row] = lock ? await query.for('update') : await query;
  return row;
}
