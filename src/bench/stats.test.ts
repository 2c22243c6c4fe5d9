import { describe, expect, it } from "vitest";
import { percentile, summarizeRuns } from "./stats.js";

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
});
