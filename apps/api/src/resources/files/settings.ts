import type { Config } from '../../config.js';
import { publicBaseUrl } from '../../config.js';
import type { Executor } from '../../db/client.js';
import type { LinkContext } from './mappers.js';
import { deriveSigningKeys, loadSigningSecret, type SigningKeys } from './signing.js';

/**
 * What the files module needs beyond the database and storage, fixed at start: the public base its links
 * are built on, the signing keys (from UPLOAD_SIGNING_SECRET or the database, loaded once) and the ffmpeg
 * binary of the thumbnail job. `services.files` holds it, so handlers and jobs read one object.
 */
export interface FileSettings {
  baseUrl: string;
  keys: SigningKeys;
  ffmpegPath: string;
}

/** Loads the settings of a process (API server or worker); the signing secret is read or created once here. */
export async function loadFileSettings(
  db: Executor,
  config: Pick<Config, 'PUBLIC_BASE_URL' | 'PORT' | 'UPLOAD_SIGNING_SECRET' | 'FFMPEG_PATH'>,
  now: Date = new Date(),
): Promise<FileSettings> {
  const secret = await loadSigningSecret(db, config.UPLOAD_SIGNING_SECRET, now);
  return { baseUrl: publicBaseUrl(config), keys: deriveSigningKeys(secret), ffmpegPath: config.FFMPEG_PATH };
}

/** The link context of one read: links are signed afresh, valid from `now`. */
export const linksAt = (settings: FileSettings, now: Date): LinkContext => ({ baseUrl: settings.baseUrl, keys: settings.keys, now });
