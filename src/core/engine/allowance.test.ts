import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { DecisionInput } from "../types.js";
import { addAllowance, episodeLimits, noAllowance, raiseEpisode } from "./allowance.js";
import { decide } from "./decide.js";
import { UNLIMITED } from "./limits.js";
import { episode, LIMITS, NOW, outcome, stateWith, summaryOf } from "./test-support/fixtures.js";

const add = (over: Partial<ReturnType<typeof noAllowance>>) => ({ ...noAllowance(), ...over });

/** An episode that used its 5 nudges; the agent's last turn (t5) ended cleanly, unanswered. */
function outOfNudges(): DecisionInput {
  return {
    state: stateWith({
      episode: episode({
        autoTurns: 5,
        answeredTurnId: "t4",
        lastCountedTurnId: "t4",
        lastFingerprint: "old",
      }),
      lastOutcome: outcome("t5", { injected: true }),
    }),
    summary: summaryOf("completed", "pending"),
    signals: {},
    limits: LIMITS,
    now: NOW,
  };
}

describe("resume --add: the episode's extra allowance", () => {
  it("adds to each limit of that episode only", () => {
    const e = episode({
      raised: add({ nudges: 10, tokens: 200_000, timeMs: 1_800_000, costUsd: 2.5 }),
    });
    const limits = episodeLimits({ ...LIMITS, maxCostUsd: 1 }, e);
    expect(limits).toMatchObject({
      maxAutoTurns: 15,
      maxTokens: 210_000,
      maxWallClockMs: 1_860_000,
      maxCostUsd: 3.5,
    });
    expect(episodeLimits(LIMITS, episode())).toBe(LIMITS);
    expect(episodeLimits(LIMITS, e).maxCostUsd).toBeNull();
    expect(episodeLimits({ ...LIMITS, maxAutoTurns: UNLIMITED }, e).maxAutoTurns).toBe(UNLIMITED);
  });

  it("lifts an out-of-budget stop: the same turn is nudged once more", () => {
    const input = outOfNudges();
    expect(decide(input)).toMatchObject({ action: "skip", reason: "max-auto-turns" });
    const raised = raiseEpisode(input.state, add({ nudges: 3 }));
    const next = decide({ ...input, state: raised });
    expect(next.action).toBe("inject");
    if (next.action === "inject") expect(next.episode.autoTurns).toBe(6);
    // Three more, then out again (each nudge needs a fresh, progressing turn).
    expect(episodeLimits(LIMITS, raised.episode).maxAutoTurns).toBe(8);
  });

  it("lifts a stagnation stop", () => {
    const input: DecisionInput = {
      ...outOfNudges(),
      limits: { ...LIMITS, stagnationLimit: 1, stagnationMode: "fingerprint" },
    };
    input.state = stateWith({
      episode: episode({
        autoTurns: 2,
        answeredTurnId: "t4",
        lastCountedTurnId: "t4",
        lastFingerprint: input.summary.fingerprint,
      }),
      lastOutcome: outcome("t5", { injected: true }),
    });
    expect(decide(input)).toMatchObject({ action: "skip", reason: "stagnation" });
    const next = decide({ ...input, state: raiseEpisode(input.state, add({ nudges: 1 })) });
    expect(next.action).toBe("inject");
  });

  it("never lets one turn be nudged twice", () => {
    const input = outOfNudges();
    input.state = stateWith({
      episode: episode({ autoTurns: 1, answeredTurnId: "t5", lastCountedTurnId: "t5" }),
      lastOutcome: outcome("t5", { injected: true }),
    });
    const raised = raiseEpisode(input.state, add({ nudges: 3 }));
    expect(raised.episode?.answeredTurnId).toBe("t5");
    expect(decide({ ...input, state: raised })).toMatchObject({
      action: "skip",
      reason: "turn-not-safe",
    });
  });

  it("adds up over several raises, and needs an open episode", () => {
    const once = raiseEpisode(outOfNudges().state, add({ nudges: 2, costUsd: 0.5 }));
    const twice = raiseEpisode(once, add({ nudges: 3, tokens: 7, costUsd: 0.25 }));
    expect(twice.episode?.raised).toEqual({ nudges: 5, tokens: 7, timeMs: 0, costUsd: 0.75 });
    expect(() => raiseEpisode(stateWith(), add({ nudges: 1 }))).toThrow(/no episode is open/);
    expect(addAllowance(add({ nudges: UNLIMITED }), add({ nudges: 5 })).nudges).toBe(UNLIMITED);
  });
});

