import type { File, FileFavoriteResult, FileList, FileMetadata, Folder, UploadResult, UploadUrl } from '@persona-api/types';
import { downloadExpiry, downloadUrl, type SigningKeys, type UploadGrant, uploadUrl, UPLOAD_URL_TTL_SECONDS } from './signing.js';
import { iso } from '../../lib/wire.js';
import type { files, folders } from './table.js';

export type FileRow = typeof files.$inferSelect;
export type FolderRow = typeof folders.$inferSelect;

/** The columns of a file row its wire form is made of (toFile); lists select only these. */
export const FILE_WIRE_COLUMNS = [
  'id',
  'workspaceId',
  'folderId',
  'name',
  'type',
  'size',
  'source',
  'storageKey',
  'url',
  'thumbnailKey',
  'metadata',
  'createdAt',
  'updatedAt',
] as const satisfies readonly (keyof FileRow)[];
export type FileWireRow = Pick<FileRow, (typeof FILE_WIRE_COLUMNS)[number]>;

/** What every link of a response is built with: the public base, the signing keys and the time of the read. */
export interface LinkContext {
  /** publicBaseUrl(config): the base of /api/v1, no trailing slash. */
  baseUrl: string;
  keys: SigningKeys;
  now: Date;
}

const unixSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** A download link valid at least one hour from this read, the same for every read in its five minutes (DECISIONS.md). */
export function signedDownloadUrl(links: LinkContext, key: string, variant: 'original' | 'thumbnail' = 'original'): string {
  return downloadUrl(links.baseUrl, links.keys, { key, variant, expires: downloadExpiry(unixSeconds(links.now)) });
}

/**
 * A file row on the wire. `folder` is the row's folder (id and name) or null; `folder_id`/`folder` and
 * `thumbnail_url` are left out when absent, as the contract's "present only when" says. Upload links are
 * signed at every read (signedDownloadUrl).
 */
export function toFile(row: FileWireRow, extra: { folder: Pick<FolderRow, 'id' | 'name'> | null; isFavorite: boolean }, links: LinkContext): File {
  const isUpload = row.storageKey !== null;
  return {
    id: row.id,
    object: 'file',
    name: row.name,
    url: isUpload ? signedDownloadUrl(links, row.storageKey!) : (row.url ?? ''),
    type: row.type,
    size: row.size,
    source: row.source as File['source'],
    workspace_id: row.workspaceId,
    ...(extra.folder ? { folder_id: extra.folder.id, folder: { id: extra.folder.id, name: extra.folder.name } } : {}),
    ...(isUpload && row.thumbnailKey !== null ? { thumbnail_url: signedDownloadUrl(links, row.storageKey!, 'thumbnail') } : {}),
    metadata: row.metadata as FileMetadata,
    is_favorite: extra.isFavorite,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

/** A folder on the wire; `files` only on GET /folders/{id} with include_files (never in lists). */
export function toFolder(row: FolderRow, extra: { fileCount: number; isFavorite: boolean; files?: FileList }): Folder {
  return {
    id: row.id,
    object: 'folder',
    name: row.name,
    workspace_id: row.workspaceId,
    file_count: extra.fileCount,
    is_shared: row.isShared,
    is_favorite: extra.isFavorite,
    ...(extra.files ? { files: extra.files } : {}),
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

/** The grant of a new upload URL issued at `now`: valid for UPLOAD_URL_TTL_SECONDS. */
export function newUploadGrant(key: string, declared: { file_type: string; file_size: number; checksum_sha256?: string | undefined }, now: Date): UploadGrant {
  return {
    key,
    expires: unixSeconds(now) + UPLOAD_URL_TTL_SECONDS,
    contentType: declared.file_type,
    size: declared.file_size,
    checksumSha256: declared.checksum_sha256 ?? null,
  };
}

/** POST /files/upload-url's answer: where to PUT, with which headers, and the ready-made POST /files body. */
export function toUploadUrl(
  grant: UploadGrant,
  request: { file_name: string; workspace_id: string; folder_id?: string | undefined },
  links: LinkContext,
): UploadUrl {
  const publicUrl = signedDownloadUrl(links, grant.key);
  return {
    object: 'upload_url',
    upload_url: uploadUrl(links.baseUrl, links.keys, grant),
    public_url: publicUrl,
    key: grant.key,
    expires_in: Math.max(1, grant.expires - unixSeconds(links.now)),
    method: 'PUT',
    headers: {
      'Content-Type': grant.contentType,
      ...(grant.checksumSha256 !== null ? { 'x-storage-checksum-sha256': grant.checksumSha256 } : {}),
    },
    next_step: {
      description: 'After the PUT succeeds, POST this body to /files to create the file record. Uploads without a record are deleted after 24 hours.',
      endpoint: '/files',
      body: {
        name: request.file_name,
        type: grant.contentType,
        url: publicUrl,
        workspace_id: request.workspace_id,
        file_size: grant.size,
        ...(request.folder_id !== undefined ? { folder_id: request.folder_id } : {}),
      },
    },
  };
}

/** PUT /uploads/{key}'s answer. */
export function toUploadResult(upload: { key: string; contentType: string }, stored: { size: number; sha256: string }, links: LinkContext): UploadResult {
  return {
    object: 'upload',
    key: upload.key,
    size: stored.size,
    content_type: upload.contentType,
    checksum_sha256: stored.sha256,
    public_url: signedDownloadUrl(links, upload.key),
  };
}

export function toFavoriteResult(fileId: string, isFavorite: boolean): FileFavoriteResult {
  return { id: fileId, is_favorite: isFavorite, message: isFavorite ? 'File added to favorites' : 'File removed from favorites' };
}
