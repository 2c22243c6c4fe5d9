import { describe, expect, it } from "vitest";
import type {
  ContinuationState,
  DecisionInput,
  Episode,
  HostSignals,
  SkipReason,
  StopReason,
} from "../types.js";
import { decide, episodeId } from "./decide.js";
import {
  episode,
  injectable,
  LIMITS,
  NOW,
  outcome,
  stateWith,
  summaryOf,
} from "./test-support/fixtures.js";
import { onRealUserTurn } from "./transitions.js";

/** Mid-episode, progress made since the last nudge, a fresh safe outcome: injects. */
function midEpisode(): DecisionInput {
  const summary = summaryOf("completed", "pending", "pending");
  return {
    state: stateWith({
      episode: episode({ lastFingerprint: "fingerprint at the last nudge" }),
      lastOutcome: outcome("t2", { injected: true }),
    }),
    summary,
    signals: {},
    limits: { ...LIMITS },
    now: NOW,
  };
}

interface Draft {
  state: ContinuationState;
  episode: Episode;
  input: DecisionInput;
  signals: HostSignals;
}

/** One way to make each skip reason true, in ladder order. */
const MAKE: [SkipReason, (d: Draft) => void][] = [
  [
    "no-incomplete-todos",
    (d) => {
      d.input.summary = summaryOf("completed", "cancelled");
    },
  ],
  [
    "only-blocked-todos",
    (d) => {
      d.input.summary = summaryOf("completed", "blocked");
    },
  ],
  [
    "restart-kick-suppressed",
    (d) => {
      d.state.restartKickArmed = true;
    },
  ],
  [
    "user-abort-blocked",
    (d) => {
      d.state.userAbortBlocked = true;
    },
  ],
  [
    "continuation-stopped",
    (d) => {
      d.state.stopped = true;
    },
  ],
  [
    "provider-error",
    (d) => {
      d.state.parked = "provider-error";
    },
  ],
  [
    "agent-excluded",
    (d) => {
      d.signals.agentExcluded = true;
    },
  ],
  [
    "recovering",
    (d) => {
      d.signals.recovering = true;
    },
  ],
  [
    "background-work",
    (d) => {
      d.signals.backgroundWork = true;
    },
  ],
  [
    "awaiting-user",
    (d) => {
      d.signals.awaitingUser = true;
    },
  ],
  [
    "host-goal-active",
    (d) => {
      d.signals.hostGoalActive = true;
    },
  ],
  [
    "turn-not-safe",
    (d) => {
      d.state.lastOutcome = outcome("t2", { stopReason: "unknown" });
    },
  ],
  [
    "list-unchanged-since-user",
    (d) => {
      d.state.userTurnFingerprint = d.input.summary.fingerprint;
    },
  ],
  [
    "max-auto-turns",
    (d) => {
      d.episode.autoTurns = d.input.limits.maxAutoTurns;
    },
  ],
  [
    "max-tokens",
    (d) => {
      d.episode.tokens = d.input.limits.maxTokens;
    },
  ],
  [
    "max-wall-clock",
    (d) => {
      d.episode.startedAt = d.input.now - d.input.limits.maxWallClockMs;
    },
  ],
  [
    "too-many-incomplete",
    (d) => {
      d.input.limits.maxIncomplete = 0;
    },
  ],
  [
    "stagnation",
    (d) => {
      d.episode.lastFingerprint = d.input.summary.fingerprint;
      d.episode.stagnation = d.input.limits.stagnationLimit - 1;
    },
  ],
  [
    "cooldown",
    (d) => {
      d.episode.failures = 1;
      d.episode.lastFailureAt = d.input.now;
    },
  ],
];

function scenario(...reasons: SkipReason[]): DecisionInput {
  const input = midEpisode();
  const state = { ...input.state };
  const draft: Draft = { state, episode: { ...state.episode! }, input, signals: {} };
  for (const [reason, make] of MAKE) if (reasons.includes(reason)) make(draft);
  return { ...input, state: { ...draft.state, episode: draft.episode }, signals: draft.signals };
}

describe("decide: the skip ladder", () => {
  it("the base scenario injects", () => {
    expect(decide(scenario()).action).toBe("inject");
  });

  it.each(MAKE.map(([reason]) => reason))("skips with %s when only that holds", (reason) => {
    const decision = decide(scenario(reason));
    expect(decision).toMatchObject({ action: "skip", reason });
  });

  const pairs: [SkipReason, SkipReason][] = [];
  for (let i = 0; i < MAKE.length; i++) {
    for (let j = i + 1; j < MAKE.length; j++) {
      const earlier = MAKE[i]![0];
      const later = MAKE[j]![0];
      // An empty list and a list of blocked items cannot both be true.
      if (earlier === "no-incomplete-todos" && later === "only-blocked-todos") continue;
      pairs.push([earlier, later]);
    }
  }

  it.each(pairs)("%s wins over %s", (earlier, later) => {
    const input = scenario(earlier, later);
    expect(decide(scenario(later)).action).toBe("skip");
    expect(decide(input)).toMatchObject({ action: "skip", reason: earlier });
  });
});

