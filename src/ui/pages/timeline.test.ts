import { describe, expect, it } from "vitest";
import type { DecisionLogEntry } from "../../core/types.js";
import { timelineChart } from "./timeline.js";

function entry(
  at: number,
  action: DecisionLogEntry["action"],
  reason: DecisionLogEntry["reason"],
  tokens: number,
): DecisionLogEntry {
  return {
    at,
    action,
    reason,
    episodeId: "ep",
    autoTurns: 1,
    tokens,
    stagnation: 0,
    actionable: 1,
    blocked: 0,
    nudgeChars: null,
    nudgeTokens: null,
    trigger: "idle",
  };
}

describe("timelineChart", () => {
  it("draws nudges and skips by reason, with the token line and a legend that counts them", () => {
    const chart = timelineChart([
      entry(1_000, "inject", null, 100),
      entry(2_000, "inject", null, 400),
      entry(3_000, "skip", "stagnation", 400),
      entry(4_000, "skip", "continuation-stopped", 400),
      entry(5_000, "skip", "stagnation", 400),
    ]).text;
    expect(chart.match(/<circle /g)).toHaveLength(2);
    expect(chart.match(/<rect /g)).toHaveLength(3);
    expect(chart).toContain("<polyline");
    expect(chart).toContain("nudge (2)");
    expect(chart).toMatch(/stagnation — no progress \(2\)/);
    expect(chart).toMatch(/continuation-stopped — stopped by the user \(1\)/);
    expect(chart).toContain("2 nudges and 3 other decisions");
  });

  it("says so when nothing was decided yet", () => {
    expect(timelineChart([]).text).toContain("No decisions recorded yet.");
  });
});
