import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Batcher, type Settled } from "./batcher.js";

/** A run function whose batches finish only when the test says so. */
function gated() {
  const batches: string[][] = [];
  const gates: (() => void)[] = [];
  const run = (items: string[]): Promise<Settled<string>[]> => {
    batches.push(items);
    return new Promise((resolve) => {
      gates.push(() => resolve(items.map((item) => ({ ok: true, value: item.toUpperCase() }))));
    });
  };
  return { batches, gates, run };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("Batcher", () => {
  it("sends a lone request at once, as a batch of one", async () => {
    const { batches, gates, run } = gated();
    const batcher = new Batcher(run, { maxInFlight: 1, maxBatch: 10 });
    const a = batcher.submit("a");
    expect(batches).toEqual([["a"]]);
    gates[0]!();
    expect(await a).toBe("A");
  });

  it("sends requests that arrive while every slot is busy together", async () => {
    const { batches, gates, run } = gated();
    const batcher = new Batcher(run, { maxInFlight: 1, maxBatch: 10 });
    const results = ["a", "b", "c", "d"].map((item) => batcher.submit(item));
    expect(batches).toEqual([["a"]]);
    gates[0]!();
    await tick();
    expect(batches).toEqual([["a"], ["b", "c", "d"]]);
    gates[1]!();
    expect(await Promise.all(results)).toEqual(["A", "B", "C", "D"]);
  });

  it("respects maxBatch and maxInFlight", async () => {
    const { batches, gates, run } = gated();
    const batcher = new Batcher(run, { maxInFlight: 2, maxBatch: 2 });
    const results = ["a", "b", "c", "d", "e", "f"].map((item) => batcher.submit(item));
    expect(batches).toEqual([["a"], ["b"]]);
    gates[0]!();
    await tick();
    expect(batches.slice(2)).toEqual([["c", "d"]]);
    gates[1]!();
    gates[2]!();
    await tick();
    gates[3]!();
    expect(batches.slice(3)).toEqual([["e", "f"]]);
    expect(await Promise.all(results)).toEqual(["A", "B", "C", "D", "E", "F"]);
  });

  it("never puts two items with one key in the same batch", async () => {
    const { batches, gates, run } = gated();
    const batcher = new Batcher(run, { maxInFlight: 1, maxBatch: 10, keyOf: (s) => s[0]! });
    const results = ["x0", "a1", "a2", "b1", "a3"].map((item) => batcher.submit(item));
    gates[0]!();
    await tick();
    expect(batches[1]).toEqual(["a1", "b1"]);
    gates[1]!();
    await tick();
    expect(batches[2]).toEqual(["a2"]);
    gates[2]!();
    await tick();
    expect(batches[3]).toEqual(["a3"]);
    gates[3]!();
    expect(await Promise.all(results)).toEqual(["X0", "A1", "A2", "B1", "A3"]);
  });

  it("fails every item of a batch that throws, and only the items that fail", async () => {
    const batcher = new Batcher<string, string>(
      async (items) => {
        if (items.includes("boom")) throw new Error("batch failed");
        return items.map((item) =>
          item === "bad" ? { ok: false, error: new Error("bad item") } : { ok: true, value: item },
        );
      },
      { maxInFlight: 1, maxBatch: 10 },
    );
    await expect(batcher.submit("boom")).rejects.toThrow("batch failed");
    const first = batcher.submit("first");
    const good = batcher.submit("good");
    const bad = batcher.submit("bad");
    await expect(first).resolves.toBe("first");
    await expect(good).resolves.toBe("good");
    await expect(bad).rejects.toThrow("bad item");
  });

  it("answers every request exactly once with its own result", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ minLength: 1, maxLength: 3 }), { maxLength: 40 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 5 }),
        async (items, maxInFlight, maxBatch) => {
          const sizes: number[] = [];
          const batcher = new Batcher<string, string>(
            async (batch) => {
              sizes.push(batch.length);
              await tick();
              return batch.map((item) => ({ ok: true, value: `${item}!` }));
            },
            { maxInFlight, maxBatch, keyOf: (s) => s },
          );
          const results = await Promise.all(items.map((item) => batcher.submit(item)));
          expect(results).toEqual(items.map((item) => `${item}!`));
          expect(sizes.every((n) => n >= 1 && n <= maxBatch)).toBe(true);
          expect(sizes.reduce((a, b) => a + b, 0)).toBe(items.length);
        },
      ),
    );
  });
});
