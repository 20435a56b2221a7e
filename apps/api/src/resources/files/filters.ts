import { and, eq, exists, ilike, isNull, not, or, sql, type SQL } from 'drizzle-orm';
import { containsPattern } from '../../lib/pagination.js';
import { fileFavorites, files, folderFavorites, folders } from './table.js';

/**
 * Folder visibility (DECISIONS.md, Folders): a shared folder is seen by every member of its workspace,
 * a private one only by its creator. Workspace membership itself is the shared membership helper's part.
 */
export function folderVisibleTo(userId: string): SQL {
  return or(eq(folders.isShared, true), eq(folders.createdByUserId, userId))!;
}

/** A file is visible unless it sits in another member's private folder. */
export function fileVisibleTo(userId: string): SQL {
  const inVisibleFolder = sql`select 1 from ${folders} where ${folders.id} = ${files.folderId} and (${folderVisibleTo(userId)})`;
  return or(isNull(files.folderId), exists(inVisibleFolder))!;
}

/** `is_favorite` of each file row for the caller, as a selectable boolean. */
export function fileIsFavorite(userId: string): SQL<boolean> {
  return sql<boolean>`exists (select 1 from ${fileFavorites} where ${fileFavorites.fileId} = ${files.id} and ${fileFavorites.userId} = ${userId})`;
}

export function folderIsFavorite(userId: string): SQL<boolean> {
  return sql<boolean>`exists (select 1 from ${folderFavorites} where ${folderFavorites.folderId} = ${folders.id} and ${folderFavorites.userId} = ${userId})`;
}

/** Files of a folder, for `file_count` (selectable next to a folder row). */
export function folderFileCount(): SQL<number> {
  return sql<number>`(select count(*)::int from ${files} where ${files.folderId} = ${folders.id})`.mapWith(Number);
}

/**
 * GET /files `type`: a case-insensitive MIME prefix (DECISIONS.md). A top-level type alone (`image`) means
 * `image/`, so `image` never matches `imagex/…`; `%` and `_` are literal.
 */
export function typePrefixCondition(type: string): SQL {
  const lowered = type.toLowerCase();
  const prefix = lowered.includes('/') ? lowered : `${lowered}/`;
  const escaped = prefix.replace(/[\\%_]/g, (c) => `\\${c}`);
  return sql`lower(${files.type}) like ${`${escaped}%`}`;
}

/** GET /files query filters (the contract's parameters, already validated). */
export interface FileListFilters {
  /** A folder id, or `none` for files in no folder. */
  folder_id?: string | undefined;
  is_favorite?: boolean | undefined;
  type?: string | undefined;
  search?: string | undefined;
}

/**
 * The WHERE conditions of GET /files for the caller, beside the workspace membership condition and the
 * keyset: folder visibility always, then each filter given. Combine with `and(...)`.
 */
export function fileListConditions(userId: string, filters: FileListFilters): SQL[] {
  const conditions: SQL[] = [fileVisibleTo(userId)];
  if (filters.folder_id === 'none') conditions.push(isNull(files.folderId));
  else if (filters.folder_id !== undefined) conditions.push(eq(files.folderId, filters.folder_id));
  if (filters.is_favorite !== undefined) {
    const favorite = exists(sql`select 1 from ${fileFavorites} where ${fileFavorites.fileId} = ${files.id} and ${fileFavorites.userId} = ${userId}`);
    conditions.push(filters.is_favorite ? favorite : not(favorite));
  }
  if (filters.type !== undefined) conditions.push(typePrefixCondition(filters.type));
  if (filters.search !== undefined && filters.search !== '') conditions.push(ilike(files.name, containsPattern(filters.search)));
  return conditions;
}

/** GET /folders filters beside the workspace: visibility, then `is_favorite` and `search`. */
export function folderListConditions(userId: string, filters: { is_favorite?: boolean | undefined; search?: string | undefined }): SQL[] {
  const conditions: SQL[] = [folderVisibleTo(userId)];
  if (filters.is_favorite !== undefined) {
    const favorite = exists(sql`select 1 from ${folderFavorites} where ${folderFavorites.folderId} = ${folders.id} and ${folderFavorites.userId} = ${userId}`);
    conditions.push(filters.is_favorite ? favorite : not(favorite));
  }
  if (filters.search !== undefined && filters.search !== '') conditions.push(ilike(folders.name, containsPattern(filters.search)));
  return conditions;
}

/** Convenience for callers that want one condition. */
export const allOf = (conditions: SQL[]): SQL | undefined => and(...conditions);