describe("decide: the restart kick", () => {
  it("is consumed when it is the reason", () => {
    const decision = decide(scenario("restart-kick-suppressed"));
    expect(decision).toMatchObject({ action: "skip", reason: "restart-kick-suppressed" });
    expect(decision.state.restartKickArmed).toBe(false);
  });

  it.each(MAKE.slice(3).map(([reason]) => reason))(
    "is consumed even when %s would also skip",
    (later) => {
      const decision = decide(scenario("restart-kick-suppressed", later));
      expect(decision.state.restartKickArmed).toBe(false);
    },
  );

  it.each(["no-incomplete-todos", "only-blocked-todos"] as const)(
    "stays armed when %s stops the decision first",
    (reason) => {
      const decision = decide(scenario(reason, "restart-kick-suppressed"));
      expect(decision).toMatchObject({ action: "skip", reason });
      expect(decision.state.restartKickArmed).toBe(true);
    },
  );

  it("skips exactly one decision", () => {
    const first = decide(scenario("restart-kick-suppressed"));
    const second = decide({ ...scenario(), state: first.state });
    expect(first.action).toBe("skip");
    expect(second.action).toBe("inject");
  });
});

describe("decide: turn safety", () => {
  it.each<[StopReason, "inject" | SkipReason]>([
    ["stop", "inject"],
    ["tool_use", "inject"],
    ["length", "inject"],
    ["transient_error", "inject"],
    ["error", "provider-error"],
    ["aborted", "turn-not-safe"],
    ["context_overflow", "provider-error"],
    ["unknown", "turn-not-safe"],
  ])("after a %s turn: %s", (stopReason, expected) => {
    const decision = decide(
      injectable({ state: stateWith({ lastOutcome: outcome("t1", { stopReason }) }) }),
    );
    if (expected === "inject") expect(decision.action).toBe("inject");
    else expect(decision).toMatchObject({ action: "skip", reason: expected });
  });

  it("skips when no outcome is recorded", () => {
    expect(decide(injectable({ state: stateWith() }))).toMatchObject({
      action: "skip",
      reason: "turn-not-safe",
    });
  });

  it("skips a restart-caused abort as not safe, without blocking on it", () => {
    const state = stateWith({
      lastOutcome: outcome("t1", { stopReason: "aborted", restartCaused: true }),
    });
    expect(decide(injectable({ state }))).toMatchObject({
      action: "skip",
      reason: "turn-not-safe",
    });
  });

  it("never answers one outcome twice: a duplicate idle skips", () => {
    const first = decide(injectable());
    expect(first.action).toBe("inject");
    const second = decide(injectable({ state: first.state }));
    expect(second).toMatchObject({ action: "skip", reason: "turn-not-safe" });
  });

  it("answers the next outcome after a nudge", () => {
    const first = decide(injectable());
    const state = { ...first.state, lastOutcome: outcome("t2", { injected: true }) };
    const next = decide(injectable({ state, summary: summaryOf("completed", "pending") }));
    expect(next.action).toBe("inject");
  });
});

