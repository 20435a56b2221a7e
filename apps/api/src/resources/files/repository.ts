import { and, eq, inArray, sql, type Placeholder } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { CALLER, memberOf, pageAcrossWorkspaces, pageSource } from '../../db/scoped.js';
import { accounts, tiers } from '../../db/schema/tenancy.js';
import { apiError, errors } from '../../http/errors.js';
import { listPage, type ListQuery, type PageQuery } from '../../lib/pagination.js';
import type { WorkspaceRole } from '../../workspaces/roles.js';
import { workspaceMembers, workspaces } from '../workspaces/table.js';
import {
  fileIsFavorite,
  fileListConditions,
  fileListValues,
  fileVisibleTo,
  folderIsFavorite,
  folderListConditions,
  folderListValues,
  folderVisibleTo,
  type FileListFilters,
} from './filters.js';
import { FILE_WIRE_COLUMNS, toFile, toFolder, type FileRow, type FileWireRow, type FolderRow, type LinkContext } from './mappers.js';
import { files, folders, uploads } from './table.js';

/** A file as a read returns it: the row, its folder's id and name, the caller's favorite flag and role. */
export interface FileView {
  file: FileRow;
  folderName: string | null;
  isFavorite: boolean;
  role: WorkspaceRole;
}

const fileColumns = (userId: string | Placeholder) => ({
  file: files,
  folderName: folders.name,
  isFavorite: fileIsFavorite(userId),
  role: workspaceMembers.role,
});

// A page of files reads what its items show: no role, and of the row only FILE_WIRE_COLUMNS (every column
// a row of a page does not need is decoded, mapped and collected 50 times over).
const fileWireColumns = Object.fromEntries(FILE_WIRE_COLUMNS.map((name) => [name, files[name]])) as {
  [Name in (typeof FILE_WIRE_COLUMNS)[number]]: (typeof files)[Name];
};
const filePageColumns = (userId: string | Placeholder) => ({
  file: fileWireColumns,
  folderName: folders.name,
  isFavorite: fileIsFavorite(userId),
});

/** Files the caller sees: in their workspaces, and not in another member's private folder. */
const visibleFiles = (db: Executor, userId: string | Placeholder) =>
  db.select(fileColumns(userId)).from(files).innerJoin(workspaceMembers, memberOf(files.workspaceId, userId)).leftJoin(folders, eq(folders.id, files.folderId));

/** visibleFiles, as a page of a list reads them (filePageColumns, from the page's source). */
const visibleFilePage = (db: Executor, page: PageQuery) =>
  db
    .select(filePageColumns(CALLER))
    .from(pageSource(files, page))
    .innerJoin(workspaceMembers, memberOf(files.workspaceId, CALLER))
    .leftJoin(folders, eq(folders.id, files.folderId));

