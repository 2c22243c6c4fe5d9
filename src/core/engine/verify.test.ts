import { describe, expect, it } from "vitest";
import { explainSkip, REASON_TITLES } from "../explain/reasons.js";
import type { CheckResult, ContinuationState, VerifySettings } from "../types.js";
import { decide } from "./decide.js";
import { parseContinuationState } from "./state.js";
import { episode, LIMITS, NOW, outcome, stateWith, summaryOf } from "./test-support/fixtures.js";
import { onRealUserTurn } from "./transitions.js";
import { decideVerification, failureKey, verifyDue } from "./verify.js";

const SETTINGS: VerifySettings = { command: "npm test", timeoutMs: 60_000, when: "finished" };

function check(overrides: Partial<CheckResult> = {}): CheckResult {
  return {
    command: "npm test",
    status: "failed",
    exitCode: 1,
    signal: null,
    startedAt: NOW - 2_000,
    durationMs: 1_500,
    outputTail: "FAIL src/a.test.ts\n  expected 2, got 3",
    tree: "tree-1",
    ...overrides,
  };
}

const done = summaryOf("completed", "completed");
const finishedState = (overrides: Partial<ContinuationState> = {}) =>
  stateWith({ lastOutcome: outcome("t2"), episode: episode(), ...overrides });

function verdict(state: ContinuationState, result: CheckResult, summary = done) {
  return decideVerification({
    state,
    summary,
    signals: {},
    limits: LIMITS,
    now: NOW,
    check: result,
  });
}

describe("verifyDue", () => {
  const due = (
    state: ContinuationState,
    settings: VerifySettings | null = SETTINGS,
    summary = done,
  ) =>
    verifyDue({
      settings,
      decision: decide({ state, summary, signals: {}, limits: LIMITS, now: NOW }),
      state,
      summary,
      signals: {},
    });

  it("runs the check once the list has nothing actionable left after a clean stop", () => {
    expect(due(finishedState())).toBe("finished");
    expect(due(finishedState(), SETTINGS, summaryOf("completed", "blocked"))).toBe("finished");
  });

  it("does not run without settings, for a subagent, without a list, or after an unclean stop", () => {
    expect(due(finishedState(), null)).toBeNull();
    const state = finishedState();
    const decision = decide({ state, summary: done, signals: {}, limits: LIMITS, now: NOW });
    expect(
      verifyDue({
        settings: SETTINGS,
        decision,
        state,
        summary: done,
        signals: { agentExcluded: true },
      }),
    ).toBeNull();
    expect(due(finishedState(), SETTINGS, summaryOf())).toBeNull();
    expect(due(finishedState({ lastOutcome: outcome("t2", { stopReason: "error" }) }))).toBeNull();
    expect(due(finishedState({ lastOutcome: outcome("t1") }))).toBeNull(); // already answered
    expect(due(finishedState({ untrusted: true }))).toBeNull();
  });

  it("leaves a list with work to the list nudge unless `when` is every-stop", () => {
    const state = stateWith({ lastOutcome: outcome("t1") });
    const open = summaryOf("pending");
    expect(due(state, SETTINGS, open)).toBeNull();
    expect(due(state, { ...SETTINGS, when: "every-stop" }, open)).toBe("with-nudge");
  });

  it("says halted after the episode ended on an unchanged failure", () => {
    expect(due(finishedState({ verify: { last: check(), nudged: null, halted: true } }))).toBe(
      "halted",
    );
  });
});

