import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { UNLIMITED } from "../engine/limits.js";
import {
  formatAgo,
  formatCount,
  formatDuration,
  formatTimestamp,
  limitCount,
  limitDuration,
  plural,
} from "./numbers.js";

describe("formatDuration", () => {
  it("shows the two largest units and drops a zero second unit", () => {
    expect(formatDuration(0)).toBe("0s");
    expect(formatDuration(999)).toBe("0s");
    expect(formatDuration(45_000)).toBe("45s");
    expect(formatDuration(200_000)).toBe("3m 20s");
    expect(formatDuration(180_000)).toBe("3m");
    expect(formatDuration(30 * 60_000)).toBe("30m");
    expect(formatDuration(3_900_000)).toBe("1h 5m");
    expect(formatDuration(2 * 86_400_000 + 3 * 3_600_000 + 5_000)).toBe("2d 3h");
  });

  it("marks impossible values instead of printing NaN", () => {
    expect(formatDuration(-1)).toBe("?");
    expect(formatDuration(Number.NaN)).toBe("?");
  });

  it("never prints more than two units", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 12 }), (ms) => {
        expect(formatDuration(ms).split(" ").length).toBeLessThanOrEqual(2);
      }),
    );
  });
});

describe("formatTimestamp", () => {
  it("prints local time with zero padding", () => {
    expect(formatTimestamp(new Date(2024, 0, 2, 3, 4, 5).getTime())).toBe("2024-01-02 03:04:05");
  });
});

describe("formatAgo", () => {
  it("speaks of the past and the future", () => {
    expect(formatAgo(1_000, 1_500)).toBe("just now");
    expect(formatAgo(0, 5_000)).toBe("5s ago");
    expect(formatAgo(120_000, 0)).toBe("in 2m");
  });
});

describe("formatCount and plural", () => {
  it("groups thousands the same way on every machine", () => {
    expect(formatCount(0)).toBe("0");
    expect(formatCount(999)).toBe("999");
    expect(formatCount(25_000)).toBe("25,000");
    expect(formatCount(-1_234_567)).toBe("-1,234,567");
  });

  it("chooses the singular for exactly one", () => {
    expect(plural(1, "item")).toBe("1 item");
    expect(plural(0, "item")).toBe("0 items");
    expect(plural(2, "reply", "replies")).toBe("2 replies");
  });
});

describe("limitCount and limitDuration", () => {
  it("read a preset's no-limit marker as unlimited", () => {
    expect(limitCount(UNLIMITED)).toBe("unlimited");
    expect(limitDuration(UNLIMITED)).toBe("unlimited");
    expect(limitCount(40)).toBe("40");
    expect(limitDuration(7_200_000)).toBe("2h");
  });
});
