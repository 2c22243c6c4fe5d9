import { describe, expect, it } from "vitest";
import { summarize } from "../todo/summary.js";
import { benchDecide, benchList, benchSummarize, benchWholeDecision } from "./bench.js";

describe("bench helpers", () => {
  it("benchDecide reports one non-negative timing per iteration", () => {
    const times = benchDecide(50, 200);
    expect(times).toHaveLength(200);
    for (const t of times) expect(Number.isFinite(t) && t >= 0).toBe(true);
  });

  it("benchSummarize reports one non-negative timing per iteration", () => {
    const times = benchSummarize(10, 50);
    expect(times).toHaveLength(50);
    for (const t of times) expect(Number.isFinite(t) && t >= 0).toBe(true);
  });

  it("benchWholeDecision times a decision on a fresh read per iteration", () => {
    const times = benchWholeDecision(50, 100);
    expect(times).toHaveLength(100);
    for (const t of times) expect(Number.isFinite(t) && t >= 0).toBe(true);
  });

  it("benchList builds a realistic mix of the requested size", () => {
    const summary = summarize(benchList(50));
    expect(summary.total).toBe(50);
    expect(summary.completed).toBeGreaterThan(0);
    expect(summary.blocked).toBeGreaterThan(0);
    expect(summary.actionable).toBeGreaterThan(summary.blocked);
  });
});
