import { and, eq } from 'drizzle-orm';
import type { HandlerMap } from '../../contract/handler-types.js';
import type { Executor } from '../../db/client.js';
import { apiError, errors } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import { applyPatch, deleteInTransaction, patchInTransaction } from '../../lib/patch.js';
import { requireMembership, requireRole } from '../../workspaces/access.js';
import { FILE_JOBS, UNRECORDED_UPLOAD_TTL_MS } from './jobs.js';
import { newUploadKey } from './keys.js';
import { newUploadGrant, toFavoriteResult, toUploadUrl, type FileRow } from './mappers.js';
import {
  checkStorageQuota,
  deleteFileRowsOf,
  fileToWire,
  findFile,
  findUpload,
  includedStorage,
  insertFileRow,
  listFilesOf,
  storedBytes,
  targetFolder,
  updateFileRow,
} from './repository.js';
import { linksAt } from './settings.js';
import { ownUploadKey } from './signing.js';
import { mediaTypeEssence } from './sniff.js';
import { fileFavorites, uploads } from './table.js';
import { thumbnailKind } from './thumbnails.js';
import { uploadHandlers } from './uploads.js';

/** DECISIONS.md: a file that is not a video is at most 10 MiB. */
const MAX_REGULAR_FILE_BYTES = 10 * 1024 * 1024;

/** Deletes file rows with their upload rows and queues the deletion of their bytes, in the caller's transaction. */
export async function deleteFileRows(
  tx: Executor,
  enqueue: (tx: Executor, keys: string[]) => Promise<unknown>,
  rows: Pick<FileRow, 'id' | 'workspaceId' | 'sizeBytes'>[],
): Promise<void> {
  const keys = await deleteFileRowsOf(tx, rows);
  if (keys.length > 0) await enqueue(tx, keys);
}

