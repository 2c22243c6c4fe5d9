import { describe, expect, it } from "vitest";
import type { PresetName, TodoStatus } from "../types.js";
import { resolveLimits, UNLIMITED } from "./limits.js";
import { PRESET_NAMES, PRESETS, resolvePreset } from "./presets.js";
import { listOf } from "./test-support/fixtures.js";
import { Sim } from "./test-support/sim.js";

const MINUTE = 60_000;
/** A realistic nudged turn: little new input, a long cached context. */
const TURN_USAGE = { input: 4_000, output: 3_000, cacheRead: 150_000, cacheWrite: 8_000 };

describe("presets", () => {
  it("has one preset per seed system plus the project's own", () => {
    expect(PRESET_NAMES).toEqual(["default", "typeclaw", "parley", "omo", "pi"]);
    for (const name of PRESET_NAMES) expect(PRESETS[name].name).toBe(name);
  });

  it.each(PRESET_NAMES)("%s has valid limits", (name) => {
    expect(resolveLimits(PRESETS[name].limits)).toEqual(PRESETS[name].limits);
  });

  it("survives a JSON round trip unchanged (no Infinity anywhere)", () => {
    expect(JSON.parse(JSON.stringify(PRESETS))).toEqual(PRESETS);
  });

  it("keeps the seed systems' numbers", () => {
    expect(PRESETS.typeclaw.limits).toMatchObject({
      maxAutoTurns: 3,
      maxTokens: 25_000,
      tokenMode: "total",
      maxWallClockMs: 30 * MINUTE,
      stagnationLimit: 2,
      stagnationMode: "fingerprint",
    });
    expect(PRESETS.typeclaw).toMatchObject({ nudgeStyle: "system-block", dialect: "typeclaw" });
    expect(PRESETS.parley).toMatchObject({ maxWakeCycles: 25, nudgeStyle: "inline-list" });
    expect(PRESETS.parley.limits.maxAutoTurns).toBe(25);
    expect(PRESETS.parley.dialect).toBe("parley");
    expect(PRESETS.omo).toMatchObject({
      countdownMs: 2_000,
      debounceMs: 200,
      nudgeStyle: "status-directive",
    });
    expect(PRESETS.omo.limits).toMatchObject({
      cooldownBaseMs: 5_000,
      // oh-my-openagent's directive-response rule: one answer that leaves the list alone ends it.
      stagnationLimit: 1,
      stagnationMode: "fingerprint",
      maxDeliveryFailures: 5,
    });
    expect(PRESETS.pi.limits.maxAutoTurns).toBe(3);
    expect(PRESETS.pi.dialect).toBe("pi");
  });

  it("omo stops after the first answer that does not touch the list", () => {
    const sim = new Sim(PRESETS.omo.limits, listOf("pending", "pending", "pending"));
    sim.userAsks().turnEnd("stop");
    expect(sim.idle().action).toBe("inject");
    sim.tick(MINUTE).turnEnd("stop", {}, { injected: true });
    expect(sim.idle()).toMatchObject({ action: "skip", reason: "stagnation" });
    expect(sim.injections).toBe(1);
  });

  it("every preset retries a transient provider error once, after a backoff", () => {
    for (const preset of Object.values(PRESETS)) {
      expect(preset.limits.maxErrorRetries).toBe(1);
      expect(preset.limits.errorBackoffMs).toBeGreaterThan(0);
    }
  });

  it("the default debounces 200 ms, has no countdown and nudges with the list inline", () => {
    expect(PRESETS.default).toMatchObject({
      debounceMs: 200,
      countdownMs: 0,
      nudgeStyle: "inline-list",
    });
    expect(PRESETS.default.limits).toMatchObject({
      stagnationMode: "strict",
      stagnationLimit: 1,
      tokenMode: "spend",
    });
  });

  it("the default's ceilings are all finite", () => {
    const { maxAutoTurns, maxTokens, maxWallClockMs } = PRESETS.default.limits;
    for (const ceiling of [maxAutoTurns, maxTokens, maxWallClockMs]) {
      expect(ceiling).toBeLessThan(UNLIMITED);
    }
  });

  it("is frozen", () => {
    expect(() => {
      (PRESETS.default.limits as { maxAutoTurns: number }).maxAutoTurns = 1;
    }).toThrow(TypeError);
  });
});

