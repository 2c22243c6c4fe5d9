import { describe, expect, it } from "vitest";
import type { DecisionLogEntry } from "../../core/types.js";
import { createStyle } from "../style.js";
import { formatLog } from "./log.js";

const base: DecisionLogEntry = {
  at: new Date(2024, 4, 1, 12, 0, 0).getTime(),
  action: "inject",
  reason: null,
  episodeId: "ep",
  autoTurns: 1,
  tokens: 12_345,
  stagnation: 0,
  actionable: 3,
  blocked: 1,
  nudgeChars: 400,
  nudgeTokens: 100,
  trigger: "idle",
  delivered: true,
};

describe("formatLog", () => {
  it("says so when there is nothing to show", () => {
    expect(formatLog([], createStyle(false))).toEqual(["No decisions recorded yet."]);
  });

  it("prints one row per entry under a header, oldest first", () => {
    const lines = formatLog(
      [base, { ...base, action: "skip", reason: "stagnation", autoTurns: 1, stagnation: 2 }],
      createStyle(false),
    );
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      /^TIME\s+TRIGGER\s+OPEN\s+BLOCKED\s+NUDGES\s+TOKENS\s+STAGNANT\s+DECISION$/,
    );
    expect(lines[1]).toContain("2024-05-01 12:00:00");
    expect(lines[1]).toContain("12,345");
    expect(lines[1]).toMatch(/inject nudge #1, delivered$/);
    expect(lines[2]).toMatch(/skip: no progress \(stagnation\)$/);
  });
});