export const fileHandlers = {
  ...uploadHandlers,

  createUploadUrl: async ({ body }, ctx) => {
    const membership = await requireMembership(ctx.db, body.workspace_id, ctx.auth.userId, 'workspace_id');
    requireRole(membership.role, 'content.create', 'upload files to this workspace');
    if (!mediaTypeEssence(body.file_type).startsWith('video/') && body.file_size > MAX_REGULAR_FILE_BYTES) {
      throw apiError(
        'file_too_large',
        `A ${body.file_type} file may be at most ${MAX_REGULAR_FILE_BYTES} bytes (10 MiB); only video/* files may be up to 2 GiB.`,
        'file_size',
      );
    }
    if (body.folder_id !== undefined) await targetFolder(ctx.db, ctx.auth.userId, body.folder_id, body.workspace_id);
    const [included, used] = await Promise.all([includedStorage(ctx.db, ctx.auth.accountId, { lock: false }), storedBytes(ctx.db, ctx.auth.accountId)]);
    checkStorageQuota(used, body.file_size, included, 'file_size');
    const now = ctx.now();
    const grant = newUploadGrant(newUploadKey(body.file_name), body, now);
    await ctx.db.insert(uploads).values({
      key: grant.key,
      workspaceId: body.workspace_id,
      folderId: body.folder_id ?? null,
      createdByUserId: ctx.auth.userId,
      fileName: body.file_name,
      contentType: body.file_type,
      declaredSize: body.file_size,
      declaredChecksumSha256: body.checksum_sha256 ?? null,
      expiresAt: new Date(grant.expires * 1000),
      createdAt: now,
    });
    return toUploadUrl(grant, body, linksAt(ctx.services.files, now));
  },

  createFile: async ({ body }, ctx) => {
    const { userId, accountId } = ctx.auth;
    const membership = await requireMembership(ctx.db, body.workspace_id, userId, 'workspace_id');
    requireRole(membership.role, 'content.create', 'create files in this workspace');
    const source = body.source ?? 'upload';
    const now = ctx.now();
    const settings = ctx.services.files;
    const row = await ctx.db.transaction(async (tx) => {
      const base = {
        id: newId('file'),
        workspaceId: body.workspace_id,
        createdByUserId: userId,
        name: body.name,
        type: body.type,
        source,
        metadata: body.metadata ?? {},
        thumbnailKey: null,
        createdAt: now,
        updatedAt: now,
      };
      if (source !== 'upload') {
        if (!body.url.startsWith('https://')) throw errors.invalidParameter('url', `A ${source} reference must be an https:// link.`);
        const folderId = body.folder_id ? (await targetFolder(tx, userId, body.folder_id, body.workspace_id)).id : null;
        const reference: FileRow = { ...base, folderId, size: body.file_size ?? null, sizeBytes: 0, storageKey: null, url: body.url, checksumSha256: null };
        await insertFileRow(tx, reference);
        return reference;
      }
      if (body.file_size === undefined)
        throw errors.missingParameter('file_size', 'file_size is required for an uploaded file: the number of bytes the PUT stored.');
      const key = ownUploadKey(settings.baseUrl, body.url);
      const notFound = apiError(
        'upload_not_found',
        'url is not the public_url of a completed upload in this workspace: call POST /files/upload-url, PUT the bytes, then record its public_url.',
        'url',
      );
      if (key === null) throw notFound;
      // The account row first: two records racing for the last bytes of the quota run one after the other.
      const included = await includedStorage(tx, accountId, { lock: true });
      const upload = await findUpload(tx, key, true);
      if (
        !upload ||
        upload.workspaceId !== body.workspace_id ||
        upload.uploadedAt === null ||
        now.getTime() - upload.createdAt.getTime() > UNRECORDED_UPLOAD_TTL_MS
      )
        throw notFound;
      if (upload.fileId !== null) throw errors.conflict('duplicate_resource', 'This upload is already recorded as a file.', 'url');
      if (upload.storedSize !== body.file_size)
        throw errors.invalidParameter('file_size', `file_size must be ${upload.storedSize}, the number of bytes uploaded.`);
      if (mediaTypeEssence(body.type) !== mediaTypeEssence(upload.contentType))
        throw errors.invalidParameter('type', `type must be ${upload.contentType}, the type the bytes were uploaded as.`);
      checkStorageQuota(await storedBytes(tx, accountId), upload.declaredSize, included, 'file_size');
      // Omitted: the folder given at upload-url time; null: no folder.
      const folderId =
        body.folder_id === undefined
          ? upload.folderId
          : body.folder_id === null
            ? null
            : (await targetFolder(tx, userId, body.folder_id, body.workspace_id)).id;
      const file: FileRow = {
        ...base,
        folderId,
        size: upload.storedSize,
        sizeBytes: upload.storedSize,
        storageKey: key,
        url: null,
        checksumSha256: upload.checksumSha256,
      };
      await insertFileRow(tx, file);
      await tx.update(uploads).set({ fileId: file.id }).where(eq(uploads.key, key));
      if (thumbnailKind(file.type) !== null) await ctx.services.jobs.enqueue(tx, FILE_JOBS.thumbnail, { fileId: file.id }, { singletonKey: file.id });
      return file;
    });
    const folderName = row.folderId === null ? null : ((await targetFolder(ctx.db, userId, row.folderId, row.workspaceId).catch(() => null))?.name ?? null);
    return fileToWire({ file: row, folderName, isFavorite: false }, linksAt(settings, now));
  },

  listFiles: async ({ query }, ctx) => {
    if (query.workspace_id) await requireMembership(ctx.db, query.workspace_id, ctx.auth.userId, 'workspace_id');
    return listFilesOf(ctx.db, ctx.auth.userId, query, linksAt(ctx.services.files, ctx.now()));
  },

  getFile: async ({ params }, ctx) => fileToWire(await findFile(ctx.db, ctx.auth.userId, params.id), linksAt(ctx.services.files, ctx.now())),

  updateFile: async ({ params, body }, ctx) => {
    const userId = ctx.auth.userId;
    let folderName: string | null = null;
    const { found, next } = await patchInTransaction(ctx.db, {
      find: async (tx) => {
        const current = await findFile(tx, userId, params.id);
        requireRole(current.role, 'content.update', 'update files in this workspace');
        folderName = current.folderName;
        // A move needs a target the caller sees, in the file's workspace.
        if (typeof body.folder_id === 'string') folderName = (await targetFolder(tx, userId, body.folder_id, current.file.workspaceId)).name;
        return current;
      },
      authorize: () => {},
      merge: (current): FileRow => ({ ...applyPatch(current.file, body, { name: 'name', folder_id: 'folderId', metadata: 'metadata' }), updatedAt: ctx.now() }),
      save: async (tx, next) => {
        await updateFileRow(tx, next, { moved: body.folder_id !== undefined });
      },
    });
    return fileToWire(
      { file: next, folderName: next.folderId === null ? null : folderName, isFavorite: found.isFavorite },
      linksAt(ctx.services.files, ctx.now()),
    );
  },

  deleteFile: async ({ params }, ctx) =>
    deleteInTransaction(ctx.db, { object: 'file', id: params.id }, async (tx) => {
      const current = await findFile(tx, ctx.auth.userId, params.id);
      requireRole(current.role, 'content.delete', 'delete files in this workspace');
      await deleteFileRows(tx, (t, keys) => ctx.services.jobs.enqueue(t, FILE_JOBS.deleteBytes, { keys }), [current.file]);
    }),

  toggleFileFavorite: async ({ params }, ctx) => {
    const userId = ctx.auth.userId;
    const isFavorite = await ctx.db.transaction(async (tx) => {
      await findFile(tx, userId, params.id);
      const removed = await tx
        .delete(fileFavorites)
        .where(and(eq(fileFavorites.userId, userId), eq(fileFavorites.fileId, params.id)))
        .returning({ fileId: fileFavorites.fileId });
      if (removed.length > 0) return false;
      await tx.insert(fileFavorites).values({ userId, fileId: params.id, createdAt: ctx.now() }).onConflictDoNothing();
      return true;
    });
    return toFavoriteResult(params.id, isFavorite);
  },
} satisfies Pick<
  HandlerMap,
  'createUploadUrl' | 'uploadFileContent' | 'downloadFileContent' | 'createFile' | 'listFiles' | 'getFile' | 'updateFile' | 'deleteFile' | 'toggleFileFavorite'
>;