describe("resolvePreset", () => {
  it("defaults to the project's preset", () => {
    expect(resolvePreset()).toEqual(PRESETS.default);
  });

  it.each(PRESET_NAMES)("resolves %s to a copy the caller may change", (name: PresetName) => {
    const preset = resolvePreset(name);
    expect(preset).toEqual(PRESETS[name]);
    preset.limits.maxAutoTurns = 0;
    expect(PRESETS[name].limits.maxAutoTurns).not.toBe(0);
  });

  it("lists the valid names for an unknown one", () => {
    expect(() => resolvePreset("aggressive")).toThrow(
      'unknown preset "aggressive"; valid presets: default, typeclaw, parley, omo, pi',
    );
    expect(() => resolvePreset("constructor")).toThrow(/unknown preset "constructor"/);
  });
});

describe("the default preset in action", () => {
  const limits = PRESETS.default.limits;
  const pending = (n: number): TodoStatus[] => Array(n).fill("pending");

  it("lets an agent that closes one item per turn finish a 25-item list", () => {
    const sim = new Sim(limits, listOf(...pending(25)));
    sim
      .userAsks()
      .tick(2 * MINUTE)
      .turnEnd("stop", TURN_USAGE);
    while (sim.idle().action === "inject") {
      sim
        .tick(3 * MINUTE)
        .turnEnd("stop", TURN_USAGE)
        .completeNext();
    }
    expect(sim.lastDecision).toMatchObject({ action: "skip", reason: "no-incomplete-todos" });
    expect(sim.injections).toBe(25);
  });

  it("ends an unproductive episode after one wasted nudge", () => {
    const sim = new Sim(limits, listOf(...pending(25)));
    sim.userAsks().turnEnd("stop", TURN_USAGE);
    for (let i = 0; i < 10; i++) {
      sim.idle();
      sim.tick(MINUTE).turnEnd("stop", TURN_USAGE);
    }
    expect(sim.injections).toBe(1);
    expect(sim.lastDecision).toMatchObject({ reason: "stagnation" });
  });

  it("holds its turn ceiling against an agent that games progress forever", () => {
    const sim = new Sim(limits, listOf("pending"));
    sim.userAsks().turnEnd("stop", { output: 10 });
    for (let i = 0; i < 500; i++) {
      sim.idle();
      // Adds two items and completes one: "progress" by the completed count.
      sim.list = {
        ...sim.list,
        todos: [
          ...sim.list.todos,
          { content: `busywork ${i}a`, status: "pending" },
          { content: `busywork ${i}b`, status: "pending" },
        ],
      };
      sim.completeNext();
      sim.tick(1_000).turnEnd("stop", { output: 10 });
    }
    expect(sim.injections).toBe(limits.maxAutoTurns);
    expect(sim.lastDecision).toMatchObject({ reason: "max-auto-turns" });
  });

  it("holds its spend ceiling against an agent that burns tokens", () => {
    const sim = new Sim(limits, listOf(...pending(200)));
    sim.userAsks().turnEnd("stop");
    while (sim.idle().action === "inject") {
      sim.tick(1_000).turnEnd("stop", { output: 200_000 }).completeNext();
    }
    expect(sim.lastDecision).toMatchObject({ reason: "max-tokens" });
    expect(sim.injections).toBe(Math.ceil(limits.maxTokens / 200_000));
  });

  it("holds its wall clock against slow turns", () => {
    const sim = new Sim(limits, listOf(...pending(200)));
    sim.userAsks().turnEnd("stop");
    while (sim.idle().action === "inject")
      sim
        .tick(30 * MINUTE)
        .turnEnd("stop")
        .completeNext();
    expect(sim.lastDecision).toMatchObject({ reason: "max-wall-clock" });
    expect(sim.injections).toBe(limits.maxWallClockMs / (30 * MINUTE));
  });
});