describe("decideVerification", () => {
  it("a passing check skips as verified and records the result", () => {
    const d = verdict(finishedState(), check({ status: "passed", exitCode: 0, outputTail: "ok" }));
    expect(d).toMatchObject({ action: "skip", reason: "verified" });
    expect(d.state.verify?.last?.exitCode).toBe(0);
    expect(d.state.episode?.autoTurns).toBe(1);
  });

  it("a timed-out or unstartable check never nudges", () => {
    for (const status of ["timed-out", "error"] as const) {
      const d = verdict(finishedState(), check({ status, exitCode: null }));
      expect(d.action).toBe("skip");
      expect(d.state.episode?.autoTurns).toBe(1);
    }
    expect(verdict(finishedState(), check({ status: "timed-out" }))).toMatchObject({
      reason: "verify-timed-out",
    });
  });

  it("a failing check nudges, charged like any nudge, and remembers the failure", () => {
    const d = verdict(finishedState(), check());
    expect(d.action).toBe("inject");
    if (d.action !== "inject") return;
    expect(d.verification?.exitCode).toBe(1);
    expect(d.episode.autoTurns).toBe(2);
    expect(d.episode.answeredTurnId).toBe("t2");
    expect(d.state.verify?.nudged).toEqual({
      tree: "tree-1",
      list: done.fingerprint,
      failure: failureKey(check()),
    });
  });

  it("opens an episode for a first nudge", () => {
    const d = verdict(stateWith({ lastOutcome: outcome("t1") }), check());
    expect(d.action).toBe("inject");
    expect(d.state.episode?.autoTurns).toBe(1);
  });

  it("the same failure with nothing changed ends the episode until the user speaks", () => {
    const first = verdict(finishedState(), check());
    const again = verdict({ ...first.state, lastOutcome: outcome("t3") }, check());
    expect(again).toMatchObject({ action: "skip", reason: "verify-unchanged-failure" });
    expect(again.state.verify?.halted).toBe(true);
    // Even a changed tree does not reopen it: the episode ended.
    const later = verdict(
      { ...again.state, lastOutcome: outcome("t4") },
      check({ tree: "tree-2" }),
    );
    expect(later).toMatchObject({ action: "skip", reason: "verify-unchanged-failure" });
    const user = onRealUserTurn(later.state, NOW);
    expect(user.verify?.halted).toBe(false);
    expect(user.verify?.last?.tree).toBe("tree-2");
  });

  it("a pass between two equal failures on the same tree and list does not answer it again (a flaky check)", () => {
    const first = verdict(finishedState(), check());
    expect(first.action).toBe("inject");
    const passed = verdict(
      { ...first.state, lastOutcome: outcome("t3") },
      check({ status: "passed", exitCode: 0, outputTail: "" }),
    );
    expect(passed).toMatchObject({ action: "skip", reason: "verified" });
    const again = verdict({ ...passed.state, lastOutcome: outcome("t4") }, check());
    expect(again).toMatchObject({ action: "skip", reason: "verify-unchanged-failure" });
  });

  it("a changed tree or a different failure nudges again", () => {
    const first = verdict(finishedState(), check());
    const changed = verdict(
      { ...first.state, lastOutcome: outcome("t3") },
      check({ tree: "tree-2" }),
    );
    expect(changed.action).toBe("inject");
    const other = verdict(
      { ...first.state, lastOutcome: outcome("t3") },
      check({ outputTail: "FAIL src/b.test.ts" }),
    );
    expect(other.action).toBe("inject");
  });

  it("keeps the ladder: budgets, stops, user blocks and the user's redirection hold", () => {
    const spent = finishedState({ episode: episode({ autoTurns: LIMITS.maxAutoTurns }) });
    expect(verdict(spent, check())).toMatchObject({ reason: "max-auto-turns" });
    expect(verdict(finishedState({ stopped: true }), check())).toMatchObject({
      reason: "continuation-stopped",
    });
    expect(verdict(finishedState({ userAbortBlocked: true }), check())).toMatchObject({
      reason: "user-abort-blocked",
    });
    // The user spoke and neither the list nor the tree moved since the last check: it holds.
    const seen = { last: check(), nudged: null, halted: false };
    expect(
      verdict(finishedState({ userTurnFingerprint: done.fingerprint, verify: seen }), check()),
    ).toMatchObject({ reason: "list-unchanged-since-user" });
    // A tree that moved since is work done: the check's failure is reported.
    expect(
      verdict(
        finishedState({ userTurnFingerprint: done.fingerprint, verify: seen }),
        check({ tree: "tree-2" }),
      ).action,
    ).toBe("inject");
    expect(verdict(finishedState({ untrusted: true }), check())).toMatchObject({
      reason: "state-unreadable",
    });
    expect(
      verdict(
        finishedState({ lastOutcome: outcome("t2", { stopReason: "transient_error" }) }),
        check(),
      ),
    ).toMatchObject({ reason: "turn-not-safe" });
  });

  it("rejects a clock that is not a number", () => {
    expect(() =>
      decideVerification({
        state: finishedState(),
        summary: done,
        signals: {},
        limits: LIMITS,
        now: Number.NaN,
        check: check(),
      }),
    ).toThrow(/now must be a finite number/);
  });
});

describe("verification memory in stored state", () => {
  it("round-trips through JSON", () => {
    const d = verdict(finishedState(), check({ cached: true }));
    const back = parseContinuationState(JSON.parse(JSON.stringify(d.state)));
    expect(back.untrusted).toBe(false);
    expect(back.verify).toEqual(d.state.verify);
  });

  it("a malformed record makes the state untrusted (its halt is unknown)", () => {
    for (const verify of [
      { last: null, nudged: null },
      { last: { command: 1 }, nudged: null, halted: false },
      7,
    ]) {
      expect(parseContinuationState({ ...finishedState(), verify }).untrusted).toBe(true);
    }
    expect(parseContinuationState({ ...finishedState(), verify: null }).untrusted).toBe(false);
  });
});

describe("verification reasons are explained", () => {
  it("names the command, the exit code and the duration", () => {
    const ctx = (state: ContinuationState) => ({ state, summary: done, limits: LIMITS, now: NOW });
    const passed = verdict(finishedState(), check({ status: "passed", exitCode: 0 }));
    expect(explainSkip("verified", ctx(passed.state))).toMatch(/`npm test` passed in 1\.5 s/);
    const timed = verdict(finishedState(), check({ status: "timed-out", exitCode: null }));
    expect(explainSkip("verify-timed-out", ctx(timed.state))).toMatch(/time limit.*never nudges/);
    const first = verdict(finishedState(), check());
    const again = verdict({ ...first.state, lastOutcome: outcome("t3") }, check());
    expect(explainSkip("verify-unchanged-failure", ctx(again.state))).toMatch(/exit code 1/);
    for (const reason of [
      "verified",
      "verify-timed-out",
      "verify-error",
      "verify-unchanged-failure",
    ] as const) {
      expect(REASON_TITLES[reason].length).toBeGreaterThan(0);
    }
  });
});
