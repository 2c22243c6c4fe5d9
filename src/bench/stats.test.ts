import { describe, expect, it } from "vitest";
import { pairedRatio, percentile, summarizeRuns } from "./stats.js";

describe("bench statistics", () => {
  it("percentile by nearest rank", () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile(values, 100)).toBe(100);
    expect(percentile([7], 99)).toBe(7);
    expect(() => percentile([], 50)).toThrow(/no values/);
  });

  it("summarizes runs by their medians and reports the spread", () => {
    const stats = summarizeRuns([
      [1, 2, 3],
      [2, 3, 4],
      [3, 4, 5],
    ]);
    expect(stats.p50).toBe(3);
    expect(stats.spread).toBeCloseTo((4 - 2) / 3);
    expect(stats.runs).toBe(3);
  });

  it("divides each sample by the baseline taken beside it, so a slow spell cancels out", () => {
    // The machine slows down by half in the second half of each run: every process alike.
    const bare = [
      [20, 20, 30, 30],
      [22, 22, 33, 33],
      [20, 30, 20, 30],
    ];
    const hook = bare.map((run) => run.map((ms) => ms * 1.2));
    expect(pairedRatio(hook, bare)).toBeCloseTo(1.2);
    // Medians of the two sides would disagree with the pairs: here each side's is another
    // moment's (the hook's median lands in the slow half, the baseline's in the fast one).
    const slowHook = [[24, 36, 36, 36]];
    const fastBare = [[20, 20, 20, 30]];
    expect(pairedRatio(slowHook, fastBare)).toBeCloseTo(1.2);
    expect(
      percentile(slowHook[0] as number[], 50) / percentile(fastBare[0] as number[], 50),
    ).toBeCloseTo(1.8);
  });

  it("takes the median of the runs' ratios, and refuses samples without a baseline", () => {
    expect(pairedRatio([[11], [30], [12]], [[10], [10], [10]])).toBeCloseTo(1.2);
    expect(() => pairedRatio([[1, 2]], [[1]])).toThrow(/run 0 has 2 samples, 1 baselines/);
    expect(() => pairedRatio([[1]], [])).toThrow(/as many baseline runs/);
    expect(() => pairedRatio([], [])).toThrow(/at least one/);
  });
});
