import { describe, expect, it } from "vitest";
import type { Limits } from "../types.js";
import { LIMIT_KEYS, resolveLimits, UNLIMITED } from "./limits.js";
import { LIMITS } from "./test-support/fixtures.js";

describe("resolveLimits", () => {
  it("returns a copy of the base without overrides", () => {
    const resolved = resolveLimits(LIMITS);
    expect(resolved).toEqual(LIMITS);
    expect(resolved).not.toBe(LIMITS);
    expect(resolveLimits(LIMITS, null)).toEqual(LIMITS);
  });

  it("applies overrides and leaves undefined ones at the base value", () => {
    const resolved = resolveLimits(LIMITS, { maxAutoTurns: 9, maxTokens: undefined });
    expect(resolved).toEqual({ ...LIMITS, maxAutoTurns: 9 });
    expect(LIMITS.maxAutoTurns).toBe(5);
  });

  it("accepts every valid value kind", () => {
    const resolved = resolveLimits(LIMITS, {
      maxIncomplete: 12,
      stagnationMode: "strict",
      tokenMode: "total",
      maxWallClockMs: UNLIMITED,
    });
    expect(resolved).toMatchObject({ maxIncomplete: 12, stagnationMode: "strict" });
    expect(resolveLimits(resolved, { maxIncomplete: null }).maxIncomplete).toBeNull();
  });

  it.each<[keyof Limits, unknown, RegExp]>([
    ["maxAutoTurns", -1, /limits\.maxAutoTurns must be an integer >= 0, got -1/],
    ["maxTokens", 1.5, /limits\.maxTokens must be an integer >= 0, got 1.5/],
    ["maxWallClockMs", "60s", /limits\.maxWallClockMs must be an integer >= 0, got "60s"/],
    ["stagnationLimit", Number.NaN, /limits\.stagnationLimit must be an integer >= 0, got NaN/],
    ["stagnationMode", "loose", /limits\.stagnationMode must be one of "fingerprint", "strict"/],
    ["tokenMode", null, /limits\.tokenMode must be one of "spend", "total", got null/],
    ["maxIncomplete", -2, /limits\.maxIncomplete must be an integer >= 0, or null for no ceiling/],
    ["cooldownBaseMs", true, /limits\.cooldownBaseMs must be an integer >= 0, got true/],
    ["maxDeliveryFailures", 0, /limits\.maxDeliveryFailures must be an integer >= 1, got 0/],
  ])("rejects a bad %s, naming the field and the value", (field, value, message) => {
    expect(() => resolveLimits(LIMITS, { [field]: value })).toThrow(message);
  });

  it("points at the JSON-safe spelling of no limit", () => {
    expect(() => resolveLimits(LIMITS, { maxTokens: Number.POSITIVE_INFINITY })).toThrow(
      /limits\.maxTokens must be finite; use 9007199254740991 \(Number\.MAX_SAFE_INTEGER\)/,
    );
  });

  it("rejects a cooldown cap below its base", () => {
    expect(() => resolveLimits(LIMITS, { cooldownBaseMs: 5_000, cooldownMaxMs: 1_000 })).toThrow(
      /limits\.cooldownMaxMs must be >= limits\.cooldownBaseMs \(5000\), got 1000/,
    );
  });

  it("rejects keys that are not limits, listing the valid ones", () => {
    expect(() => resolveLimits(LIMITS, { maxTurns: 3 })).toThrow(
      `limits.maxTurns is not a limit; valid limits: ${LIMIT_KEYS.join(", ")}`,
    );
    expect(() => resolveLimits(LIMITS, { toString: 3 })).toThrow(/toString is not a limit/);
  });

  it("rejects overrides that are not an object", () => {
    expect(() => resolveLimits(LIMITS, 5)).toThrow("limits must be an object, got 5");
    expect(() => resolveLimits(LIMITS, [])).toThrow("limits must be an object, got an array");
  });

  it("validates the base too", () => {
    const broken = { ...LIMITS, maxAutoTurns: -3 };
    expect(() => resolveLimits(broken)).toThrow(/limits\.maxAutoTurns/);
  });

  it("drops stray keys a base may carry", () => {
    const base = { ...LIMITS, extra: 1 } as Limits;
    expect(Object.keys(resolveLimits(base))).toEqual(LIMIT_KEYS);
  });
});
