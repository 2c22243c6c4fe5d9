import { describe, expect, it } from "vitest";
import { type GroupInput, groupOf, isFinished } from "./groups.js";

const base: GroupInput = {
  state: "idle",
  reason: "no-incomplete-todos",
  summary: { actionable: 0, blocked: 0, total: 0 },
  stored: { stopped: false, lastUserTurnAt: null, verify: null },
  last: null,
};

function failedCheck(halted = false): GroupInput["stored"]["verify"] {
  return {
    last: {
      command: "npm test",
      status: "failed",
      exitCode: 1,
      signal: null,
      startedAt: 10,
      durationMs: 5,
      outputTail: "",
      tree: "t",
    },
    nudged: null,
    halted,
  };
}

describe("groupOf", () => {
  it("puts a waiting question, only blocked items and a failing check under needs you", () => {
    expect(
      groupOf({
        ...base,
        last: { at: 100, reason: "awaiting-user" },
        summary: { actionable: 2, blocked: 0, total: 2 },
      }),
    ).toEqual({ group: "needs-you", why: "a question is waiting" });
    expect(
      groupOf({
        ...base,
        state: "parked",
        reason: "only-blocked-todos",
        summary: { actionable: 0, blocked: 1, total: 1 },
      }).group,
    ).toBe("needs-you");
    expect(
      groupOf({
        ...base,
        summary: { actionable: 0, blocked: 0, total: 3 },
        stored: { ...base.stored, verify: failedCheck() },
      }),
    ).toEqual({ group: "needs-you", why: "the check fails" });
    expect(groupOf({ ...base, state: "unreadable" }).group).toBe("needs-you");
  });

  it("no longer counts a question a real user turn answered", () => {
    const answered = groupOf({
      ...base,
      summary: { actionable: 2, blocked: 0, total: 2 },
      stored: { ...base.stored, lastUserTurnAt: 200 },
      last: { at: 100, reason: "awaiting-user" },
    });
    expect(answered.group).toBe("idle");
  });

  it("tells a spent budget from a stop by the user or an ended episode", () => {
    const open = { actionable: 3, blocked: 0, total: 3 };
    for (const reason of ["max-auto-turns", "max-tokens", "max-wall-clock", "max-cost"]) {
      expect(groupOf({ ...base, state: "out-of-budget", reason, summary: open })).toEqual({
        group: "out-of-budget",
        why: reason,
      });
    }
    // "max-cost" is logged by cost caps; the dry run of a build without them never returns it.
    expect(groupOf({ ...base, summary: open, last: { at: 1, reason: "max-cost" } }).group).toBe(
      "out-of-budget",
    );
    expect(
      groupOf({ ...base, state: "stopped", stored: { ...base.stored, stopped: true } }),
    ).toEqual({
      group: "stopped",
      why: "stopped by the user",
    });
    expect(
      groupOf({ ...base, state: "out-of-budget", reason: "stagnation", summary: open }),
    ).toEqual({
      group: "stopped",
      why: "stagnation",
    });
    expect(
      groupOf({
        ...base,
        summary: { actionable: 0, blocked: 0, total: 2 },
        stored: { ...base.stored, verify: failedCheck(true) },
      }),
    ).toEqual({ group: "stopped", why: "verify-unchanged-failure" });
  });

  it("calls a finished list done, a nudged one working, the rest idle", () => {
    expect(groupOf({ ...base, summary: { actionable: 0, blocked: 0, total: 4 } }).group).toBe(
      "done",
    );
    expect(
      groupOf({
        ...base,
        state: "nudging",
        reason: null,
        summary: { actionable: 1, blocked: 0, total: 1 },
      }).group,
    ).toBe("working");
    expect(
      groupOf({
        ...base,
        reason: "background-work",
        summary: { actionable: 1, blocked: 0, total: 1 },
      }).group,
    ).toBe("working");
    expect(groupOf(base).group).toBe("idle");
  });

  it("treats every group but needs you and working as finished", () => {
    expect(isFinished("needs-you")).toBe(false);
    expect(isFinished("working")).toBe(false);
    for (const g of ["idle", "done", "stopped", "out-of-budget"] as const)
      expect(isFinished(g)).toBe(true);
  });
});
