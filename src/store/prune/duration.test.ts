import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseDuration, parseStates } from "./duration.js";

describe("parseDuration", () => {
  it("reads a number and a unit", () => {
    expect(parseDuration("30d")).toBe(30 * 86_400_000);
    expect(parseDuration("12h")).toBe(12 * 3_600_000);
    expect(parseDuration("90m")).toBe(90 * 60_000);
    expect(parseDuration("45s")).toBe(45_000);
    expect(parseDuration("2w")).toBe(14 * 86_400_000);
    expect(parseDuration("0d")).toBe(0);
  });

  it("refuses anything else with an error naming the option and the value", () => {
    for (const bad of ["30", "d", "30x", "-1d", "1.5d", "30 d", "", "30dd", "1e3d", "9999999d"]) {
      expect(() => parseDuration(bad)).toThrow(
        `--older-than ${JSON.stringify(bad)} is not a duration`,
      );
    }
  });

  it("property: every number and unit round-trips; every other string throws or is such a pair", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 999_999 }),
        fc.constantFrom("s", "m", "h", "d", "w"),
        (n, u) => {
          const factor = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[u];
          expect(parseDuration(`${n}${u}`)).toBe(n * factor);
        },
      ),
    );
    fc.assert(
      fc.property(fc.string(), (text) => {
        let ms: number | null = null;
        try {
          ms = parseDuration(text);
        } catch (error) {
          expect((error as Error).message).toContain("is not a duration");
          return;
        }
        expect(/^\s*\d{1,6}[smhdw]\s*$/.test(text)).toBe(true);
        expect(Number.isSafeInteger(ms)).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });
});

describe("parseStates", () => {
  it("reads a comma list, once each", () => {
    expect(parseStates("idle,done")).toEqual(["idle", "done"]);
    expect(parseStates("done, done ,stopped")).toEqual(["done", "stopped"]);
  });

  it("names a state it does not know", () => {
    expect(() => parseStates("idle,finished")).toThrow(
      /--state "finished" is not a state; use one or more of idle, done/,
    );
    expect(() => parseStates("")).toThrow(/--state "" is not a state/);
  });
});
