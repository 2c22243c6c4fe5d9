import { describe, expect, it } from "vitest";
import type { CheckResult, ContinuationState, TodoSummary } from "../core/types.js";
import { verificationSection, verificationView, verifyBadge } from "./verification.js";

const failed: CheckResult = {
  command: "npm test",
  status: "failed",
  exitCode: 1,
  signal: null,
  startedAt: Date.UTC(2026, 0, 2, 3, 4, 5),
  durationMs: 1_500,
  outputTail: "1 failing\n<script>alert(1)</script>",
  tree: "t",
};
const summary = (actionable: number, total = 2) =>
  ({ actionable, total, blocked: 0, completed: total - actionable }) as unknown as TodoSummary;
const state = (last: CheckResult | null, halted = false) =>
  ({ verify: { last, nudged: null, halted } }) as unknown as ContinuationState;

describe("the last verification on the dashboard", () => {
  it("marks only a done list whose check failed", () => {
    expect(verificationView(state(failed), summary(0))?.doneButFailing).toBe(true);
    expect(verificationView(state(failed), summary(1))?.doneButFailing).toBe(false);
    expect(verificationView(state(failed), summary(0, 0))?.doneButFailing).toBe(false);
    for (const status of ["passed", "timed-out", "error"] as const) {
      const view = verificationView(state({ ...failed, status, exitCode: null }), summary(0));
      expect(view?.doneButFailing).toBe(false);
      expect(verifyBadge(view).text).toBe("");
    }
    expect(verificationView({} as ContinuationState, summary(0))).toBeNull();
    expect(verifyBadge(verificationView(state(failed), summary(0))).text).toContain(
      "done, check fails",
    );
  });

  it("shows when, exit code, duration, command and the output's tail, escaped", () => {
    const view = verificationView(state(failed, true), summary(0));
    const text = verificationSection(view, failed.startedAt + 60_000).text;
    expect(text).toContain("<code>npm test</code>");
    expect(text).toContain("failed (exit 1)");
    expect(text).toContain("1.5 s");
    expect(text).toContain("2026-01-02");
    expect(text).toContain("1 failing");
    expect(text).toContain("&lt;script&gt;");
    expect(text).not.toContain("<script>");
    expect(text).toContain("the same failure came back");
    expect(verificationSection(null, 0).text).toBe("");
    expect(verificationSection(undefined, 0).text).toBe("");
  });
});
