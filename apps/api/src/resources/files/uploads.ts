import type { Readable } from 'node:stream';
import { and, eq, isNull } from 'drizzle-orm';
import type { HandlerMap } from '../../contract/handler-types.js';
import { STREAMED } from '../../contract/handler-types.js';
import { apiError, errors } from '../../http/errors.js';
import { downloadHeaders } from './download-headers.js';
import { UNRECORDED_UPLOAD_TTL_MS } from './jobs.js';
import { uploadObjectKey } from './keys.js';
import { toUploadResult } from './mappers.js';
import { CHECKSUM_HEADER, expectedChecksum, storeUpload } from './pipeline.js';
import { contentRange, parseRange } from './range.js';
import { findUpload } from './repository.js';
import { linksAt } from './settings.js';
import { downloadCacheControl, verifyDownload, verifyUpload } from './signing.js';
import { mediaTypeEssence } from './sniff.js';
import { files, uploads } from './table.js';

const unixSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

// An unknown key cannot be told from a forged link: the same 401 as a bad signature.
const unknownUpload = () =>
  apiError('invalid_upload_signature', 'The upload URL signature does not match this request. Request a new one with POST /files/upload-url.', 'signature');
const noSuchObject = (key: string) => errors.notFound('upload', key, 'key');
const recordedAlready = () =>
  errors.conflict('invalid_state', 'This upload is already recorded as a file (POST /files); its bytes cannot change. Upload a new file instead.');

/** The signed upload target (PUT) and download route (GET) of /uploads/{key}: no API key, the link authorises. */
export const uploadHandlers = {
  uploadFileContent: async ({ params, query, headers, body }, ctx) => {
    const { files: settings, storage } = ctx.services;
    const upload = await findUpload(ctx.db, params.key);
    if (!upload) throw unknownUpload();
    // The signature covers the declared type: checked against the row, so a wrong Content-Type is a 400, not a 401.
    verifyUpload(
      settings.keys,
      { key: upload.key, expires: query.expires, contentType: upload.contentType, size: upload.declaredSize, checksumSha256: upload.declaredChecksumSha256 },
      query.signature,
      unixSeconds(ctx.now()),
    );
    const contentType = ctx.request.headers['content-type'] ?? '';
    if (mediaTypeEssence(contentType) !== mediaTypeEssence(upload.contentType)) {
      throw errors.invalidParameter('Content-Type', `Send Content-Type: ${upload.contentType}, the type the upload URL was issued for.`);
    }
    if (upload.fileId !== null) throw recordedAlready();
    const checksum = expectedChecksum(upload.declaredChecksumSha256, headers[CHECKSUM_HEADER]);
    // A Content-Length that cannot match is refused before a byte is read.
    const declaredLength = Number(ctx.request.headers['content-length'] ?? Number.NaN);
    if (declaredLength > upload.declaredSize) {
      throw apiError(
        'request_too_large',
        `The body is longer than the ${upload.declaredSize} bytes the upload URL was issued for. Nothing was stored.`,
        'Content-Length',
      );
    }
    if (declaredLength < upload.declaredSize) {
      throw errors.invalidParameter(
        'Content-Length',
        `Content-Length is ${declaredLength} but the upload URL was issued for ${upload.declaredSize} bytes. Nothing was stored.`,
      );
    }
    // While bytes stream the upload counts as not uploaded, so POST /files cannot record it meanwhile and
    // then see its object replaced (it locks the row: whichever comes first wins). A failed PUT leaves
    // it so until a PUT succeeds.
    const unrecorded = and(eq(uploads.key, upload.key), isNull(uploads.fileId));
    const claimed = await ctx.db
      .update(uploads)
      .set({ uploadedAt: null, storedSize: null, checksumSha256: null })
      .where(unrecorded)
      .returning({ key: uploads.key });
    if (claimed.length === 0) throw recordedAlready();
    const stored = await storeUpload(
      body as unknown as Readable,
      { expectedSize: upload.declaredSize, expectedSha256: checksum, declaredType: upload.contentType },
      storage,
      uploadObjectKey(upload.key),
    );
    await ctx.db.update(uploads).set({ uploadedAt: ctx.now(), storedSize: stored.size, checksumSha256: stored.sha256 }).where(unrecorded);
    return toUploadResult(upload, stored, linksAt(settings, ctx.now()));
  },

  downloadFileContent: async ({ params, query }, ctx) => {
    const { files: settings, storage } = ctx.services;
    const now = ctx.now();
    const variant = query.variant ?? 'original';
    verifyDownload(settings.keys, { key: params.key, variant, expires: query.expires }, query.signature, unixSeconds(now));
    const upload = await findUpload(ctx.db, params.key);
    // Not uploaded yet, deleted, or an unrecorded upload past its 24 hours: the same 404.
    if (!upload || upload.uploadedAt === null || (upload.fileId === null && now.getTime() - upload.createdAt.getTime() > UNRECORDED_UPLOAD_TTL_MS)) {
      throw noSuchObject(params.key);
    }
    let objectKey = uploadObjectKey(upload.key);
    let contentType = upload.contentType;
    if (variant === 'thumbnail') {
      const [file] = upload.fileId === null ? [] : await ctx.db.select({ thumbnailKey: files.thumbnailKey }).from(files).where(eq(files.id, upload.fileId));
      if (!file?.thumbnailKey) throw noSuchObject(params.key);
      objectKey = file.thumbnailKey;
      contentType = 'image/jpeg';
    }
    const info = await storage.head(objectKey);
    if (!info) throw noSuchObject(params.key);
    const range = parseRange(ctx.request.headers.range, info.size);
    if (range === 'unsatisfiable') {
      throw apiError('range_not_satisfiable', `The range is outside the object (${info.size} bytes).`, 'Range', { 'content-range': contentRange(info.size) });
    }
    const object = await storage.get(objectKey, range ? { range } : {});
    if (!object) throw noSuchObject(params.key);
    const reply = ctx.reply
      .code(range ? 206 : 200)
      .header('content-type', contentType)
      .headers(downloadHeaders(params.key, contentType))
      .header('cache-control', downloadCacheControl(query.expires, unixSeconds(now)))
      .header('accept-ranges', 'bytes')
      .header('content-length', range ? range.end - range.start + 1 : info.size);
    if (range) reply.header('content-range', contentRange(info.size, range));
    await reply.send(object.body);
    return STREAMED;
  },
} satisfies Pick<HandlerMap, 'uploadFileContent' | 'downloadFileContent'>;
