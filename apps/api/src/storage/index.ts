import { join } from 'node:path';
import type { Config } from '../config.js';
import { createLocalStorage } from './local.js';
import type { ObjectStorage } from './types.js';

export { assertStorageKey, InvalidStorageKeyError } from './keys.js';
export { createLocalStorage } from './local.js';
export type * from './types.js';

export type StorageConfig = Pick<
  Config,
  'DATA_DIR' | 'STORAGE_DRIVER' | 'S3_ENDPOINT' | 'S3_BUCKET' | 'S3_REGION' | 'S3_ACCESS_KEY_ID' | 'S3_SECRET_ACCESS_KEY' | 'S3_FORCE_PATH_STYLE'
>;

/**
 * The configured object storage: files under DATA_DIR/storage (default) or an S3-compatible bucket. The AWS
 * SDK is imported only for the bucket (bench/README.md, "Cold start").
 */
export async function createStorage(config: StorageConfig): Promise<ObjectStorage> {
  if (config.STORAGE_DRIVER === 'local') return createLocalStorage(join(config.DATA_DIR, 'storage'));
  if (!config.S3_BUCKET) throw new Error('STORAGE_DRIVER=s3 needs S3_BUCKET.');
  const { createS3Storage } = await import('./s3.js');
  return createS3Storage({
    bucket: config.S3_BUCKET,
    region: config.S3_REGION,
    endpoint: config.S3_ENDPOINT,
    accessKeyId: config.S3_ACCESS_KEY_ID,
    secretAccessKey: config.S3_SECRET_ACCESS_KEY,
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
  });
}
