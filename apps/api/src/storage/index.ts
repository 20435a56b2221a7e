import { join } from 'node:path';
import type { Config } from '../config.js';
import { createLocalStorage } from './local.js';
import { createS3Storage } from './s3.js';
import type { ObjectStorage } from './types.js';

export { assertStorageKey, InvalidStorageKeyError } from './keys.js';
export { createLocalStorage } from './local.js';
export { createS3Storage } from './s3.js';
export type * from './types.js';

export type StorageConfig = Pick<
  Config,
  'DATA_DIR' | 'STORAGE_DRIVER' | 'S3_ENDPOINT' | 'S3_BUCKET' | 'S3_REGION' | 'S3_ACCESS_KEY_ID' | 'S3_SECRET_ACCESS_KEY' | 'S3_FORCE_PATH_STYLE'
>;

/** The configured object storage: files under DATA_DIR/storage (default) or an S3-compatible bucket. */
export function createStorage(config: StorageConfig): ObjectStorage {
  if (config.STORAGE_DRIVER === 'local') return createLocalStorage(join(config.DATA_DIR, 'storage'));
  if (!config.S3_BUCKET) throw new Error('STORAGE_DRIVER=s3 needs S3_BUCKET.');
  return createS3Storage({
    bucket: config.S3_BUCKET,
    region: config.S3_REGION,
    endpoint: config.S3_ENDPOINT,
    accessKeyId: config.S3_ACCESS_KEY_ID,
    secretAccessKey: config.S3_SECRET_ACCESS_KEY,
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
  });
}