export const fileToWire = (view: { file: FileWireRow; folderName: string | null; isFavorite: boolean }, links: LinkContext) =>
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
  // The statements differ by more than the values given: favorites are looked up (by whose they are, a
  // value named apart), and files in no folder are a condition with no value.
  const favorites = query.is_favorite === true ? '_favorites' : query.is_favorite === false ? '_not_favorites' : '';
  return listPage(query, {
    list: `${listName}:${query.workspace_id ?? '*'}:${query.folder_id ?? '*'}`,
    keyset: { sortKey: files.createdAt, id: files.id },
    prepared: { db, name: `files${favorites}${query.folder_id === 'none' ? '_unfiled' : ''}`, values: fileListValues(userId, query) },
    filters: fileListConditions(query),
    // Per workspace, folder or not: indexes (workspace_id[, folder_id], created_at, id). The favorites are
    // looked up instead (fileIsFavoriteOf): what the caller bookmarked bounds that list.
    acrossWorkspaces: query.workspace_id || query.is_favorite === true ? undefined : pageAcrossWorkspaces(files, { workspaceId: files.workspaceId }, CALLER),
    rows: (page) =>
      visibleFilePage(db, page)
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

const visibleFolders = (db: Executor, userId: string | Placeholder) =>
  db
    .select({ folder: folders, fileCount: folders.fileCount, isFavorite: folderIsFavorite(userId), role: workspaceMembers.role })
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
    // Favorites or not changes the statement, not a value: a name each.
    prepared: {
      db,
      name: `folders${query.is_favorite === true ? '_favorites' : query.is_favorite === false ? '_not_favorites' : ''}`,
      values: { ...folderListValues(userId, query), workspace_id: query.workspace_id },
    },
    filters: [eq(folders.workspaceId, sql.placeholder('workspace_id')), ...folderListConditions(query)],
    rows: (page) =>
      visibleFolders(db, CALLER)
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

/** Bytes of the recorded uploads in an account's workspaces (what GET /usage reports and the quota counts): its counter. */
export async function storedBytes(db: Executor, accountId: string): Promise<number> {
  const [row] = await db.select({ bytes: accounts.storedBytes }).from(accounts).where(eq(accounts.id, accountId));
  return Number(row?.bytes ?? 0);
}

/** The id of the account that owns a workspace, as SQL. */
const accountOf = (workspaceId: string) => sql`(select ${workspaces.accountId} from ${workspaces} where ${workspaces.id} = ${workspaceId})`;

/**
 * Adds `bytes` (negative: gives them back) to the stored bytes of the account that owns the workspace,
 * relatively. Every write of file rows with bytes does it before touching them: it takes the account
 * row's lock first (as the quota check does), which orders those writers with each other and with the
 * deletion of a workspace, whose files go with it (deleteFilesOf), so they cannot deadlock.
 */
async function addStoredBytes(tx: Executor, workspaceId: string, bytes: number): Promise<void> {
  if (bytes === 0) return;
  await tx
    .update(accounts)
    .set({ storedBytes: sql`${accounts.storedBytes} + ${bytes}` })
    .where(eq(accounts.id, accountOf(workspaceId)));
}

/**
 * Adds to folders' `file_count` (relative, never read-modify-write), in the transaction that puts files
 * in or takes them out. Every such writer locks the file rows it changes first and the folders after,
 * these in id order, so two moves between the same folders (or a move and a folder's deletion) cannot
 * deadlock. A file entering a folder is written after the folder's counter: its foreign key check then
 * finds the folder row already locked by this transaction (a weaker lock taken first and strengthened
 * later could wait behind the folder's deletion). A folder deleted meanwhile is skipped: its row, and so
 * its counter, is gone.
 */
async function addToFolderCounts(tx: Executor, deltas: Iterable<readonly [string | null, number]>): Promise<void> {
  const byFolder = new Map<string, number>();
  for (const [folderId, delta] of deltas) if (folderId !== null) byFolder.set(folderId, (byFolder.get(folderId) ?? 0) + delta);
  const ordered = [...byFolder].filter(([, delta]) => delta !== 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [folderId, delta] of ordered) {
    await tx
      .update(folders)
      .set({ fileCount: sql`${folders.fileCount} + ${delta}` })
      .where(eq(folders.id, folderId));
  }
}

/** Records a file, its bytes counted on its workspace's account and the file on its folder's `file_count`. */
export async function insertFileRow(tx: Executor, row: typeof files.$inferInsert): Promise<void> {
  await addStoredBytes(tx, row.workspaceId, row.sizeBytes);
  await addToFolderCounts(tx, [[row.folderId ?? null, 1]]);
  await tx.insert(files).values(row);
}

/**
 * Writes a PATCH of a file. The folder is written only when the PATCH gives one (`moved`); the counts
 * of the folder it leaves and the one it enters follow from the row as locked here (not as read before),
 * so a concurrent move or folder deletion is counted once. A PATCH that moves nothing is one update.
 */
export async function updateFileRow(tx: Executor, next: FileRow, { moved }: { moved: boolean }): Promise<void> {
  const { id, folderId, ...changes } = next;
  if (!moved) {
    await tx.update(files).set(changes).where(eq(files.id, id));
    return;
  }
  const [locked] = await tx.select({ folderId: files.folderId }).from(files).where(eq(files.id, id)).for('no key update');
  if (!locked) return;
  if (locked.folderId !== folderId)
    await addToFolderCounts(tx, [
      [locked.folderId, -1],
      [folderId, 1],
    ]);
  await tx
    .update(files)
    .set({ ...changes, folderId })
    .where(eq(files.id, id));
}

/**
 * Deletes file rows and their upload rows, giving their bytes back; returns the storage keys of the rows
 * it deleted. A row another request deleted meanwhile gave its bytes back there and is skipped.
 */
export async function deleteFileRowsOf(tx: Executor, rows: Pick<FileRow, 'id' | 'workspaceId' | 'sizeBytes'>[]): Promise<string[]> {
  const expected = new Map<string, number>();
  for (const row of rows) expected.set(row.workspaceId, (expected.get(row.workspaceId) ?? 0) + row.sizeBytes);
  for (const [workspaceId, bytes] of expected) await addStoredBytes(tx, workspaceId, -bytes);
  if (rows.length === 0) return [];
  const gone = await tx
    .delete(files)
    .where(
      inArray(
        files.id,
        rows.map((row) => row.id),
      ),
    )
    .returning({ workspaceId: files.workspaceId, folderId: files.folderId, sizeBytes: files.sizeBytes, storageKey: files.storageKey });
  for (const row of gone) expected.set(row.workspaceId, expected.get(row.workspaceId)! - row.sizeBytes);
  for (const [workspaceId, notDeleted] of expected) await addStoredBytes(tx, workspaceId, notDeleted);
  // The folders the rows were in when deleted (a move committed meanwhile counts).
  await addToFolderCounts(
    tx,
    gone.map((row) => [row.folderId, -1] as const),
  );
  const keys = gone.flatMap((row) => (row.storageKey === null ? [] : [row.storageKey]));
  if (keys.length > 0) await tx.delete(uploads).where(inArray(uploads.key, keys));
  return keys;
}

/** Locks the row of the account that owns a workspace, as addStoredBytes would: what a writer of file rows with bytes takes first. */
export async function lockAccountOf(tx: Executor, workspaceId: string): Promise<void> {
  await tx
    .select({ id: accounts.id })
    .from(accounts)
    .where(eq(accounts.id, accountOf(workspaceId)))
    .for('no key update');
}

/**
 * Deletes every file of a workspace that is being deleted, giving their bytes back to its account: the
 * account row locked first (addStoredBytes), then the bytes of the rows the delete really removed. The
 * folders' counts are left: the workspace's folders go with it, and a file is only ever in a folder of
 * its own workspace.
 */
export async function deleteFilesOf(tx: Executor, workspaceId: string): Promise<void> {
  await lockAccountOf(tx, workspaceId);
  await tx.execute(sql`with gone as (delete from ${files} where ${files.workspaceId} = ${workspaceId} returning ${files.sizeBytes})
    update ${accounts} set stored_bytes = stored_bytes - (select coalesce(sum(size_bytes), 0) from gone)
    where ${accounts.id} = ${accountOf(workspaceId)}`);
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
