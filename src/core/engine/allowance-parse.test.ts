import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AllowanceError, describeAllowance, parseAllowance } from "./allowance-parse.js";

describe("parseAllowance", () => {
  it("reads every budget with its units", () => {
    expect(parseAllowance("nudges=10,tokens=200k,time=30m,cost=2.50")).toEqual({
      nudges: 10,
      tokens: 200_000,
      timeMs: 1_800_000,
      costUsd: 2.5,
    });
    expect(parseAllowance(" tokens = 1.5M , time=2h ")).toEqual({
      nudges: 0,
      tokens: 1_500_000,
      timeMs: 7_200_000,
      costUsd: 0,
    });
    expect(parseAllowance("time=90s,cost=$1").timeMs).toBe(90_000);
    expect(parseAllowance("tokens=5000").tokens).toBe(5000);
  });

  it.each([
    ["nudges=ten", '--add nudges=ten: "ten" is not a whole number'],
    ["nudges=1.5", '--add nudges=1.5: "1.5" is not a whole number'],
    ["nudges=-3", '--add nudges=-3: "-3" is not a whole number'],
    [
      "tokens=lots",
      '--add tokens=lots: "lots" is not a number of tokens (such as 50000, 200k or 1.5m)',
    ],
    ["tokens=1.0005k", '--add tokens=1.0005k: "1.0005k" is not a whole number of tokens'],
    ["time=30", '--add time=30: "30" is not a time such as 90s, 30m or 2h (the unit is needed)'],
    ["time=30d", '--add time=30d: "30d" is not a time such as 90s, 30m or 2h (the unit is needed)'],
    ["cost=2,50", '--add "50": expected name=value, such as nudges=10'],
    ["cost=abc", '--add cost=abc: "abc" is not an amount of USD such as 2.50'],
    ["speed=3", '--add speed=3: "speed" is not a budget; use nudges, tokens, time, cost'],
    ["nudges=1,nudges=2", "--add nudges=2: nudges is given twice"],
    ["", "--add needs something to add, such as nudges=10,tokens=200k,time=30m"],
    ["nudges=99999999999999999999", "--add nudges=99999999999999999999: too large"],
  ])("%s -> %s", (text, message) => {
    expect(() => parseAllowance(text)).toThrow(AllowanceError);
    expect(() => parseAllowance(text)).toThrow(message);
  });

  it("round-trips any allowance it can write", () => {
    const allowance = fc.record({
      nudges: fc.nat(1_000_000),
      tokensK: fc.nat(1_000_000),
      minutes: fc.nat(100_000),
      cents: fc.nat(1_000_000),
    });
    fc.assert(
      fc.property(allowance, ({ nudges, tokensK, minutes, cents }) => {
        const text = `cost=${(cents / 100).toFixed(2)},time=${minutes}m,tokens=${tokensK}k,nudges=${nudges}`;
        expect(parseAllowance(text)).toEqual({
          nudges,
          tokens: tokensK * 1000,
          timeMs: minutes * 60_000,
          costUsd: cents / 100,
        });
      }),
    );
  });

  it("any text either parses to safe, non-negative amounts or throws an AllowanceError", () => {
    const piece = fc.tuple(
      fc.constantFrom("nudges", "tokens", "time", "cost", "x", ""),
      fc.oneof(
        fc.string(),
        fc.constantFrom("1", "2k", "3m", "4h", "5s", "0.5", "$2", "-1", "1e3", "NaN", "Infinity"),
      ),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 4 }), (pieces) => {
        const text = pieces.map(([k, v]) => `${k}=${v}`).join(",");
        try {
          const a = parseAllowance(text);
          for (const n of [a.nudges, a.tokens, a.timeMs])
            expect(Number.isSafeInteger(n) && n >= 0).toBe(true);
          expect(Number.isFinite(a.costUsd) && a.costUsd >= 0).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(AllowanceError);
        }
      }),
      { numRuns: 2_000 },
    );
  });
});

describe("describeAllowance", () => {
  it("says what was added", () => {
    expect(describeAllowance(parseAllowance("nudges=10,tokens=200k,time=30m,cost=2.5"))).toBe(
      "+10 nudges, +200,000 tokens, +30m, +$2.50",
    );
    expect(describeAllowance(parseAllowance("nudges=1"))).toBe("+1 nudge");
    expect(describeAllowance(parseAllowance("nudges=0"))).toBe("nothing");
  });
});
