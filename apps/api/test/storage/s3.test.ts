import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { createS3Storage } from '../../src/storage/s3.js';
import { describeStorageBehaviour } from './behaviour.js';

// s3rver 3.7.1 (in-process, on an ephemeral port) stands in for S3: it speaks the REST API the
// backend uses (Put/Get/Head/Delete, ranges, list, batch delete, multipart) but checks no checksums.
describeStorageBehaviour('S3 (s3rver)', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'persona-s3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: 'persona-test' }] });
  const { port } = await server.run();
  const storage = createS3Storage({
    bucket: 'persona-test',
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${port}`,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    forcePathStyle: true,
    partSize: 5 * 1024 * 1024,
  });
  return {
    storage,
    close: async () => {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
});
