// The chunk frames behind `frame_url` (DECISIONS.md, Video analysis frames): signed links, served without an API key.
import type { HandlerMap } from '../../contract/handler-types.js';
import { STREAMED } from '../../contract/handler-types.js';
import { errors } from '../../http/errors.js';
import type { ObjectStorage } from '../../storage/index.js';
import { downloadHeaders } from '../files/download-headers.js';
import type { LinkContext } from '../files/mappers.js';
import { downloadCacheControl, downloadExpiry, frameUrl, verifyFrame } from '../files/signing.js';
import { framesPrefix } from './jobs.js';
import { readVideoAnalysis } from './repository.js';

const unixSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** Where frame `position` of chunk `index` is stored (the job's naming). */
export const frameObjectKey = (id: string, index: number, position: number) =>
  `${framesPrefix(id)}frames/${String(index).padStart(3, '0')}_${String(position).padStart(2, '0')}.jpg`;

/** The thumbnail is written after every chunk's frames: its presence says all frames are stored. */
export const thumbnailObjectKey = (id: string) => `${framesPrefix(id)}thumbnail.jpg`;

/** A frame link per chunk index, valid at least one hour (downloadExpiry). */
export function frameLinker(links: LinkContext, analysisId: string): (chunkIndex: number) => string {
  const expires = downloadExpiry(unixSeconds(links.now));
  return (chunkIndex) => frameUrl(links.baseUrl, links.keys, { analysisId, chunkIndex, expires });
}

/** The chunk's middle frame, else the nearest stored one before it (a short last chunk has fewer frames). */
async function representativeFrame(storage: ObjectStorage, id: string, index: number, framesPerChunk: number): Promise<string | null> {
  for (let position = Math.floor(framesPerChunk / 2); position >= 0; position--) {
    const key = frameObjectKey(id, index, position);
    if (await storage.head(key)) return key;
  }
  return null;
}

export const videoAnalysisFrameHandlers = {
  downloadVideoAnalysisFrame: async ({ params, query }, ctx) => {
    const { files: settings, storage } = ctx.services;
    // The signature first: a forged link learns nothing about which analyses exist.
    const nowSeconds = unixSeconds(ctx.now());
    verifyFrame(settings.keys, { analysisId: params.id, chunkIndex: params.index, expires: query.expires }, query.signature, nowSeconds);
    const row = await readVideoAnalysis(ctx.db, params.id);
    if (!row) throw errors.notFound('video_analysis', params.id, 'id');
    const key = await representativeFrame(storage, row.id, params.index, row.framesPerChunk);
    const object = key ? await storage.get(key) : null;
    if (!object) throw errors.notFound('frame', String(params.index), 'index');
    await ctx.reply
      .code(200)
      .header('content-type', 'image/jpeg')
      .headers(downloadHeaders(`frame_${params.index}.jpg`, 'image/jpeg'))
      .header('cache-control', downloadCacheControl(query.expires, nowSeconds))
      .header('content-length', object.size)
      .send(object.body);
    return STREAMED;
  },
} satisfies Pick<HandlerMap, 'downloadVideoAnalysisFrame'>;
