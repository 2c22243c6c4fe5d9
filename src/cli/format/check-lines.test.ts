import { describe, expect, it } from "vitest";
import type { CheckResult } from "../../core/types.js";
import { checkLines, decisionPhrase } from "./state.js";

const check: CheckResult = {
  command: "npm test",
  status: "failed",
  exitCode: 1,
  signal: null,
  startedAt: 1_000_000,
  durationMs: 1_500,
  outputTail: "a\nb\nc\nd\ne\nf\nFAIL x.test.ts",
  tree: "t",
};

describe("checkLines", () => {
  it("says when, how it ended, how long, and the last lines of a failure", () => {
    const lines = checkLines(check, 1_060_000);
    expect(lines[0]).toBe("Last verification: `npm test` failed (exit 1) 1m ago, took 1.5 s");
    expect(lines.slice(1)).toEqual(["  | c", "  | d", "  | e", "  | f", "  | FAIL x.test.ts"]);
  });

  it("a pass shows no output; a timeout says it was not nudged; none says none", () => {
    expect(checkLines({ ...check, status: "passed", exitCode: 0 }, 1_000_500)).toEqual([
      "Last verification: `npm test` passed (exit 0) just now, took 1.5 s",
    ]);
    expect(checkLines({ ...check, status: "timed-out", exitCode: null }, 1_000_500)[0]).toContain(
      "timed out (not nudged)",
    );
    expect(checkLines(null, 0)).toEqual(["Last verification: none"]);
  });
});

describe("decisionPhrase with a check's note", () => {
  it("shows `verified` with its duration in the log", () => {
    const phrase = decisionPhrase({
      at: 0,
      action: "skip",
      reason: "verified",
      episodeId: null,
      autoTurns: 0,
      tokens: 0,
      stagnation: 0,
      actionable: 0,
      blocked: 0,
      nudgeChars: null,
      nudgeTokens: null,
      trigger: "stop-hook",
      note: "verified in 1.5 s (npm test)",
    });
    expect(phrase).toBe(
      "skip: the project's check passed (verified); verified in 1.5 s (npm test)",
    );
  });
});
