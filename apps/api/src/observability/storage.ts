import type { ObjectStorage } from '../storage/types.js';
import { storageBytes } from './metrics.js';
import { inSpan } from './tracing.js';

const observed = new WeakSet<ObjectStorage>();

/**
 * Object storage with its bytes counted (in: what `put` wrote; out: the size of what `get` returned, a
 * range's length for a range) and a span per write and read inside a traced request or job.
 */
export function observedStorage(storage: ObjectStorage): ObjectStorage {
  if (observed.has(storage)) return storage;
  const driver = storage.kind;
  const wrapped: ObjectStorage = {
    kind: storage.kind,
    put: (key, body, options) =>
      inSpan('storage put', { 'persona.storage.driver': driver }, async () => {
        const written = await storage.put(key, body, options);
        storageBytes.inc({ driver, direction: 'in' }, written.size);
        return written;
      }),
    get: (key, options) =>
      inSpan('storage get', { 'persona.storage.driver': driver }, async () => {
        const found = await storage.get(key, options);
        if (found) storageBytes.inc({ driver, direction: 'out' }, options?.range ? options.range.end - options.range.start + 1 : found.size);
        return found;
      }),
    head: (key) => storage.head(key),
    delete: (key) => storage.delete(key),
    deletePrefix: (prefix) => storage.deletePrefix(prefix),
    ping: () => storage.ping(),
    close: () => storage.close(),
  };
  observed.add(wrapped);
  return wrapped;
}
