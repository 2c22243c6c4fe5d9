import { describe, expect, it } from "vitest";
import { emptyState } from "../engine/state.js";
import type { Episode, Limits, SkipReason, TodoSummary } from "../types.js";
import { explainSkip, REASON_TITLES, type ReasonContext } from "./reasons.js";

const limits: Limits = {
  maxAutoTurns: 3,
  maxTokens: 25_000,
  maxWallClockMs: 30 * 60_000,
  stagnationLimit: 2,
  stagnationMode: "fingerprint",
  tokenMode: "spend",
  maxIncomplete: 10,
  maxCostUsd: null,
  cooldownBaseMs: 5_000,
  cooldownMaxMs: 60_000,
  maxDeliveryFailures: 3,
  maxErrorRetries: 1,
  errorBackoffMs: 5_000,
};

const summary: TodoSummary = {
  total: 4,
  actionable: 2,
  blocked: 1,
  completed: 1,
  cancelled: 0,
  incomplete: 3,
  fingerprint: "f",
};

const episode: Episode = {
  id: "e1",
  startedAt: 0,
  autoTurns: 3,
  tokens: 26_000,
  stagnation: 2,
  lastFingerprint: "f",
  minIncomplete: 3,
  maxCompleted: 1,
  lastCountedTurnId: null,
  failures: 1,
  lastInjectionAt: null,
  lastFailureAt: null,
  answeredTurnId: null,
};

function ctx(overrides: Partial<ReasonContext> = {}): ReasonContext {
  return { state: { ...emptyState(), episode }, summary, limits, now: 45 * 60_000, ...overrides };
}

describe("explainSkip", () => {
  it("has a title and a sentence for every skip reason", () => {
    for (const reason of Object.keys(REASON_TITLES) as SkipReason[]) {
      expect(explainSkip(reason, ctx()).length).toBeGreaterThan(20);
    }
  });

  it("quotes the budget numbers", () => {
    expect(explainSkip("max-auto-turns", ctx())).toContain("3 of 3 nudges");
    expect(explainSkip("max-tokens", ctx())).toContain("26,000 of 25,000 tokens");
    expect(explainSkip("max-wall-clock", ctx())).toContain("45m of 30m");
    expect(explainSkip("max-wall-clock", ctx({ now: -1 }))).toContain("lies in the future");
    expect(explainSkip("stagnation", ctx())).toContain("over the last 2 nudges (limit 2)");
    expect(explainSkip("too-many-incomplete", ctx())).toContain("3 incomplete items");
  });

  it("counts the nudge being judged, which a skip never stores", () => {
    const judged = ctx({
      state: { ...emptyState(), episode: { ...episode, stagnation: 0, answeredTurnId: "t1" } },
      limits: { ...limits, stagnationLimit: 1, stagnationMode: "strict" },
    });
    expect(explainSkip("stagnation", judged)).toContain("over the last 1 nudge (limit 1)");
    expect(explainSkip("stagnation", judged)).toContain("no item closed");
  });

  it("names the stop reason of an unsafe turn, or says none was recorded", () => {
    const none = explainSkip("turn-not-safe", ctx());
    expect(none).toContain("No turn outcome");
    const aborted = explainSkip(
      "turn-not-safe",
      ctx({
        state: {
          ...emptyState(),
          lastOutcome: {
            turnId: "t",
            stopReason: "context_overflow",
            endedAt: 0,
            usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
            injected: false,
            restartCaused: false,
          },
        },
      }),
    );
    expect(aborted).toContain('"context_overflow"');
  });

  it("says when the last turn was already answered", () => {
    const answered = ctx({
      state: {
        ...emptyState(),
        lastOutcome: {
          turnId: "t",
          stopReason: "stop",
          endedAt: 0,
          usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
          injected: true,
          restartCaused: false,
        },
      },
    });
    expect(explainSkip("turn-not-safe", answered)).toContain("already answered");
  });

  it("tells an empty list from a finished one", () => {
    expect(
      explainSkip("no-incomplete-todos", ctx({ summary: { ...summary, total: 0 } })),
    ).toContain("empty");
    expect(explainSkip("no-incomplete-todos", ctx())).toContain("completed or cancelled");
  });

  it("says when delivery failures made the episode give up", () => {
    const gaveUp = ctx({ state: { ...emptyState(), episode: { ...episode, failures: 3 } } });
    expect(explainSkip("cooldown", gaveUp)).toContain("stops trying");
    const waiting = ctx({
      state: { ...emptyState(), episode: { ...episode, failures: 1, lastFailureAt: 0 } },
      now: 1_000,
    });
    expect(explainSkip("cooldown", waiting)).toContain("next try is allowed in 4s");
  });
});