describe("maxCostUsd", () => {
  const priced = (costUsd: number | null) =>
    outcome("t5", {
      injected: true,
      costUsd,
      usage: { input: 10, output: 10, cacheRead: 0, cacheWrite: 0, total: 20 },
    });

  function at(cost: number, last: number | null, maxCostUsd: number | null): DecisionInput {
    return {
      state: stateWith({
        episode: episode({
          autoTurns: 1,
          answeredTurnId: "t4",
          lastCountedTurnId: "t4",
          costUsd: cost,
        }),
        lastOutcome: priced(last),
      }),
      summary: summaryOf("completed", "pending"),
      signals: {},
      limits: { ...LIMITS, maxCostUsd },
      now: NOW,
    };
  }

  it("folds each turn's cost into the episode once, and trips at the limit", () => {
    const under = decide(at(0.5, 0.25, 1));
    expect(under.action).toBe("inject");
    expect(under.state.episode?.costUsd).toBeCloseTo(0.75);
    expect(decide(at(0.5, 0.5, 1))).toMatchObject({ action: "skip", reason: "max-cost" });
    expect(decide(at(0.5, 0.5, null)).action).toBe("inject");
  });

  it("an unpriced turn makes the cost unknown: no nudge while a cost limit is set", () => {
    const unknown = decide(at(0, null, 100));
    expect(unknown).toMatchObject({ action: "skip", reason: "max-cost" });
    expect(unknown.state.episode?.unpricedTurns).toBe(1);
    // Without a cost limit the turn is still counted as unpriced, and nudging goes on.
    const free = decide(at(0, null, null));
    expect(free.action).toBe("inject");
    expect(free.state.episode?.unpricedTurns).toBe(1);
  });

  it("does not answer an unpriced user turn with a first nudge under a cost limit", () => {
    const input: DecisionInput = {
      state: stateWith({
        lastOutcome: outcome("t1", {
          costUsd: null,
          usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, total: 2 },
        }),
      }),
      summary: summaryOf("pending"),
      signals: {},
      limits: { ...LIMITS, maxCostUsd: 5 },
      now: NOW,
    };
    expect(decide(input)).toMatchObject({ action: "skip", reason: "max-cost" });
    expect(decide({ ...input, limits: LIMITS }).action).toBe("inject");
  });

  it("a cost raise lifts a spent cost budget, not an unknown one", () => {
    const spent = at(1, 0.5, 1);
    const raised = { ...spent, state: raiseEpisode(spent.state, add({ costUsd: 1 })) };
    expect(decide(raised).action).toBe("inject");
    const unknown = at(0, null, 1);
    const stillUnknown = { ...unknown, state: raiseEpisode(unknown.state, add({ costUsd: 100 })) };
    expect(decide(stillUnknown)).toMatchObject({ action: "skip", reason: "max-cost" });
  });

  it("remembers the last model seen", () => {
    const input = at(0, 0.1, null);
    input.state = {
      ...input.state,
      lastOutcome: {
        ...(input.state.lastOutcome as NonNullable<typeof input.state.lastOutcome>),
        model: "claude-haiku-4-5",
      },
    };
    expect(decide(input).state.episode?.model).toBe("claude-haiku-4-5");
  });
});

describe("maxCostUsd, as a property", () => {
  it("a nudge is sent only when the cost is known and below the limit plus the raise", () => {
    const usd = fc.double({ min: 0, max: 20, noNaN: true });
    fc.assert(
      fc.property(
        usd,
        fc.option(usd, { nil: null }),
        fc.option(usd, { nil: null }),
        fc.nat(2),
        fc.double({ min: 0, max: 5, noNaN: true }),
        (spent, turn, max, unpriced, raisedCost) => {
          const input: DecisionInput = {
            state: stateWith({
              episode: episode({
                autoTurns: 1,
                answeredTurnId: "t4",
                lastCountedTurnId: "t4",
                costUsd: spent,
                ...(unpriced > 0 ? { unpricedTurns: unpriced } : {}),
                raised: add({ costUsd: raisedCost }),
              }),
              lastOutcome: outcome("t5", {
                injected: true,
                costUsd: turn,
                usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, total: 2 },
              }),
            }),
            summary: summaryOf("completed", "pending"),
            signals: {},
            limits: { ...LIMITS, maxCostUsd: max },
            now: NOW,
          };
          const decision = decide(input);
          const after = decision.state.episode;
          // The turn is folded exactly once: priced into the cost, or counted as unpriced.
          if (turn === null) expect(after?.unpricedTurns).toBe(unpriced + 1);
          else expect(after?.costUsd).toBeCloseTo(spent + turn, 9);
          if (max === null) {
            expect(decision.action).toBe("inject");
            return;
          }
          const known = turn !== null && unpriced === 0;
          const under = known && spent + turn < max + raisedCost;
          expect(decision.action).toBe(under ? "inject" : "skip");
          if (decision.action === "skip") expect(decision.reason).toBe("max-cost");
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
