import { describe, expect, it } from "vitest";
import type { ContinuationState, Reminder, TurnOutcome } from "../types.js";
import { emptyState, MAX_REMINDERS, parseContinuationState } from "./state.js";
import { episode, NOW, outcome, stateWith } from "./test-support/fixtures.js";
import {
  armRestartKick,
  drainReminders,
  onDeliveryFailed,
  onDeliverySucceeded,
  onInjectedTurnStart,
  onRealUserTurn,
  onTurnOutcome,
  pushReminder,
  setStopped,
} from "./transitions.js";

const reminder = (text: string, at = NOW): Reminder => ({ kind: "custom", text, at });

function busyState(): ContinuationState {
  return stateWith({
    episode: episode({ autoTurns: 3, tokens: 500 }),
    lastOutcome: outcome("t1", { stopReason: "aborted" }),
    userAbortBlocked: true,
    restartKickArmed: true,
    stopped: true,
    reminders: [reminder("queued")],
  });
}

describe("onRealUserTurn", () => {
  it("ends the episode, lifts the abort block and forgets the old outcome", () => {
    const next = onRealUserTurn(busyState(), NOW);
    expect(next.episode).toBeNull();
    expect(next.userAbortBlocked).toBe(false);
    expect(next.lastOutcome).toBeNull();
    expect(next.lastUserTurnAt).toBe(NOW);
  });

  it("keeps the user's stop and queued reminders", () => {
    const next = onRealUserTurn(busyState(), NOW);
    expect(next).toMatchObject({ stopped: true });
    expect(next.reminders).toHaveLength(1);
  });

  it("disarms the restart kick: a person is driving, there is no automatic turn to stand in for", () => {
    expect(busyState().restartKickArmed).toBe(true);
    expect(onRealUserTurn(busyState(), NOW).restartKickArmed).toBe(false);
  });

  it("lifts a park after a provider error and remembers the list's fingerprint", () => {
    const next = onRealUserTurn({ ...busyState(), parked: "retries-exhausted" }, NOW, "fp-1");
    expect(next.parked).toBeNull();
    expect(next.userTurnFingerprint).toBe("fp-1");
    expect(() => onRealUserTurn(busyState(), NOW, 7 as unknown as string)).toThrow(
      /listFingerprint must be a string or null/,
    );
  });

  it("rejects a bad time and leaves the state alone", () => {
    const state = busyState();
    expect(() => onRealUserTurn(state, Number.NaN)).toThrow(/onRealUserTurn: now must be/);
    expect(state.episode?.autoTurns).toBe(3);
  });
});

describe("onInjectedTurnStart", () => {
  it("resets nothing", () => {
    const state = busyState();
    expect(onInjectedTurnStart(state)).toBe(state);
  });
});

describe("onTurnOutcome", () => {
  it("a clean ending ends a run of provider errors; an error keeps it", () => {
    const state = stateWith({ episode: episode({ errorRetries: 1 }) });
    const failed = onTurnOutcome(state, outcome("t2", { stopReason: "transient_error" }), "spend");
    expect(failed.episode?.errorRetries).toBe(1);
    const clean = onTurnOutcome(failed, outcome("t3", { stopReason: "tool_use" }), "spend");
    expect(clean.episode?.errorRetries).toBe(0);
  });

  it("stores the outcome", () => {
    const recorded = outcome("t9", { stopReason: "tool_use" });
    expect(onTurnOutcome(emptyState(), recorded).lastOutcome).toEqual(recorded);
  });

  it("blocks nudges after a user abort", () => {
    const next = onTurnOutcome(emptyState(), outcome("t1", { stopReason: "aborted" }));
    expect(next.userAbortBlocked).toBe(true);
  });

  it("does not block after an abort a restart caused", () => {
    const aborted = outcome("t1", { stopReason: "aborted", restartCaused: true });
    expect(onTurnOutcome(emptyState(), aborted).userAbortBlocked).toBe(false);
  });

  it("does not lift a block on a clean turn", () => {
    const blocked = stateWith({ userAbortBlocked: true });
    expect(onTurnOutcome(blocked, outcome("t2")).userAbortBlocked).toBe(true);
  });

  it("folds spend into an open episode only when given a token mode", () => {
    const state = stateWith({ episode: episode({ tokens: 10 }) });
    const usage = { input: 1, output: 2, cacheRead: 1_000, cacheWrite: 3, total: 1_006 };
    expect(onTurnOutcome(state, outcome("t2", { usage })).episode?.tokens).toBe(10);
    expect(onTurnOutcome(state, outcome("t2", { usage }), "spend").episode?.tokens).toBe(16);
    expect(onTurnOutcome(state, outcome("t2", { usage }), "total").episode?.tokens).toBe(1_016);
  });

  it("reads missing usage as zeros and rounds fractions up", () => {
    const raw = { ...outcome("t1"), usage: { output: 2.5 } } as unknown as TurnOutcome;
    expect(onTurnOutcome(emptyState(), raw).lastOutcome?.usage).toEqual({
      input: 0,
      output: 3,
      cacheRead: 0,
      cacheWrite: 0,
      total: 0,
    });
    const none = { ...outcome("t1"), usage: undefined } as unknown as TurnOutcome;
    expect(onTurnOutcome(emptyState(), none).lastOutcome?.usage.total).toBe(0);
  });

  it("stores an outcome the parser reads back unchanged", () => {
    const next = onTurnOutcome(emptyState(), outcome("t1", { usage: { output: 1e300 } as never }));
    const reread = parseContinuationState(JSON.parse(JSON.stringify(next)));
    expect(reread.lastOutcome).toEqual(next.lastOutcome);
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ["turnId", { turnId: "" }, /outcome\.turnId must be a non-empty string, got ""/],
    ["stopReason", { stopReason: "done" }, /outcome\.stopReason must be one of stop, .*got "done"/],
    ["endedAt", { endedAt: -1 }, /outcome\.endedAt must be a finite, non-negative time/],
    ["usage", { usage: [] }, /outcome\.usage must be an object, got an array/],
    ["usage.output", { usage: { output: "9" } }, /outcome\.usage\.output must be a non-negative/],
    ["injected", { injected: "no" }, /outcome\.injected must be a boolean/],
    ["restartCaused", { restartCaused: 1 }, /outcome\.restartCaused must be a boolean/],
  ])("rejects a bad %s, naming it", (_field, patch, message) => {
    const state = emptyState();
    const bad = { ...outcome("t1"), ...patch } as unknown as TurnOutcome;
    expect(() => onTurnOutcome(state, bad)).toThrow(message);
    expect(state.lastOutcome).toBeNull();
  });

  it("rejects a missing outcome", () => {
    expect(() => onTurnOutcome(emptyState(), null as never)).toThrow(/must be an object, got null/);
  });
});

