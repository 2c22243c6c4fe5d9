import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decide } from "../engine/decide.js";
import { parseContinuationState } from "../engine/state.js";
import {
  episode,
  LIMITS,
  listOf,
  NOW,
  outcome,
  stateWith,
  summaryOf,
} from "../engine/test-support/fixtures.js";
import { decideVerification } from "../engine/verify.js";
import { summarize } from "../todo/summary.js";
import type { CheckResult, ContinuationState, Decision, TodoSummary } from "../types.js";
import { NOTIFY_EVENTS, type NotifyEvent, notificationsFor } from "./events.js";

const ALL = NOTIFY_EVENTS;
const open = summaryOf("pending", "completed");

function run(
  decision: Decision,
  before: ContinuationState,
  summary: TodoSummary = open,
  wanted: readonly NotifyEvent[] = ALL,
) {
  return notificationsFor({ decision, before, summary, limits: LIMITS, now: NOW, wanted });
}

function skip(reason: string, state: ContinuationState): Decision {
  return { action: "skip", reason: reason as "stagnation", state };
}

const inEpisode = stateWith({ lastOutcome: outcome("t2"), episode: episode() });

describe("notificationsFor: one rule per event", () => {
  it("out-of-budget names the limit, its maximum and what was used", () => {
    const state = stateWith({
      lastOutcome: outcome("t2"),
      episode: episode({ autoTurns: 5, answeredTurnId: "t1" }),
    });
    const decision = decide({ state, summary: open, signals: {}, limits: LIMITS, now: NOW });
    expect(decision).toMatchObject({ action: "skip", reason: "max-auto-turns" });
    const { notifications, state: after } = run(decision, state);
    expect(notifications).toHaveLength(1);
    expect(notifications[0]).toMatchObject({
      event: "out-of-budget",
      reason: "max-auto-turns",
      limit: { reason: "max-auto-turns", name: "maxAutoTurns", max: 5, used: 5 },
      episodeId: "ep-test",
      counts: { open: 1, completed: 1, total: 2 },
    });
    expect(after.notified).toEqual({ key: "ep-test", events: ["out-of-budget"] });
  });

  it("max-cost (a reason another part adds) is out-of-budget too, with the episode's cost", () => {
    const e = { ...episode(), costUsd: 2.5 };
    const { notifications } = run(skip("max-cost", { ...inEpisode, episode: e }), inEpisode);
    expect(notifications[0]).toMatchObject({
      event: "out-of-budget",
      limit: { name: "maxCostUsd", used: 2.5 },
      episode: { costUsd: 2.5 },
    });
  });

  it("max-wall-clock reports the episode's age as used", () => {
    const { notifications } = run(skip("max-wall-clock", inEpisode), inEpisode);
    expect(notifications[0]?.limit).toEqual({
      reason: "max-wall-clock",
      name: "maxWallClockMs",
      max: 60_000,
      used: 10_000,
    });
  });

  it.each([
    "stagnation",
    "provider-error",
    "retries-exhausted",
    "verify-unchanged-failure",
    "verify-timed-out",
    "too-many-incomplete",
  ])("%s is stopped", (reason) => {
    expect(run(skip(reason, inEpisode), inEpisode).notifications[0]?.event).toBe("stopped");
  });

  it("a cooldown is stopped only once it gives up for the episode", () => {
    const waiting = { ...inEpisode, episode: episode({ failures: 1 }) };
    expect(run(skip("cooldown", waiting), waiting).notifications).toEqual([]);
    const gaveUp = { ...inEpisode, episode: episode({ failures: 3 }) };
    expect(run(skip("cooldown", gaveUp), gaveUp).notifications[0]?.event).toBe("stopped");
  });

  it("a pending question and a list of only blocked items need input", () => {
    const blocked = summaryOf("blocked", "completed");
    expect(
      run(skip("only-blocked-todos", inEpisode), inEpisode, blocked).notifications[0],
    ).toMatchObject({ event: "needs-input", counts: { blocked: 1 } });
    expect(run(skip("awaiting-user", inEpisode), inEpisode).notifications[0]?.event).toBe(
      "needs-input",
    );
  });

  it("a verification nudge is verify-failed, with the exit code and the output's tail", () => {
    const check: CheckResult = {
      command: "npm test",
      status: "failed",
      exitCode: 1,
      signal: null,
      startedAt: NOW - 2_000,
      durationMs: 1_000,
      outputTail: "FAIL a.test.ts",
      tree: "tree",
    };
    const decision = decideVerification({
      state: inEpisode,
      summary: summaryOf("completed"),
      signals: {},
      limits: LIMITS,
      now: NOW,
      check,
    });
    expect(decision.action).toBe("inject");
    const [n] = run(decision, inEpisode, summaryOf("completed")).notifications;
    expect(n).toMatchObject({
      event: "verify-failed",
      reason: "verify-nudge",
      verification: { exitCode: 1, outputTail: "FAIL a.test.ts", command: "npm test" },
    });
  });

  it("a plain nudge is no event", () => {
    const state = stateWith({ lastOutcome: outcome("t2") });
    const decision = decide({ state, summary: open, signals: {}, limits: LIMITS, now: NOW });
    expect(decision.action).toBe("inject");
    const out = run(decision, state);
    expect(out.notifications).toEqual([]);
    expect(out.state).toBe(decision.state);
  });

  it("done: verified, or a finished list after an episode or after the list moved", () => {
    const finished = summaryOf("completed", "completed");
    expect(run(skip("verified", inEpisode), inEpisode, finished).notifications[0]?.event).toBe(
      "done",
    );
    expect(
      run(skip("no-incomplete-todos", inEpisode), inEpisode, finished).notifications[0]?.event,
    ).toBe("done");
    // No episode, but the list had open items when the user spoke.
    const moved = stateWith({ userTurnFingerprint: open.fingerprint, lastUserTurnAt: NOW - 9 });
    expect(run(skip("no-incomplete-todos", moved), moved, finished).notifications[0]?.event).toBe(
      "done",
    );
  });

  it("done: a list written and finished within the user's turn (nothing open when the user spoke)", () => {
    const finished = summaryOf("completed", "cancelled");
    const fresh = stateWith({
      userTurnFingerprint: summaryOf().fingerprint,
      lastUserTurnAt: NOW - 9,
    });
    expect(run(skip("no-incomplete-todos", fresh), fresh, finished).notifications[0]?.event).toBe(
      "done",
    );
  });

  it("not done: nothing completed, or an unknown start", () => {
    const finished = summaryOf("completed");
    const cancelledOnly = stateWith({ userTurnFingerprint: summaryOf().fingerprint });
    expect(
      run(skip("no-incomplete-todos", cancelledOnly), cancelledOnly, summaryOf("cancelled"))
        .notifications,
    ).toEqual([]);
    const unknown = stateWith({});
    expect(run(skip("no-incomplete-todos", unknown), unknown, finished).notifications).toEqual([]);
    expect(
      run(skip("no-incomplete-todos", inEpisode), inEpisode, summaryOf()).notifications,
    ).toEqual([]);
  });

  it.each([
    "turn-not-safe",
    "user-abort-blocked",
    "continuation-stopped",
    "state-unreadable",
    "list-unchanged-since-user",
    "background-work",
  ])("%s is no event", (reason) => {
    expect(run(skip(reason, inEpisode), inEpisode).notifications).toEqual([]);
  });
});

