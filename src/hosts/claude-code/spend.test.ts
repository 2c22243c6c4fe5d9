import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeTurnTotals, encodeTurnId, spendSince } from "./spend.js";

const usage = (input: number, output: number, cacheRead = 0, cacheWrite = 0) => ({
  input,
  output,
  cacheRead,
  cacheWrite,
  total: input + output + cacheRead + cacheWrite,
});

describe("running totals in turn ids", () => {
  it("round-trips any totals", () => {
    const count = fc.integer({ min: 0, max: 2 ** 40 });
    fc.assert(
      fc.property(count, count, count, count, (a, b, c, d) => {
        const totals = usage(a, b, c, d);
        expect(decodeTurnTotals(encodeTurnId(totals))).toEqual(totals);
      }),
    );
  });

  it("gives each Stop a different id even for equal totals", () => {
    expect(encodeTurnId(usage(1, 2))).not.toBe(encodeTurnId(usage(1, 2)));
  });

  it("reads nothing from ids it did not write", () => {
    for (const id of [null, undefined, "t1", "cc:x", "cc:abc:1.2.3", "cc:abc:1.2.3.-4"]) {
      expect(decodeTurnTotals(id)).toBeNull();
    }
  });
});

describe("spendSince", () => {
  it("charges the growth since the previous Stop", () => {
    expect(spendSince(usage(300, 60, 1000, 10), usage(100, 20, 400, 10))).toEqual(
      usage(200, 40, 600, 0),
    );
  });

  it("charges everything when there is no previous total", () => {
    expect(spendSince(usage(5, 6, 7, 8), null)).toEqual(usage(5, 6, 7, 8));
  });

  it("never charges a negative amount when a read came up short", () => {
    expect(spendSince(usage(10, 10), usage(50, 5))).toEqual(usage(0, 5));
  });

  it("charges each response once over any sequence of Stops", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 1000 }), { maxLength: 20 }), (steps) => {
        let running = 0;
        let previous: ReturnType<typeof decodeTurnTotals> = null;
        let charged = 0;
        for (const step of steps) {
          running += step;
          const totals = usage(running, 0);
          charged += spendSince(totals, previous).input;
          previous = decodeTurnTotals(encodeTurnId(totals));
        }
        expect(charged).toBe(running);
      }),
    );
  });
});
