import { getHeapSpaceStatistics, getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** V8's `gc`: no argument collects the whole heap, `{ type: "minor" }` the young generation. */
type Collect = (options?: { type: "minor" }) => void;

/**
 * How much the heap may grow past what the last full collection left before the next one is run
 * between events. V8 starts its own (incremental marking, then a closing pause of 1 to 9 ms on
 * a slow machine, run as a task that can fall inside an event) at about 2 MB over it for a heap
 * of the server's size; at three quarters of that, ours comes first.
 */
export const FULL_COLLECTION_GROWTH_BYTES = 1536 * 1024;

let collect: Collect | null | undefined;
/** {@link oldBytes} after the last full collection. */
let settled = 0;

/**
 * V8's collector, taken from a context of its own so the events' global scope never holds a
 * `gc` (`--expose-gc` on the command line would put one there for good). Null when this V8
 * refuses the flag.
 */
function collector(): Collect | null {
  if (collect === undefined) {
    try {
      setFlagsFromString("--expose-gc");
      const gc = runInNewContext("gc") as unknown;
      collect = typeof gc === "function" ? (gc as Collect) : null;
    } catch {
      collect = null;
    }
  }
  return collect;
}

/** The heap's bytes in use outside the young generation. */
function oldBytes(): number {
  const young = getHeapSpaceStatistics().find((space) => space.space_name === "new_space");
  return getHeapStatistics().used_heap_size - (young?.space_used_size ?? 0);
}

export type Collected = "full" | "young" | "unavailable";

/**
 * Collects garbage now, so that none is collected while an event runs. The server calls it
 * between events, 15 ms after an answer. When the heap outside the young generation has grown by
 * {@link FULL_COLLECTION_GROWTH_BYTES} since the last full collection, the whole heap is
 * collected, before V8 would start a collection of its own; otherwise the young generation is
 * emptied. That is done after every event, though an event allocates only about 0.3 MB: the next
 * event then ran faster (by 0.04 to 0.65 ms, against emptying it only once half full, measured
 * when each event had a new set of modules, copied together; and the event allocates from an
 * empty space), for 1 to 5 ms of CPU between events on a slow machine.
 */
export function collectBetweenEvents(): Collected {
  const gc = collector();
  if (gc === null) return "unavailable";
  if (oldBytes() - settled >= FULL_COLLECTION_GROWTH_BYTES) {
    gc();
    settled = oldBytes();
    return "full";
  }
  gc({ type: "minor" });
  return "young";
}
