import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type {
  CheckResult,
  CheckStatus,
  ContinuationState,
  Limits,
  StopReason,
  TodoSummary,
  VerifySettings,
} from "../types.js";
import { decide } from "./decide.js";
import { UNLIMITED } from "./limits.js";
import { emptyState, zeroUsage } from "./state.js";
import { summaryOf } from "./test-support/fixtures.js";
import {
  onDeliveryFailed,
  onDeliverySucceeded,
  onRealUserTurn,
  onTurnOutcome,
} from "./transitions.js";
import { decideVerification, failureKey, verifyDue } from "./verify.js";

const RUNS = 2_000;

const limitsArb: fc.Arbitrary<Limits> = fc.record({
  maxAutoTurns: fc.integer({ min: 0, max: 5 }),
  maxTokens: fc.constantFrom(0, 3_000, UNLIMITED, UNLIMITED),
  maxWallClockMs: fc.constantFrom(0, 50_000, UNLIMITED, UNLIMITED),
  stagnationLimit: fc.integer({ min: 0, max: 2 }),
  stagnationMode: fc.constantFrom("fingerprint" as const, "strict" as const),
  tokenMode: fc.constantFrom("spend" as const, "total" as const),
  maxIncomplete: fc.constant(null),
  maxCostUsd: fc.constant(null),
  cooldownBaseMs: fc.constantFrom(0, 1_000),
  cooldownMaxMs: fc.constant(4_000),
  maxDeliveryFailures: fc.integer({ min: 1, max: 3 }),
  maxErrorRetries: fc.integer({ min: 0, max: 1 }),
  errorBackoffMs: fc.constant(0),
});

const LISTS: TodoSummary[] = [
  summaryOf("completed", "completed"),
  summaryOf("completed", "blocked"),
  summaryOf("completed", "pending"),
  summaryOf("cancelled"),
];

type Event =
  | { kind: "user" }
  | { kind: "list"; index: number }
  | { kind: "tree" }
  | {
      kind: "stop";
      stopReason: StopReason;
      output: number;
      status: CheckStatus;
      tail: number;
      deliver: boolean;
    };

const eventArb: fc.Arbitrary<Event> = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ kind: "user" as const }) },
  {
    weight: 2,
    arbitrary: fc.integer({ min: 0, max: LISTS.length - 1 }).map((index) => ({
      kind: "list" as const,
      index,
    })),
  },
  { weight: 2, arbitrary: fc.constant({ kind: "tree" as const }) },
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant("stop" as const),
      stopReason: fc.constantFrom<StopReason>(
        "stop",
        "stop",
        "stop",
        "tool_use",
        "error",
        "aborted",
      ),
      output: fc.integer({ min: 0, max: 2_000 }),
      status: fc.constantFrom<CheckStatus>(
        "failed",
        "failed",
        "failed",
        "passed",
        "timed-out",
        "error",
      ),
      tail: fc.integer({ min: 0, max: 1 }),
      deliver: fc.boolean(),
    }),
  },
);

interface Trace {
  /** Nudges (list or verification) delivered or attempted, per episode since the last user turn. */
  perEpisode: number[];
  verificationFromUnusable: number;
  repeatedUnchanged: number;
}

/**
 * Plays a session in which every stop runs the whole decision the runtime
 * makes: the list decision, then, when the list is finished, the check
 * (re-run only when the tree changed) and the verification decision.
 */
