import { describe, expect, it } from "vitest";
import type { TokenUsage } from "../types.js";
import { decide } from "./decide.js";
import { addTokens, foldSpend, turnSpend } from "./spend.js";
import { zeroUsage } from "./state.js";
import {
  episode,
  injectable,
  LIMITS,
  listOf,
  outcome,
  summaryOf,
} from "./test-support/fixtures.js";
import { Sim } from "./test-support/sim.js";
import { onTurnOutcome } from "./transitions.js";

const CACHED_TURN: TokenUsage = {
  input: 300,
  output: 1_200,
  cacheRead: 180_000,
  cacheWrite: 2_500,
  total: 184_000,
};

describe("turnSpend", () => {
  it("counts output, uncached input and cache writes in spend mode, never cache reads", () => {
    expect(turnSpend(CACHED_TURN, "spend")).toBe(300 + 1_200 + 2_500);
  });

  it("counts the provider's total in total mode", () => {
    expect(turnSpend(CACHED_TURN, "total")).toBe(184_000);
  });

  it("falls back to the sum of the parts when a total is missing", () => {
    const usage = { ...CACHED_TURN, total: 0 };
    expect(turnSpend(usage, "total")).toBe(300 + 1_200 + 180_000 + 2_500);
  });

  it("reads missing usage as 0", () => {
    expect(turnSpend(undefined, "spend")).toBe(0);
    expect(turnSpend(null, "total")).toBe(0);
    expect(turnSpend({ output: 7 }, "spend")).toBe(7);
  });

  it("reads NaN and negatives as 0, rounds fractions up, caps infinity", () => {
    expect(turnSpend({ output: Number.NaN, input: -5, cacheWrite: 0.2 }, "spend")).toBe(1);
    expect(turnSpend({ output: Number.POSITIVE_INFINITY }, "spend")).toBe(Number.MAX_SAFE_INTEGER);
  });

  it("never leaves the safe-integer range", () => {
    expect(addTokens(Number.MAX_SAFE_INTEGER, 10)).toBe(Number.MAX_SAFE_INTEGER);
  });
});

describe("folding spend into the episode", () => {
  it("folds an outcome once, however often it is offered", () => {
    const usage = { ...zeroUsage(), output: 100 };
    const once = foldSpend(episode(), outcome("t2", { usage }), "spend");
    const twice = foldSpend(once, outcome("t2", { usage }), "spend");
    expect(once?.tokens).toBe(100);
    expect(twice).toBe(once);
  });

  it("has nothing to charge before the first nudge", () => {
    expect(foldSpend(null, outcome("t1"), "spend")).toBeNull();
  });

  it("decide folds the latest outcome and persists it even when it skips", () => {
    const usage = { ...zeroUsage(), output: 400 };
    const opened = decide(injectable()).state;
    // Recorded without a token mode: only decide can fold it.
    const state = onTurnOutcome(opened, outcome("t2", { usage, injected: true }));
    expect(state.episode?.tokens).toBe(0);
    const busy = decide(injectable({ state, signals: { backgroundWork: true } }));
    expect(busy).toMatchObject({ action: "skip", reason: "background-work" });
    expect(busy.state.episode).toMatchObject({ tokens: 400, lastCountedTurnId: "t2" });
    const again = decide(
      injectable({ state: busy.state, summary: summaryOf("completed", "pending") }),
    );
    expect(again.action).toBe("inject");
    expect(again.state.episode?.tokens).toBe(400);
  });

  it("folds when the outcome is recorded with a token mode, and decide does not count it again", () => {
    const sim = new Sim(LIMITS, listOf("pending", "pending", "pending"));
    sim.userAsks().turnEnd("stop", { output: 5_000 });
    expect(sim.idle().action).toBe("inject");
    sim.turnEnd("tool_use", { output: 1_000 }).turnEnd("stop", { output: 2_000 });
    expect(sim.state.episode?.tokens).toBe(3_000);
    sim.completeNext();
    sim.idle();
    expect(sim.state.episode?.tokens).toBe(3_000);
  });

  it("a long cached context does not trip the budget on the first nudged turn (spend mode)", () => {
    const sim = new Sim({ ...LIMITS, maxTokens: 25_000 }, listOf("pending", "pending", "pending"));
    sim.userAsks().turnEnd("stop", CACHED_TURN);
    expect(sim.idle().action).toBe("inject");
    sim.turnEnd("stop", CACHED_TURN).completeNext();
    expect(sim.idle().action).toBe("inject");
    expect(sim.state.episode?.tokens).toBe(4_000);
  });

  it("the same context trips a total-mode budget at once (seed 000's behaviour)", () => {
    const limits = { ...LIMITS, maxTokens: 25_000, tokenMode: "total" as const };
    const sim = new Sim(limits, listOf("pending", "pending", "pending"));
    sim.userAsks().turnEnd("stop", CACHED_TURN);
    expect(sim.idle().action).toBe("inject");
    sim.turnEnd("stop", CACHED_TURN).completeNext();
    expect(sim.idle()).toMatchObject({ action: "skip", reason: "max-tokens" });
  });
});
