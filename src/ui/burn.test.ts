import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { episode as fixture } from "../core/engine/test-support/fixtures.js";
import type { DecisionLogEntry, Episode } from "../core/types.js";
import { BURN_WINDOW_MS, burnRate, projectNearestLimit } from "./burn.js";
import { ratePoints } from "./view-model.js";

/** An episode from nothing at 0, with no nudge answered yet. */
function episode(over: Partial<Episode> = {}): Episode {
  return fixture({ id: "ep", startedAt: 0, autoTurns: 0, lastInjectionAt: null, ...over });
}

function entry(at: number, tokens: number, autoTurns: number, episodeId = "ep"): DecisionLogEntry {
  return {
    at,
    action: "inject",
    reason: null,
    episodeId,
    autoTurns,
    tokens,
    stagnation: 0,
    actionable: 1,
    blocked: 0,
    nudgeChars: 10,
    nudgeTokens: 3,
    trigger: "idle",
  };
}

const MIN = 60_000;
const NO_LIMITS = { maxAutoTurns: 0, maxTokens: 0, maxWallClockMs: 0 };

describe("burnRate", () => {
  it("takes the spend of the recent window, not of the whole episode", () => {
    const now = 60 * MIN;
    const e = episode({ tokens: 100_000, autoTurns: 10, costUsd: 2 });
    // 70,000 tokens before the window, 30,000 in its 15 minutes.
    const log = [entry(10 * MIN, 70_000, 7), entry(50 * MIN, 90_000, 9)];
    const rate = burnRate(e, log, now);
    expect(rate.tokensPerMinute).toBeCloseTo(30_000 / 15);
    expect(rate.nudgesPerMinute).toBeCloseTo(3 / 15);
    // $2 for 100,000 tokens: 2,000 tokens a minute is $2.40 an hour.
    expect(rate.usdPerHour).toBeCloseTo(2.4);
  });

  it("counts from the episode's start when it is younger than the window, and ignores other episodes", () => {
    const now = 10 * MIN;
    const e = episode({ startedAt: 5 * MIN, tokens: 5_000, autoTurns: 1 });
    const rate = burnRate(e, [entry(1 * MIN, 900_000, 40, "older")], now);
    expect(rate.tokensPerMinute).toBeCloseTo(1_000);
    expect(rate.usdPerHour).toBeNull();
  });

  it("slows to zero once the session is quiet for a window", () => {
    const e = episode({ tokens: 50_000, autoTurns: 5 });
    const log = [entry(MIN, 50_000, 5)];
    expect(burnRate(e, log, MIN + BURN_WINDOW_MS + 1).tokensPerMinute).toBe(0);
  });

  it("has no known money rate while some turns are unpriced", () => {
    const e = episode({ tokens: 10, costUsd: 1, unpricedTurns: 2 });
    expect(burnRate(e, [], MIN).usdPerHour).toBeNull();
  });
});