describe("decide: injecting", () => {
  it("opens an episode at the first nudge, ids and times from now", () => {
    const decision = decide(injectable({ state: stateWith({ lastOutcome: outcome("t1") }) }));
    if (decision.action !== "inject") throw new Error("expected inject");
    expect(decision.episode).toEqual({
      id: episodeId(NOW),
      startedAt: NOW,
      autoTurns: 1,
      tokens: 0,
      stagnation: 0,
      lastFingerprint: summaryOf("pending", "pending").fingerprint,
      minIncomplete: 2,
      maxCompleted: 0,
      lastCountedTurnId: "t1",
      failures: 0,
      lastInjectionAt: NOW,
      lastFailureAt: null,
      answeredTurnId: "t1",
      errorRetries: 0,
    });
    expect(decision.state.episode).toBe(decision.episode);
  });

  it("does not charge the user's own turn to the episode", () => {
    const usage = { input: 900, output: 500, cacheRead: 0, cacheWrite: 100, total: 1_500 };
    const decision = decide(
      injectable({ state: stateWith({ lastOutcome: outcome("t1", { usage }) }) }),
    );
    expect(decision.state.episode?.tokens).toBe(0);
  });

  it("counts up an open episode and keeps its id and start", () => {
    const decision = decide(midEpisode());
    if (decision.action !== "inject") throw new Error("expected inject");
    expect(decision.episode).toMatchObject({
      id: "ep-test",
      startedAt: NOW - 10_000,
      autoTurns: 2,
      lastInjectionAt: NOW,
      answeredTurnId: "t2",
      lastFingerprint: summaryOf("completed", "pending", "pending").fingerprint,
    });
  });

  it("never mutates its input", () => {
    const input = midEpisode();
    const copy = structuredClone(input);
    decide(input);
    decide(scenario("restart-kick-suppressed"));
    expect(input).toEqual(copy);
  });

  it("writes nothing on an ordinary skip", () => {
    const input = scenario("background-work");
    const counted = {
      ...input.state,
      episode: { ...input.state.episode!, lastCountedTurnId: "t2" },
    };
    const decision = decide({ ...input, state: counted });
    expect(decision).toMatchObject({ action: "skip", reason: "background-work" });
    expect(decision.state).toBe(counted);
  });

  it("gives episode ids that differ between times", () => {
    expect(episodeId(1_000)).not.toBe(episodeId(2_000));
  });
});

describe("decide: failing closed", () => {
  it.each([1, "yes", {}, 0.5])("treats a signal value of %j as set", (value) => {
    const signals = { backgroundWork: value } as unknown as HostSignals;
    expect(decide({ ...midEpisode(), signals })).toMatchObject({ reason: "background-work" });
  });

  it.each([undefined, null, false])("treats a signal value of %j as absent", (value) => {
    const signals = { recovering: value } as unknown as HostSignals;
    expect(decide({ ...midEpisode(), signals }).action).toBe("inject");
  });

  it("reads a NaN count as nothing to do", () => {
    const summary = { ...summaryOf("pending"), incomplete: Number.NaN };
    expect(decide(injectable({ summary }))).toMatchObject({ reason: "no-incomplete-todos" });
  });

  it.each([
    ["maxAutoTurns", "max-auto-turns"],
    ["maxTokens", "max-tokens"],
    ["maxWallClockMs", "max-wall-clock"],
    ["maxIncomplete", "too-many-incomplete"],
    ["stagnationLimit", "stagnation"],
  ] as const)("skips when limits.%s is NaN", (field, reason) => {
    const input = midEpisode();
    const limits = { ...input.limits, [field]: Number.NaN };
    expect(decide({ ...input, limits })).toMatchObject({ action: "skip", reason });
  });

  it("keeps the cooldown on when its figures are NaN", () => {
    const input = scenario("cooldown");
    const later = NOW + 30_000;
    expect(decide({ ...input, now: later }).action).toBe("inject");
    const limits = { ...input.limits, cooldownBaseMs: Number.NaN };
    expect(decide({ ...input, limits, now: later })).toMatchObject({ reason: "cooldown" });
  });

  it("treats an episode that starts in the future as out of wall clock", () => {
    const input = midEpisode();
    const state = { ...input.state, episode: episode({ startedAt: NOW + 1 }) };
    expect(decide({ ...input, state })).toMatchObject({ reason: "max-wall-clock" });
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY, "1000"])("rejects now = %j", (now) => {
    expect(() => decide(injectable({ now: now as number }))).toThrow(/now must be a finite number/);
  });

  it("treats missing state fields as absent, not as a crash", () => {
    const state = { ...stateWith(), episode: undefined, lastOutcome: undefined } as never;
    expect(decide(injectable({ state }))).toMatchObject({ reason: "turn-not-safe" });
  });

  it("a zero turn budget never injects", () => {
    const limits = { ...LIMITS, maxAutoTurns: 0 };
    expect(decide(injectable({ limits }))).toMatchObject({ reason: "max-auto-turns" });
  });
});

describe("decide: after a real user turn", () => {
  const unchanged = summaryOf("pending", "pending");

  it("skips while the list is as it was when the user spoke", () => {
    const state = stateWith({
      lastOutcome: outcome("t1"),
      userTurnFingerprint: unchanged.fingerprint,
    });
    expect(decide(injectable({ state, summary: unchanged }))).toMatchObject({
      action: "skip",
      reason: "list-unchanged-since-user",
    });
  });

  it("nudges once the agent worked its list", () => {
    const state = stateWith({
      lastOutcome: outcome("t1"),
      userTurnFingerprint: unchanged.fingerprint,
    });
    const worked = summaryOf("completed", "pending");
    expect(decide(injectable({ state, summary: worked })).action).toBe("inject");
  });

  it("does not gate a scope where no user turn was recorded", () => {
    const state = stateWith({ lastOutcome: outcome("t1"), userTurnFingerprint: null });
    expect(decide(injectable({ state, summary: unchanged })).action).toBe("inject");
  });
});

