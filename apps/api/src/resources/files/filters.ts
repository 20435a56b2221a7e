import { eq, ilike, isNull, not, sql, type AnyColumn, type Placeholder, type SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { containsPattern } from '../../lib/pagination.js';
import { CALLER } from '../../db/scoped.js';
import { fileFavorites, files, folderFavorites, folders } from './table.js';

/**
 * A column qualified by its table name. Drizzle prints bare column names inside `sql` used as a selected
 * field, which inside a correlated subquery would bind to the wrong table.
 */
const q = (table: PgTable, column: AnyColumn): SQL => sql`${table}.${sql.identifier(column.name)}`;

/**
 * Folder visibility (DECISIONS.md, Folders): a shared folder is seen by every member of its workspace,
 * a private one only by its creator. Workspace membership itself is the shared membership helper's part.
 */
export function folderVisibleTo(userId: string | Placeholder): SQL {
  return sql`(${q(folders, folders.isShared)} or ${q(folders, folders.createdByUserId)} = ${userId})`;
}

/**
 * A file is visible unless it sits in another member's private folder. The folder is looked up per file
 * row by primary key (a scalar subquery): written as `exists`, the planner may hash every folder shared
 * with anyone, of every tenant, for each list (a sequential scan of folders).
 */
export function fileVisibleTo(userId: string | Placeholder): SQL {
  return sql`(${q(files, files.folderId)} is null or coalesce((select ${folderVisibleTo(userId)} from ${folders} where ${q(folders, folders.id)} = ${q(files, files.folderId)}), false))`;
}

/**
 * GET /files `is_favorite=true`: the files among the caller's favorites, read from their favorites by primary
 * key (user_id, file_id) as an array, so the list costs what the caller bookmarked, never a walk of the
 * workspace's files looking for favorites (the planner cannot size an array: it looks the ids up).
 */
export function fileIsFavoriteOf(userId: string | Placeholder): SQL {
  return sql`${q(files, files.id)} = any(array(select ${q(fileFavorites, fileFavorites.fileId)} from ${fileFavorites} where ${q(fileFavorites, fileFavorites.userId)} = ${userId}))`;
}

/**
 * `is_favorite` of each file row for the caller, as a selectable boolean, and negated the `is_favorite=false`
 * filter: the favorite looked up per file row by primary key, as a scalar subquery. As `not exists`, the
 * planner hashes all of the caller's favorites into an anti join, which gives up the index's order: each
 * workspace's files are all read and sorted instead of walked until a page is found.
 */
export function fileIsFavorite(userId: string | Placeholder): SQL<boolean> {
  return sql<boolean>`coalesce((select true from ${fileFavorites} where ${q(fileFavorites, fileFavorites.userId)} = ${userId} and ${q(fileFavorites, fileFavorites.fileId)} = ${q(files, files.id)}), false)`;
}

export function folderIsFavorite(userId: string | Placeholder): SQL<boolean> {
  return sql<boolean>`exists (select 1 from ${folderFavorites} where ${q(folderFavorites, folderFavorites.folderId)} = ${q(folders, folders.id)} and ${q(folderFavorites, folderFavorites.userId)} = ${userId})`;
}

/**
 * GET /files `type`: a case-insensitive MIME prefix (DECISIONS.md). A top-level type alone (`image`) means
 * `image/`, so `image` never matches `imagex/…`; `%` and `_` are literal.
 */
export function typePrefixPattern(type: string): string {
  const lowered = type.toLowerCase();
  const prefix = lowered.includes('/') ? lowered : `${lowered}/`;
  return `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
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
 * The values of GET /files' statement (kept per shape, lib/pagination.ts): each filter given, under the
 * name of its placeholder in fileListConditions. A favorites filter names the caller again under its
 * own name, and files in no folder have a statement name of their own, so every shape has its own names.
 */
export function fileListValues(userId: string, filters: FileListFilters & { workspace_id?: string | undefined }) {
  return {
    user_id: userId,
    workspace_id: filters.workspace_id,
    folder_id: filters.folder_id === 'none' ? undefined : filters.folder_id,
    favorites_of: filters.is_favorite === true ? userId : undefined,
    not_favorites_of: filters.is_favorite === false ? userId : undefined,
    type_prefix: filters.type === undefined ? undefined : typePrefixPattern(filters.type),
    search: filters.search ? containsPattern(filters.search) : undefined,
  };
}

/**
 * The WHERE conditions of GET /files for the caller, beside the workspace membership condition and the
 * keyset: folder visibility always, then each filter given, as placeholders of fileListValues. Combine
 * with `and(...)`.
 */
export function fileListConditions(filters: FileListFilters & { workspace_id?: string | undefined }): SQL[] {
  const value = (name: keyof ReturnType<typeof fileListValues>) => sql.placeholder(name);
  const conditions: SQL[] = [fileVisibleTo(CALLER)];
  if (filters.workspace_id !== undefined) {
    // With the favorites, compared as an expression no index holds: as `workspace_id = $1` the planner
    // intersects the favorites with the workspace's whole index (a bitmap of every file there).
    conditions.push(
      filters.is_favorite === true ? sql`${q(files, files.workspaceId)} || '' = ${value('workspace_id')}` : eq(files.workspaceId, value('workspace_id')),
    );
  }
  if (filters.folder_id === 'none') conditions.push(isNull(files.folderId));
  else if (filters.folder_id !== undefined) conditions.push(eq(files.folderId, value('folder_id')));
  if (filters.is_favorite === true) conditions.push(fileIsFavoriteOf(value('favorites_of')));
  if (filters.is_favorite === false) conditions.push(not(fileIsFavorite(value('not_favorites_of'))));
  if (filters.type !== undefined) conditions.push(sql`lower(${q(files, files.type)}) like ${value('type_prefix')}`);
  if (filters.search) conditions.push(ilike(files.name, value('search')));
  return conditions;
}

/** The values of GET /folders' statement beside the workspace, under the names folderListConditions uses. */
export function folderListValues(userId: string, filters: { search?: string | undefined }) {
  return { user_id: userId, search: filters.search ? containsPattern(filters.search) : undefined };
}

/** GET /folders filters beside the workspace: visibility, then `is_favorite` and `search`, as placeholders of folderListValues. */
export function folderListConditions(filters: { is_favorite?: boolean | undefined; search?: string | undefined }): SQL[] {
  const conditions: SQL[] = [folderVisibleTo(CALLER)];
  if (filters.is_favorite !== undefined) {
    const favorite = folderIsFavorite(CALLER);
    conditions.push(filters.is_favorite ? favorite : not(favorite));
  }
  if (filters.search) conditions.push(ilike(folders.name, sql.placeholder('search')));
  return conditions;
}