describe("notificationsFor: at most once per event per episode", () => {
  it("a second decision with the same event in the same episode sends nothing", () => {
    const first = run(skip("stagnation", inEpisode), inEpisode);
    expect(first.notifications).toHaveLength(1);
    const second = run(skip("stagnation", first.state), first.state);
    expect(second.notifications).toEqual([]);
    expect(second.state.notified).toEqual({ key: "ep-test", events: ["stopped"] });
  });

  it("survives a round trip through storage (what a second hook process reads)", () => {
    const first = run(skip("max-tokens", inEpisode), inEpisode);
    const stored = parseContinuationState(JSON.parse(JSON.stringify(first.state)));
    expect(stored.untrusted).toBe(false);
    expect(run(skip("max-tokens", stored), stored).notifications).toEqual([]);
  });

  it("a new episode may send the same event again", () => {
    const first = run(skip("stagnation", inEpisode), inEpisode);
    const next = { ...first.state, episode: episode({ id: "ep-2" }) };
    expect(run(skip("stagnation", next), next).notifications).toHaveLength(1);
  });

  it("different events of one episode each go out once", () => {
    const a = run(skip("awaiting-user", inEpisode), inEpisode);
    const b = run(skip("max-tokens", a.state), a.state);
    expect(b.notifications[0]?.event).toBe("out-of-budget");
    expect(b.state.notified?.events).toEqual(["needs-input", "out-of-budget"]);
  });

  it("events not wanted are neither sent nor recorded", () => {
    const out = run(skip("stagnation", inEpisode), inEpisode, open, ["done"]);
    expect(out.notifications).toEqual([]);
    expect(out.state.notified).toBeUndefined();
  });

  it("an unreadable memory counts everything as sent", () => {
    const broken = parseContinuationState({
      ...JSON.parse(JSON.stringify(inEpisode)),
      notified: { key: 3 },
    });
    expect(broken.untrusted).toBe(false);
    const out = run(skip("stagnation", broken), broken);
    expect(out.notifications).toEqual([]);
    expect(out.state.notified?.key).toBe("ep-test");
  });

  it("property: replaying any sequence of decisions never sends an event twice per episode", () => {
    const reasons = ["stagnation", "max-tokens", "awaiting-user", "verified", "turn-not-safe"];
    fc.assert(
      fc.property(
        // Episode ids only move forward: a new user turn opens the next one.
        fc.array(fc.tuple(fc.constantFrom(...reasons), fc.boolean()), { maxLength: 30 }),
        (steps) => {
          let state = inEpisode;
          let id = 0;
          const seen = new Set<string>();
          for (const [reason, fresh] of steps) {
            if (fresh) id += 1;
            const before = { ...state, episode: episode({ id: `ep-${id}` }) };
            const out = run(skip(reason, before), before);
            for (const n of out.notifications) {
              const k = `${id}:${n.event}`;
              if (seen.has(k)) return false;
              seen.add(k);
            }
            state = out.state;
          }
          return true;
        },
      ),
    );
  });
});

