import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// The memory bounds of the streaming and document-bomb tests, measured in the test's own process. Resident
// memory also holds garbage not yet collected (the Buffers of every socket read until V8 runs a collection:
// 50–110 MiB during a 200 MiB upload) and memory malloc has not returned to the system, so a reading over
// the bound is confirmed after a full collection by what the JS heap and its Buffers still hold.

setFlagsFromString('--expose-gc');
/** A full garbage collection (the `gc` that --expose-gc gives a new context). */
export const collectGarbage = runInNewContext('gc') as () => void;

/** What JS still holds after a collection: the heap's live objects and the memory of ArrayBuffers and Buffers. */
const heldBytes = () => {
  collectGarbage();
  const { heapUsed, external } = process.memoryUsage();
  return heapUsed + external;
};

export interface MemoryWatch {
  /** Takes one reading now (the watch also reads every 20 ms). */
  sample(): void;
  /** Stops the watch; the peak growth, in bytes, of the readings over the first one. */
  stop(): number;
}

/**
 * Watches `measure` (by default the process's RSS) from now on. A reading that grew by more than `bound` is
 * replaced by the growth of what JS holds after a full collection: a body kept in memory stays over the bound,
 * garbage and freed memory do not. Minus `uncounted` (bytes the caller leaves out, such as the in-process
 * PGlite's WebAssembly memory) on both sides.
 */
export function watchMemoryGrowth(bound: number, measure = () => process.memoryUsage.rss(), uncounted = () => 0): MemoryWatch {
  collectGarbage();
  const start = measure() - uncounted();
  const heldAtStart = heldBytes() - uncounted();
  let peak = 0;
  const sample = () => {
    let growth = measure() - uncounted() - start;
    // Once a confirmed reading is over the bound the test fails; no more collections are needed to say so.
    if (growth > bound && peak <= bound) growth = Math.min(growth, heldBytes() - uncounted() - heldAtStart);
    peak = Math.max(peak, growth);
  };
  const timer = setInterval(sample, 20);
  return {
    sample,
    stop() {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}
