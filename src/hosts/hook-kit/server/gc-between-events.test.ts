import { getHeapSpaceStatistics, getHeapStatistics } from "node:v8";
import { describe, expect, it } from "vitest";
import { collectBetweenEvents, FULL_COLLECTION_GROWTH_BYTES } from "./gc-between-events.js";

/** Ends the current job: a WeakRef keeps its target alive until then (and after each `deref`). */
const nextJob = () => new Promise<void>((resolve) => setImmediate(resolve));

const youngBytes = () =>
  getHeapSpaceStatistics().find((s) => s.space_name === "new_space")?.space_used_size ?? 0;

const oldBytes = () => getHeapStatistics().used_heap_size - youngBytes();

/** Keeps new objects alive until the heap outside the young generation has grown by `bytes`. */
function growOld(bytes: number): string[] {
  const kept: string[] = [];
  const start = oldBytes();
  while (oldBytes() - start < bytes) {
    for (let i = 0; i < 1000; i++) kept.push(`entry ${kept.length} ${"x".repeat(64)}`);
  }
  return kept;
}

describe("collectBetweenEvents", () => {
  it("empties the young generation each time, without a full collection until the heap grows", () => {
    // Nothing was settled before the first call: it collects everything.
    expect(collectBetweenEvents()).toBe("full");
    const empty = youngBytes();
    // An event's garbage: objects no one holds once it is over.
    let garbage: { i: number }[] | null = Array.from({ length: 10_000 }, (_, i) => ({ i }));
    expect(garbage.length).toBe(10_000);
    garbage = null;
    expect(youngBytes() - empty).toBeGreaterThan(128 * 1024);
    expect(collectBetweenEvents()).toBe("young");
    expect(youngBytes()).toBeLessThan(empty + 32 * 1024);
    expect(garbage).toBeNull();
  });

  it("frees what outlived the young generation once the heap has grown past the threshold", async () => {
    let old: object | null = { an: "object that lived through events" };
    const ref = new WeakRef(old);
    // Two young collections move it out of the young generation, where only a full one frees it.
    expect(collectBetweenEvents()).toBe("young");
    expect(collectBetweenEvents()).toBe("young");
    old = null;
    await nextJob();
    const kept = growOld(FULL_COLLECTION_GROWTH_BYTES + 256 * 1024);
    expect(collectBetweenEvents()).toBe("full");
    await nextJob();
    expect(ref.deref()).toBeUndefined();
    expect(collectBetweenEvents()).toBe("young");
    expect(kept.length).toBeGreaterThan(0);
    expect(old).toBeNull();
  });

  it("leaves no collector in the global scope events run in", () => {
    collectBetweenEvents();
    expect("gc" in globalThis).toBe(false);
  });
});
