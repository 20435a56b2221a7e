import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { expect, it } from 'vitest';
import { createLocalStorage } from '../../src/storage/local.js';
import { createStorage } from '../../src/storage/index.js';
import { describeStorageBehaviour } from './behaviour.js';

describeStorageBehaviour('local disk', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'persona-storage-'));
  return { storage: createLocalStorage(dir), close: () => rm(dir, { recursive: true, force: true }) };
});

it('writes under DATA_DIR/storage by default and leaves no temporary file after a failed put', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'persona-storage-'));
  try {
    const storage = await createStorage({ DATA_DIR: dir, STORAGE_DRIVER: 'local', S3_REGION: 'us-east-1', S3_FORCE_PATH_STYLE: false });
    expect(storage.kind).toBe('local');
    await storage.put('a/b.txt', Readable.from([Buffer.from('bytes')]));
    expect(await readdir(join(dir, 'storage', 'objects', 'a'))).toEqual(['b.txt']);
    const failing = Readable.from(
      (async function* () {
        yield Buffer.alloc(1024);
        throw new Error('gone');
      })(),
    );
    await expect(storage.put('a/c.txt', failing)).rejects.toThrow('gone');
    expect(await readdir(join(dir, 'storage', '.partial'))).toEqual([]);
    expect(await readdir(join(dir, 'storage', 'objects', 'a'))).toEqual(['b.txt']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
