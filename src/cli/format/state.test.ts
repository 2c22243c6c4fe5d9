import { describe, expect, it } from "vitest";
import { emptyState } from "../../core/engine/state.js";
import type { ContinuationState, DecisionLogEntry, Episode, Limits } from "../../core/types.js";
import {
  budgetLines,
  decisionPhrase,
  outcomeLine,
  reminderLine,
  stateWords,
  suppressorLines,
} from "./state.js";

const limits: Limits = {
  maxAutoTurns: 3,
  maxTokens: 25_000,
  maxWallClockMs: 30 * 60_000,
  stagnationLimit: 2,
  stagnationMode: "fingerprint",
  tokenMode: "spend",
  maxIncomplete: null,
  maxCostUsd: null,
  cooldownBaseMs: 5_000,
  cooldownMaxMs: 60_000,
  maxDeliveryFailures: 3,
  maxErrorRetries: 1,
  errorBackoffMs: 5_000,
};

const episode: Episode = {
  id: "ep-1",
  startedAt: 0,
  autoTurns: 2,
  tokens: 1_200,
  stagnation: 1,
  lastFingerprint: null,
  minIncomplete: null,
  maxCompleted: null,
  lastCountedTurnId: null,
  failures: 0,
  lastInjectionAt: null,
  lastFailureAt: null,
  answeredTurnId: null,
};

const entry: DecisionLogEntry = {
  at: 0,
  action: "skip",
  reason: "stagnation",
  episodeId: "ep-1",
  autoTurns: 2,
  tokens: 0,
  stagnation: 2,
  actionable: 3,
  blocked: 0,
  nudgeChars: null,
  nudgeTokens: null,
  trigger: "idle",
};

function state(patch: Partial<ContinuationState>): ContinuationState {
  return { ...emptyState(), ...patch };
}

describe("budgetLines", () => {
  it("shows every budget as used of limit", () => {
    const text = budgetLines(state({ episode }), limits, 3 * 60_000).join("\n");
    expect(text).toContain("nudges      2 of 3");
    expect(text).toContain("tokens      1,200 of 25,000 (spend)");
    expect(text).toContain("time        3m of 30m");
    expect(text).toContain("stagnation  1 of 2 (fingerprint)");
    expect(text).not.toContain("failed deliveries");
  });

  it("mentions failed deliveries only when there were some", () => {
    const text = budgetLines(state({ episode: { ...episode, failures: 2 } }), limits, 0).join("\n");
    expect(text).toContain("failed deliveries  2 of 3");
  });

  it("counts stagnation as the next decision would, given the list", () => {
    const judged = {
      ...episode,
      stagnation: 0,
      answeredTurnId: "t1",
      minIncomplete: 3,
      maxCompleted: 1,
    };
    const summary = {
      total: 4,
      actionable: 3,
      blocked: 0,
      completed: 1,
      cancelled: 0,
      incomplete: 3,
      fingerprint: "f",
    };
    const strict = { ...limits, stagnationMode: "strict" as const };
    const outcome = {
      turnId: "t2",
      stopReason: "stop" as const,
      endedAt: 0,
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      injected: true,
      restartCaused: false,
    };
    const text = budgetLines(state({ episode: judged, lastOutcome: outcome }), strict, 0, summary);
    expect(text.join("\n")).toContain("stagnation  1 of 2 (strict)");
    // The turn the last nudge answered is not judged again.
    const answered = { ...outcome, turnId: "t1" };
    const again = budgetLines(
      state({ episode: judged, lastOutcome: answered }),
      strict,
      0,
      summary,
    );
    expect(again.join("\n")).toContain("stagnation  0 of 2 (strict)");
    expect(budgetLines(state({ episode: judged }), strict, 0).join("\n")).toContain(
      "stagnation  0 of 2",
    );
  });

  it("says how an episode opens when none is open", () => {
    expect(budgetLines(emptyState(), limits, 0)[0]).toContain("No episode is open");
  });
});

describe("suppressorLines", () => {
  it("lists each active suppressor and nothing when none is set", () => {
    expect(suppressorLines(emptyState())).toEqual([]);
    const lines = suppressorLines(
      state({ stopped: true, userAbortBlocked: true, restartKickArmed: true }),
    );
    expect(lines).toHaveLength(3);
    expect(lines[0]).toContain("resume");
  });
});

describe("outcomeLine", () => {
  it("describes the last turn or says there was none", () => {
    expect(outcomeLine(null, 0)).toBe("none recorded");
    const line = outcomeLine(
      {
        turnId: "t",
        stopReason: "aborted",
        endedAt: 0,
        usage: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0, total: 1_500 },
        injected: true,
        restartCaused: false,
      },
      120_000,
    );
    expect(line).toBe('ended "aborted" 2m ago, 1,500 tokens, started by a nudge');
  });
});

describe("reminderLine", () => {
  it("counts queued reminders by kind", () => {
    expect(reminderLine([])).toBeNull();
    expect(
      reminderLine([
        { kind: "user-edit", text: "a", at: 0 },
        { kind: "user-edit", text: "b", at: 0 },
      ]),
    ).toBe("2 reminders queued for the next turn (user-edit)");
  });
});

describe("decisionPhrase", () => {
  it("names skips by title and stable reason, injects by number", () => {
    expect(decisionPhrase(entry)).toBe("skip: no progress (stagnation)");
    expect(decisionPhrase({ ...entry, action: "inject", reason: null, delivered: true })).toBe(
      "inject nudge #2, delivered",
    );
    expect(
      decisionPhrase({ ...entry, action: "delivery-failed", reason: null, note: "socket closed" }),
    ).toBe("delivery failed: socket closed");
  });
});

describe("stateWords", () => {
  it("puts what holds nudges back first", () => {
    expect(stateWords(state({ stopped: true, episode }), limits, entry)).toBe("stopped by user");
    expect(stateWords(state({ userAbortBlocked: true }), limits, null)).toBe("interrupted by user");
  });

  it("shows the open episode's budget and the last decision", () => {
    expect(stateWords(state({ episode }), limits, entry)).toBe(
      "episode: 2/3 nudges, last: stagnation",
    );
    expect(stateWords(emptyState(), limits, null)).toBe("idle");
  });

  it("counts what the user added with resume --add", () => {
    const raised = { ...episode, raised: { nudges: 4, tokens: 0, timeMs: 0, costUsd: 0 } };
    expect(stateWords(state({ episode: raised }), limits, null)).toBe(
      `episode: ${episode.autoTurns}/${limits.maxAutoTurns + 4} nudges`,
    );
  });
});
