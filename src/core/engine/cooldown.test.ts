import { describe, expect, it } from "vitest";
import type { Limits } from "../types.js";
import { cooldownDelay, inCooldown } from "./cooldown.js";
import { episode, LIMITS, listOf } from "./test-support/fixtures.js";
import { Sim } from "./test-support/sim.js";

const LIMITS_10: Limits = { ...LIMITS, maxDeliveryFailures: 10, maxAutoTurns: 50 };

describe("cooldownDelay", () => {
  it("doubles per consecutive failure and stops at the cap", () => {
    const delays = [1, 2, 3, 4, 5, 6].map((f) => cooldownDelay(f, LIMITS_10));
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 8_000, 8_000]);
  });

  it("stays finite for any failure count", () => {
    expect(cooldownDelay(5_000, LIMITS_10)).toBe(8_000);
  });
});

describe("inCooldown", () => {
  it("is off without failures", () => {
    expect(inCooldown(episode(), LIMITS, 0)).toBe(false);
    expect(inCooldown(null, LIMITS, 0)).toBe(false);
  });

  it("holds a failure that has no time", () => {
    expect(inCooldown(episode({ failures: 1, lastFailureAt: null }), LIMITS, 1e12)).toBe(true);
  });
});

describe("cooldown in decisions", () => {
  function failedOnce(limits: Limits) {
    const sim = new Sim(limits, listOf("pending", "pending"));
    sim.userAsks().turnEnd();
    expect(sim.idle({}, "fail").action).toBe("inject");
    return sim;
  }

  it("skips until the backoff has passed, then retries the same outcome", () => {
    const sim = failedOnce(LIMITS_10);
    expect(sim.tick(999).idle()).toMatchObject({ action: "skip", reason: "cooldown" });
    expect(sim.tick(1).idle({}, "fail").action).toBe("inject");
    expect(sim.tick(1_999).idle()).toMatchObject({ reason: "cooldown" });
    expect(sim.tick(1).idle({}, "fail").action).toBe("inject");
    expect(sim.tick(3_999).idle()).toMatchObject({ reason: "cooldown" });
    expect(sim.tick(1).idle().action).toBe("inject");
  });

  it("a successful delivery ends the streak", () => {
    const sim = failedOnce(LIMITS_10);
    sim.tick(1_000).idle();
    expect(sim.state.episode?.failures).toBe(0);
    sim.turnEnd().completeNext();
    expect(sim.idle().action).toBe("inject");
  });

  it("after maxDeliveryFailures in a row, skips for the rest of the episode", () => {
    const limits = { ...LIMITS_10, maxDeliveryFailures: 2 };
    const sim = failedOnce(limits);
    expect(sim.tick(1_000).idle({}, "fail").action).toBe("inject");
    expect(sim.tick(20_000).idle()).toMatchObject({ reason: "cooldown" });
    sim.turnEnd().completeNext();
    expect(sim.tick(20_000).idle()).toMatchObject({ reason: "cooldown" });
    expect(sim.userAsks().turnEnd().idle().action).toBe("inject");
  });

  it("ends the episode on failures before the wall clock does", () => {
    const limits = { ...LIMITS_10, maxDeliveryFailures: 2, maxWallClockMs: 1e9 };
    const sim = failedOnce(limits);
    sim.tick(1_000).idle({}, "fail");
    sim.turnEnd();
    expect(sim.tick(1e7).idle()).toMatchObject({ reason: "cooldown" });
  });
});