describe("projectNearestLimit", () => {
  it("names the limit reached first at the current pace", () => {
    const now = 30 * MIN;
    const e = episode({ tokens: 40_000, autoTurns: 2 });
    const rate = { tokensPerMinute: 1_000, nudgesPerMinute: 0.1, usdPerHour: null };
    const limits = { maxAutoTurns: 10, maxTokens: 50_000, maxWallClockMs: 120 * MIN };
    // tokens: 10 min; nudges: 80 min; wall clock: 90 min.
    expect(projectNearestLimit(e, rate, limits, now)).toEqual({ limit: "tokens", ms: 10 * MIN });
  });

  it("projects the cost cap when there is one", () => {
    const e = episode({ tokens: 1_000, costUsd: 4 });
    const rate = { tokensPerMinute: 10, nudgesPerMinute: 0, usdPerHour: 6 };
    const p = projectNearestLimit(e, rate, { ...NO_LIMITS, maxCostUsd: 5 }, 0);
    expect(p).toEqual({ limit: "cost", ms: 10 * MIN });
  });

  it("is null without limits, and 0 for a limit already spent", () => {
    const e = episode({ tokens: 10 });
    expect(
      projectNearestLimit(
        e,
        { tokensPerMinute: 5, nudgesPerMinute: 1, usdPerHour: null },
        NO_LIMITS,
        0,
      ),
    ).toBeNull();
    expect(
      projectNearestLimit(
        episode({ autoTurns: 3 }),
        { tokensPerMinute: 0, nudgesPerMinute: 0, usdPerHour: null },
        { ...NO_LIMITS, maxAutoTurns: 3 },
        0,
      ),
    ).toEqual({ limit: "nudges", ms: 0 });
  });

  it("projects no limit for a rate too small to reach it in any representable time", () => {
    // 1.5e-319 tokens a minute is a denormal: a limit divided by it is Infinity.
    expect(
      projectNearestLimit(
        episode({ tokens: 0 }),
        { tokensPerMinute: 1.48225e-319, nudgesPerMinute: 0, usdPerHour: null },
        { ...NO_LIMITS, maxTokens: 1 },
        0,
      ),
    ).toBeNull();
  });

  const limit = fc.option(fc.integer({ min: 1, max: 1_000_000 }), { nil: 0 });
  const arbitrary = fc.record({
    startedAt: fc.integer({ min: 0, max: 1_000_000 }),
    elapsed: fc.integer({ min: 0, max: 10_000_000 }),
    tokens: fc.integer({ min: 0, max: 2_000_000 }),
    autoTurns: fc.integer({ min: 0, max: 100 }),
    costUsd: fc.option(fc.double({ min: 0, max: 100, noNaN: true }), { nil: undefined }),
    tokensPerMinute: fc.double({ min: 0, max: 1e6, noNaN: true }),
    nudgesPerMinute: fc.double({ min: 0, max: 10, noNaN: true }),
    usdPerHour: fc.option(fc.double({ min: 0, max: 1000, noNaN: true }), { nil: null }),
    maxAutoTurns: limit,
    maxTokens: limit,
    maxWallClockMs: limit,
    maxCostUsd: fc.option(fc.double({ min: 0.01, max: 200, noNaN: true }), { nil: null }),
  });

  it("is never negative, and no other limit is reached sooner (property)", () => {
    fc.assert(
      fc.property(arbitrary, (a) => {
        const now = a.startedAt + a.elapsed;
        const e = episode({
          startedAt: a.startedAt,
          tokens: a.tokens,
          autoTurns: a.autoTurns,
          ...(a.costUsd === undefined ? {} : { costUsd: a.costUsd }),
        });
        const rate = {
          tokensPerMinute: a.tokensPerMinute,
          nudgesPerMinute: a.nudgesPerMinute,
          usdPerHour: a.usdPerHour,
        };
        const limits = {
          maxAutoTurns: a.maxAutoTurns,
          maxTokens: a.maxTokens,
          maxWallClockMs: a.maxWallClockMs,
          maxCostUsd: a.maxCostUsd,
        };
        const p = projectNearestLimit(e, rate, limits, now);
        // Each limit on its own: the nearest of them all is the minimum of these.
        const alone = [
          projectNearestLimit(e, rate, { ...NO_LIMITS, maxAutoTurns: a.maxAutoTurns }, now),
          projectNearestLimit(e, rate, { ...NO_LIMITS, maxTokens: a.maxTokens }, now),
          projectNearestLimit(e, rate, { ...NO_LIMITS, maxWallClockMs: a.maxWallClockMs }, now),
          projectNearestLimit(e, rate, { ...NO_LIMITS, maxCostUsd: a.maxCostUsd }, now),
        ].filter((x) => x !== null);
        if (alone.length === 0) {
          expect(p).toBeNull();
          return;
        }
        expect(p).not.toBeNull();
        expect(p!.ms).toBeGreaterThanOrEqual(0);
        expect(Number.isFinite(p!.ms)).toBe(true);
        for (const other of alone) expect(p!.ms).toBeLessThanOrEqual(other!.ms);
        expect(alone.some((x) => x!.limit === p!.limit && x!.ms === p!.ms)).toBe(true);
      }),
    );
  });

  it("never projects a negative burn rate (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 3_600_000 }), fc.nat(1_000_000), fc.nat(50)), {
          maxLength: 20,
        }),
        fc.nat(1_000_000),
        fc.nat(50),
        fc.integer({ min: 0, max: 7_200_000 }),
        (points, tokens, autoTurns, now) => {
          const e = episode({ tokens, autoTurns });
          const rate = burnRate(
            e,
            points.map(([at, t, n]) => entry(at, t, n)),
            now,
          );
          expect(rate.tokensPerMinute).toBeGreaterThanOrEqual(0);
          expect(rate.nudgesPerMinute).toBeGreaterThanOrEqual(0);
        },
      ),
    );
  });
});

describe("ratePoints", () => {
  it("keeps what every later burn rate needs (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 3_600_000 }), fc.nat(100_000)), {
          maxLength: 30,
        }),
        fc.integer({ min: 0, max: 3_600_000 }),
        fc.integer({ min: 0, max: 3_600_000 }),
        (raw, builtAt, later) => {
          const sorted = [...raw].sort((a, b) => a[0] - b[0]);
          // Running totals only grow.
          let total = 0;
          const log = sorted.map(([at, add], i) => {
            total += add;
            return entry(at, total, i);
          });
          const e = episode({ tokens: total + 10, autoTurns: log.length });
          const kept = ratePoints(log, "ep", builtAt);
          const now = builtAt + later;
          expect(burnRate(e, kept, now)).toEqual(burnRate(e, log, now));
        },
      ),
    );
  });
});
