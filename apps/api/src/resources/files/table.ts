import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { timestampMs } from '../../db/schema/columns.js';
import { users } from '../../db/schema/tenancy.js';
import { workspaces } from '../workspaces/table.js';

/** `File.metadata` as stored: at most 50 keys, values a string, number or boolean (DECISIONS.md). */
export type FileMetadataValue = string | number | boolean;

/**
 * Folders are flat (DECISIONS.md, Folders). A folder that is not shared is visible only to its creator;
 * a creator who leaves the account (user row deleted) leaves a private folder only owners and managers
 * can still change or delete.
 */
export const folders = pgTable(
  'folders',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    createdByUserId: text('created_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    name: text('name').notNull(),
    isShared: boolean('is_shared').notNull().default(false),
    // Rows of `files` in this folder (pending uploads do not count): kept by relative increments in the
    // transaction of every write that puts a file in or takes it out (DECISIONS.md, Counters).
    fileCount: integer('file_count').notNull().default(0),
    createdAt: timestampMs('created_at').notNull(),
    updatedAt: timestampMs('updated_at').notNull(),
  },
  // The list's keyset order within a workspace.
  (t) => [index('folders_workspace_idx').on(t.workspaceId, t.createdAt, t.id)],
);

/**
 * File records: uploads (bytes in object storage under `storage_key`) and references to files kept by
 * another service (`url`). `size_bytes` is what storage usage sums (GET /usage, the quota): the upload's
 * size, 0 for a reference; `size` is the wire `File.size`, null for a reference recorded without one.
 */
export const files = pgTable(
  'files',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    // Deleting a folder leaves its files in no folder unless the handler deletes them first.
    folderId: text('folder_id').references(() => folders.id, { onDelete: 'set null' }),
    createdByUserId: text('created_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    name: text('name').notNull(),
    // The MIME type as recorded; filters compare lower(type). The default only covers rows written
    // before this column existed (and fixtures that do not care); handlers always set it.
    type: text('type').notNull().default('application/octet-stream'),
    source: text('source').notNull().default('upload'),
    sizeBytes: bigint('size_bytes', { mode: 'number' }).notNull(),
    size: bigint('size', { mode: 'number' }),
    // Uploads: the `upl_…` key (objects at uploads/{key}); references: null.
    storageKey: text('storage_key'),
    // References: the provider's https link; uploads: null (links are signed on each read).
    url: text('url'),
    // Base64 SHA-256 of the stored bytes (uploads only).
    checksumSha256: text('checksum_sha256'),
    // Set once the thumbnail job has stored one (images and videos only).
    thumbnailKey: text('thumbnail_key'),
    metadata: jsonb('metadata').$type<Record<string, FileMetadataValue>>().notNull().default({}),
    createdAt: timestampMs('created_at').notNull(),
    updatedAt: timestampMs('updated_at').notNull(),
  },
  (t) => [
    index('files_workspace_idx').on(t.workspaceId, t.createdAt, t.id),
    // GET /folders/{id} pages, `folder_id=` filters and the recount of file_count (reconcileCounts).
    index('files_folder_idx').on(t.folderId, t.createdAt, t.id),
    // GET /files?folder_id= (a folder or `none`) per workspace of the caller (pageAcrossWorkspaces).
    index('files_workspace_folder_idx').on(t.workspaceId, t.folderId, t.createdAt, t.id).concurrently(),
    // One record per upload (409 duplicate_resource on the second POST /files).
    uniqueIndex('files_storage_key_key').on(t.storageKey),
  ],
);

/**
 * Issued upload URLs and what their PUT stored. A row lives from POST /files/upload-url until its file
 * is deleted, or 24 hours after issue when it got no record (the cleanup job deletes row and bytes).
 */
export const uploads = pgTable(
  'uploads',
  {
    // `upl_` + random + extension: the storage key and the path segment of /uploads/{key}.
    key: text('key').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    // The folder given at upload-url time: POST /files uses it when its body has no folder_id.
    folderId: text('folder_id').references(() => folders.id, { onDelete: 'set null' }),
    createdByUserId: text('created_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    fileName: text('file_name').notNull(),
    // What the URL was signed for.
    contentType: text('content_type').notNull(),
    declaredSize: bigint('declared_size', { mode: 'number' }).notNull(),
    declaredChecksumSha256: text('declared_checksum_sha256'),
    expiresAt: timestampMs('expires_at').notNull(),
    // Set by a completed PUT (a repeated PUT replaces them).
    uploadedAt: timestampMs('uploaded_at'),
    storedSize: bigint('stored_size', { mode: 'number' }),
    checksumSha256: text('checksum_sha256'),
    // Set by POST /files; a recorded upload refuses another PUT (409 invalid_state).
    fileId: text('file_id'),
    createdAt: timestampMs('created_at').notNull(),
  },
  (t) => [
    index('uploads_workspace_idx').on(t.workspaceId),
    // The cleanup job's scan: unrecorded uploads by age.
    index('uploads_unrecorded_idx').on(t.createdAt).where(sql`${t.fileId} is null`),
  ],
);

/** Per-user favorites (DECISIONS.md: a favorite is a personal bookmark). */
export const fileFavorites = pgTable(
  'file_favorites',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    fileId: text('file_id')
      .notNull()
      .references(() => files.id, { onDelete: 'cascade' }),
    createdAt: timestampMs('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.fileId] }), index('file_favorites_file_idx').on(t.fileId)],
);

export const folderFavorites = pgTable(
  'folder_favorites',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    folderId: text('folder_id')
      .notNull()
      .references(() => folders.id, { onDelete: 'cascade' }),
    createdAt: timestampMs('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.folderId] }), index('folder_favorites_folder_idx').on(t.folderId)],
);

/**
 * Secrets the server makes for itself once and shares through the database, so every instance on one
 * database signs alike and links survive restarts (the upload signing secret when UPLOAD_SIGNING_SECRET
 * is unset).
 */
export const serverSecrets = pgTable('server_secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: timestampMs('created_at').notNull(),
});