function play(limits: Limits, when: VerifySettings["when"], events: Event[]): Trace {
  const settings: VerifySettings = { command: "check", timeoutMs: 1_000, when };
  let state: ContinuationState = emptyState();
  let now = 1_000_000;
  let summary = LISTS[0] as TodoSummary;
  let tree = 0;
  let turn = 0;
  let cache: CheckResult | null = null;
  let lastNudgedKey: string | null = null;
  const trace: Trace = {
    perEpisode: [0],
    verificationFromUnusable: 0,
    repeatedUnchanged: 0,
  };
  for (const event of events) {
    now += 1_000;
    if (event.kind === "user") {
      state = onRealUserTurn(state, now, summary.fingerprint);
      trace.perEpisode.push(0);
      lastNudgedKey = null;
      continue;
    }
    if (event.kind === "list") {
      summary = LISTS[event.index] as TodoSummary;
      continue;
    }
    if (event.kind === "tree") {
      tree += 1;
      continue;
    }
    turn += 1;
    state = onTurnOutcome(
      state,
      {
        turnId: `t${turn}`,
        stopReason: event.stopReason,
        endedAt: now,
        usage: { ...zeroUsage(), output: event.output, total: event.output },
        injected: false,
        restartCaused: false,
      },
      limits.tokenMode,
    );
    let decision = decide({ state, summary, signals: {}, limits, now });
    const due = verifyDue({ settings, decision, state, summary, signals: {} });
    if (due === "finished") {
      const treeKey = `tree-${tree}`;
      // The runner's rule: an unchanged tree reuses the cached result.
      if (cache === null || cache.tree !== treeKey) {
        cache = {
          command: "check",
          status: event.status,
          exitCode: event.status === "passed" ? 0 : event.status === "failed" ? 1 : null,
          signal: null,
          startedAt: now,
          durationMs: 10,
          outputTail: `tail ${event.tail}`,
          tree: treeKey,
        };
      }
      decision = decideVerification({ state, summary, signals: {}, limits, now, check: cache });
      if (decision.action === "inject") {
        if (cache.status !== "failed") trace.verificationFromUnusable += 1;
        const key = `${cache.tree}|${summary.fingerprint}|${failureKey(cache)}`;
        if (key === lastNudgedKey) trace.repeatedUnchanged += 1;
        lastNudgedKey = key;
      }
    }
    state = decision.state;
    if (decision.action === "inject") {
      trace.perEpisode[trace.perEpisode.length - 1] =
        (trace.perEpisode[trace.perEpisode.length - 1] ?? 0) + 1;
      state = event.deliver ? onDeliverySucceeded(state) : onDeliveryFailed(state, now);
    }
  }
  return trace;
}

describe("verification: properties over random sessions", () => {
  const sessions = fc.tuple(
    limitsArb,
    fc.constantFrom<VerifySettings["when"]>("finished", "every-stop"),
    fc.array(eventArb, { maxLength: 60 }),
  );

  it("a check that timed out or could not start never nudges", () => {
    fc.assert(
      fc.property(sessions, ([limits, when, events]) => {
        expect(play(limits, when, events).verificationFromUnusable).toBe(0);
      }),
      { numRuns: RUNS },
    );
  });

  it("budgets hold whatever the check does: nudges per episode never exceed maxAutoTurns", () => {
    fc.assert(
      fc.property(sessions, ([limits, when, events]) => {
        for (const count of play(limits, when, events).perEpisode) {
          expect(count).toBeLessThanOrEqual(limits.maxAutoTurns);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it("never nudges twice for the same failure on an unchanged tree and list", () => {
    fc.assert(
      fc.property(sessions, ([limits, when, events]) => {
        expect(play(limits, when, events).repeatedUnchanged).toBe(0);
      }),
      { numRuns: RUNS },
    );
  });

  it("a timed-out check, for any state, skips and spends nothing", () => {
    fc.assert(
      fc.property(limitsArb, fc.array(eventArb, { maxLength: 20 }), (limits, events) => {
        // Any reachable state: play the events, then decide on a timed-out check.
        let state = emptyState();
        let turn = 0;
        for (const e of events) {
          if (e.kind !== "stop") continue;
          turn += 1;
          state = onTurnOutcome(
            state,
            {
              turnId: `t${turn}`,
              stopReason: e.stopReason,
              endedAt: 1,
              usage: zeroUsage(),
              injected: false,
              restartCaused: false,
            },
            limits.tokenMode,
          );
        }
        const check: CheckResult = {
          command: "check",
          status: "timed-out",
          exitCode: null,
          signal: "SIGKILL",
          startedAt: 1,
          durationMs: 1_000,
          outputTail: "",
          tree: "t",
        };
        const d = decideVerification({
          state,
          summary: LISTS[0] as TodoSummary,
          signals: {},
          limits,
          now: 2,
          check,
        });
        expect(d.action).toBe("skip");
        expect(d.state.episode?.autoTurns ?? 0).toBe(state.episode?.autoTurns ?? 0);
      }),
      { numRuns: RUNS },
    );
  });
});
