import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, rmdir, stat, writeFile, readFile, unlink } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertStorageKey } from './keys.js';
import type { ByteRange, ObjectStorage, StoredObjectInfo } from './types.js';

// Partial writes live here until complete, outside the object tree, so no listing or get ever sees them.
const TEMP_DIR = '.partial';
const META_SUFFIX = '.meta.json';

/** Objects as files under `root` (DATA_DIR/objects by default); the content type in a sidecar file. */
export function createLocalStorage(root: string): ObjectStorage {
  const base = resolve(root);
  const objects = join(base, 'objects');
  const temp = join(base, TEMP_DIR);
  const meta = join(base, 'meta');
  const pathOf = (key: string) => {
    assertStorageKey(key);
    return join(objects, ...key.split('/'));
  };
  const metaOf = (key: string) => join(meta, ...key.split('/')) + META_SUFFIX;

  const info = async (key: string): Promise<StoredObjectInfo | null> => {
    const file = pathOf(key);
    let size: number;
    try {
      const stats = await stat(file);
      if (!stats.isFile()) return null;
      size = stats.size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    let contentType: string | null = null;
    try {
      contentType = (JSON.parse(await readFile(metaOf(key), 'utf8')) as { contentType: string | null }).contentType;
    } catch {
      // No sidecar: an object written without a content type.
    }
    return { size, contentType };
  };

  return {
    kind: 'local',

    async put(key, body, options = {}) {
      const target = pathOf(key);
      await mkdir(temp, { recursive: true });
      const partial = join(temp, `${randomBytes(12).toString('hex')}.part`);
      let size = 0;
      const count = async function* (source: AsyncIterable<Buffer>) {
        for await (const chunk of source) {
          size += chunk.length;
          yield chunk;
        }
      };
      try {
        await pipeline(body, count, createWriteStream(partial, { flags: 'wx' }));
        await mkdir(dirname(target), { recursive: true });
        if (options.contentType) {
          await mkdir(dirname(metaOf(key)), { recursive: true });
          await writeFile(metaOf(key), JSON.stringify({ contentType: options.contentType }));
        } else {
          await rm(metaOf(key), { force: true });
        }
        // rename() is atomic on one file system: readers see the old object or the whole new one.
        await rename(partial, target).catch(async (err: NodeJS.ErrnoException) => {
          if (err.code !== 'ENOENT') throw err;
          // A concurrent deletePrefix removed the (then empty) directory: make it again.
          await mkdir(dirname(target), { recursive: true });
          await rename(partial, target);
        });
      } catch (err) {
        await rm(partial, { force: true });
        throw err;
      }
      return { size };
    },

    async get(key, options: { range?: ByteRange } = {}) {
      const found = await info(key);
      if (!found) return null;
      const { range } = options;
      if (range) {
        if (range.start < 0 || range.end < range.start || range.start >= found.size)
          throw new RangeError(`Range ${range.start}-${range.end} is outside the object (${found.size} bytes).`);
        const end = Math.min(range.end, found.size - 1);
        return { ...found, size: end - range.start + 1, body: createReadStream(pathOf(key), { start: range.start, end }) };
      }
      return { ...found, body: createReadStream(pathOf(key)) as Readable };
    },

    head: info,

    async delete(key) {
      await rm(pathOf(key), { force: true });
      await rm(metaOf(key), { force: true });
    },

    async deletePrefix(prefix) {
      assertStorageKey(prefix, { prefix: true });
      for (const tree of [objects, meta]) {
        const suffix = tree === meta ? META_SUFFIX : '';
        const startDir = join(tree, ...prefix.split('/').slice(0, -1));
        const namePrefix = prefix.split('/').at(-1) ?? '';
        let entries: string[];
        try {
          entries = (await readdir(startDir, { recursive: true })).map(String);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
          throw err;
        }
        for (const entry of entries) {
          if (!entry.startsWith(namePrefix)) continue;
          const full = join(startDir, entry);
          if (!full.startsWith(tree + sep)) continue;
          const stats = await stat(full).catch(() => null);
          if (stats?.isFile() && (!suffix || full.endsWith(suffix))) await unlink(full).catch(() => {});
        }
        await removeEmptyDirs(startDir, tree);
      }
    },

    async ping() {
      await mkdir(objects, { recursive: true });
    },

    async close() {},
  };
}

/** Removes empty directories under `dir` (and `dir` itself, up to but not including `stop`). */
async function removeEmptyDirs(dir: string, stop: string): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => null);
  if (!entries) return;
  for (const entry of entries) if (entry.isDirectory()) await removeEmptyDirs(join(dir, entry.name), stop);
  if (dir !== stop) await rmdir(dir).catch(() => {});
}
