import { describe, expect, it } from "vitest";
import { pairedDifference, pairedRatio, percentile, summarizeRuns } from "./stats.js";

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

  it("subtracts the baseline beside each sample for what a process adds", () => {
    // Each hook costs 5 ms more than the bare start just before it, while the machine's
    // starts swing from 20 to 40 ms.
    const bare = [
      [20, 40, 20, 40],
      [30, 30, 25, 35],
    ];
    const hook = bare.map((run) => run.map((ms) => ms + 5));
    expect(pairedDifference(hook, bare)).toBeCloseTo(5);
    // The medians' difference would count the swing: 45 - 20 here, not 5.
    expect(pairedDifference([[25, 45, 45]], [[20, 40, 20]])).toBeCloseTo(5);
    expect(pairedDifference([[1], [9], [3]], [[0], [0], [0]])).toBe(3);
    expect(() => pairedDifference([[1]], [[1, 2]])).toThrow(
      /pairedDifference: run 0 has 1 samples, 2 baselines/,
    );
    expect(() => pairedDifference([], [])).toThrow(/pairedDifference: .*at least one/);
  });
});