describe("notificationsFor: done once per finished list", () => {
  const finishedList = listOf("completed", "completed");
  const finished = summarize(finishedList);
  /** The user's next turn: no episode, a new key, the list as it was. */
  const nextTurn = (state: ContinuationState, at: number): ContinuationState => ({
    ...state,
    episode: null,
    lastUserTurnAt: at,
    userTurnFingerprint: finished.fingerprint,
  });
  const doneOn = (state: ContinuationState, list = finishedList, reason = "no-incomplete-todos") =>
    notificationsFor({
      decision: skip(reason, state),
      before: state,
      summary: summarize(list),
      limits: LIMITS,
      now: NOW,
      wanted: ALL,
      list,
    });

  it("the same finished list is not announced again at the user's later turns", () => {
    const first = doneOn(inEpisode);
    expect(first.notifications[0]?.event).toBe("done");
    let state = first.state;
    for (let turn = 1; turn <= 3; turn++) {
      // Stored and read back, as the next hook process finds it.
      state = parseContinuationState(JSON.parse(JSON.stringify(nextTurn(state, NOW + turn))));
      const again = doneOn(state);
      expect(again.notifications).toEqual([]);
      state = again.state;
    }
  });

  it("a different finished list, or the same one reopened and finished, is news", () => {
    const first = doneOn(inEpisode);
    const other = listOf("completed", "completed", "cancelled");
    expect(doneOn(nextTurn(first.state, NOW + 1), other).notifications).toHaveLength(1);
    // Seen with an open item: the memory of the finished list goes.
    const open = listOf("completed", "pending");
    const reopened = notificationsFor({
      decision: skip("turn-not-safe", nextTurn(first.state, NOW + 2)),
      before: first.state,
      summary: summarize(open),
      limits: LIMITS,
      now: NOW,
      wanted: ALL,
      list: open,
    });
    expect(reopened.state.notified?.doneList).toBeUndefined();
    expect(doneOn(nextTurn(reopened.state, NOW + 3)).notifications).toHaveLength(1);
  });

  it("verified on another working tree is news; on the same tree it is not", () => {
    const check = (tree: string) => ({
      command: "npm test",
      status: "passed" as const,
      exitCode: 0,
      signal: null,
      startedAt: NOW,
      durationMs: 1,
      outputTail: "",
      tree,
    });
    const onTree = (state: ContinuationState, tree: string) => ({
      ...state,
      verify: { last: check(tree), nudged: null, halted: false },
    });
    const first = doneOn(onTree(inEpisode, "t1"), finishedList, "verified");
    expect(first.notifications).toHaveLength(1);
    const same = doneOn(onTree(nextTurn(first.state, NOW + 1), "t1"), finishedList, "verified");
    expect(same.notifications).toEqual([]);
    const moved = doneOn(onTree(nextTurn(same.state, NOW + 2), "t2"), finishedList, "verified");
    expect(moved.notifications).toHaveLength(1);
  });

  it("other events keep the memory of the finished list", () => {
    const first = doneOn(inEpisode);
    const later = nextTurn(first.state, NOW + 1);
    const stopped = run(skip("awaiting-user", later), later, finished);
    expect(stopped.notifications[0]?.event).toBe("needs-input");
    expect(doneOn(stopped.state).notifications).toEqual([]);
  });
});