describe("decide: transient provider errors", () => {
  const failed = (retries: number, overrides: Partial<DecisionInput> = {}) =>
    injectable({
      state: stateWith({
        episode: episode({ errorRetries: retries, lastFingerprint: "x" }),
        lastOutcome: outcome("t2", { stopReason: "transient_error", injected: true }),
      }),
      ...overrides,
    });

  it("retries: marked as a retry, counted as a nudge and as a retry", () => {
    const decision = decide(failed(0));
    if (decision.action !== "inject") throw new Error("expected inject");
    expect(decision.retry).toBe(true);
    expect(decision.episode.autoTurns).toBe(2);
    expect(decision.episode.errorRetries).toBe(1);
  });

  it("a retry passes the list gate and is not judged for stagnation", () => {
    const summary = summaryOf("pending", "pending");
    const input = failed(0, { summary });
    input.state = {
      ...input.state,
      userTurnFingerprint: summary.fingerprint,
      episode: episode({ lastFingerprint: summary.fingerprint, stagnation: 1 }),
    };
    const decision = decide({ ...input, limits: { ...LIMITS, stagnationLimit: 1 } });
    expect(decision).toMatchObject({ action: "inject", retry: true });
    expect(decision.state.episode?.stagnation).toBe(1);
  });

  it("is charged to the budgets like any nudge", () => {
    const input = failed(0);
    input.state = { ...input.state, episode: episode({ autoTurns: LIMITS.maxAutoTurns }) };
    expect(decide(input)).toMatchObject({ action: "skip", reason: "max-auto-turns" });
  });

  it("parks after maxErrorRetries in a row, and stays parked", () => {
    const decision = decide(failed(1));
    expect(decision).toMatchObject({ action: "skip", reason: "retries-exhausted" });
    expect(decision.state.parked).toBe("retries-exhausted");
    const later = decide({
      ...injectable(),
      state: { ...decision.state, lastOutcome: outcome("t3", { injected: true }) },
    });
    expect(later).toMatchObject({ action: "skip", reason: "retries-exhausted" });
  });

  it("gives a transient error its retry again once the user has spoken (a new episode)", () => {
    const retried = decide(failed(0));
    expect(retried).toMatchObject({ action: "inject", retry: true });
    // Before the user speaks, a second transient error in a row has used the retry up.
    const again = decide({
      ...failed(0),
      state: {
        ...retried.state,
        lastOutcome: outcome("t3", { stopReason: "transient_error", injected: true }),
      },
    });
    expect(again).toMatchObject({ action: "skip", reason: "retries-exhausted" });
    // The user's turn ends the episode: the next transient error is retried again.
    const user = onRealUserTurn(retried.state, NOW + 1_000, null);
    const afterUser = decide({
      ...failed(0),
      now: NOW + 2_000,
      state: { ...user, lastOutcome: outcome("t4", { stopReason: "transient_error" }) },
    });
    expect(afterUser).toMatchObject({ action: "inject", retry: true });
    if (afterUser.action === "inject") expect(afterUser.episode.errorRetries).toBe(1);
  });

  it("adds no retry to one the host already retried itself, and parks at once", () => {
    const input = failed(0);
    const last = input.state.lastOutcome;
    if (last === null) throw new Error("expected an outcome");
    input.state = { ...input.state, lastOutcome: { ...last, hostRetried: true } };
    const decision = decide(input);
    expect(decision).toMatchObject({ action: "skip", reason: "retries-exhausted" });
    expect(decision.state.parked).toBe("retries-exhausted");
  });

  it("never retries with maxErrorRetries 0", () => {
    const decision = decide(failed(0, { limits: { ...LIMITS, maxErrorRetries: 0 } }));
    expect(decision).toMatchObject({ action: "skip", reason: "retries-exhausted" });
  });

  it("a non-retryable error parks the scope", () => {
    for (const stopReason of ["error", "context_overflow"] as const) {
      const decision = decide(
        injectable({ state: stateWith({ lastOutcome: outcome("t1", { stopReason }) }) }),
      );
      expect(decision).toMatchObject({ action: "skip", reason: "provider-error" });
      expect(decision.state.parked).toBe("provider-error");
    }
  });
});