describe("flags", () => {
  it("arms the restart kick", () => {
    expect(armRestartKick(emptyState()).restartKickArmed).toBe(true);
  });

  it("stops and resumes", () => {
    const stopped = setStopped(emptyState(), true);
    expect(stopped.stopped).toBe(true);
    expect(setStopped(stopped, false).stopped).toBe(false);
  });

  it("rejects a stop value that is not a boolean", () => {
    expect(() => setStopped(emptyState(), "yes" as never)).toThrow(
      /setStopped: stopped must be a boolean, got "yes"/,
    );
  });
});

describe("delivery", () => {
  it("a failure counts, is timed, and reopens the answered outcome", () => {
    const next = onDeliveryFailed(stateWith({ episode: episode() }), NOW);
    expect(next.episode).toMatchObject({ failures: 1, lastFailureAt: NOW, answeredTurnId: null });
    expect(next.episode?.autoTurns).toBe(1);
  });

  it("a success clears the streak", () => {
    const failed = onDeliveryFailed(onDeliveryFailed(stateWith({ episode: episode() }), 1), 2);
    expect(onDeliverySucceeded(failed).episode?.failures).toBe(0);
  });

  it("changes nothing without an episode", () => {
    const state = emptyState();
    expect(onDeliveryFailed(state, NOW)).toBe(state);
    expect(onDeliverySucceeded(state)).toBe(state);
  });

  it("rejects a bad failure time", () => {
    expect(() => onDeliveryFailed(emptyState(), -5)).toThrow(/onDeliveryFailed: now must be/);
  });
});

describe("reminders", () => {
  it("queue in order and drain once", () => {
    let state = pushReminder(emptyState(), reminder("first"));
    state = pushReminder(state, { kind: "write-failed", text: "second", at: NOW + 1 });
    const drained = drainReminders(state);
    expect(drained.reminders.map((r) => r.text)).toEqual(["first", "second"]);
    expect(drained.state.reminders).toEqual([]);
    expect(state.reminders).toHaveLength(2);
  });

  it("keep only the newest MAX_REMINDERS", () => {
    let state = emptyState();
    for (let i = 0; i < MAX_REMINDERS + 5; i++) state = pushReminder(state, reminder(`r${i}`));
    expect(state.reminders).toHaveLength(MAX_REMINDERS);
    expect(state.reminders[0]?.text).toBe("r5");
  });

  it.each<[string, unknown, RegExp]>([
    ["kind", { kind: "note", text: "x", at: 1 }, /reminder\.kind must be one of user-edit/],
    ["text", { kind: "custom", text: " ", at: 1 }, /reminder\.text must be a non-empty string/],
    ["at", { kind: "custom", text: "x", at: "now" }, /reminder\.at must be a finite/],
  ])("reject a bad %s", (_field, bad, message) => {
    expect(() => pushReminder(emptyState(), bad as Reminder)).toThrow(message);
  });
});
