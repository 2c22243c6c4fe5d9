import { describe, expect, it } from "vitest";
import {
  DEFAULT_SKIP_AGENTS,
  OPENCODE_CLOSE_INSTRUCTION,
  parseOpenCodeOptions,
} from "./options.js";

describe("parseOpenCodeOptions", () => {
  it("fills every default from the default preset", () => {
    const settings = parseOpenCodeOptions(undefined);
    expect(settings.preset.name).toBe("default");
    expect(settings.limits).toEqual(settings.preset.limits);
    expect(settings.nudgeStyle).toBe(settings.preset.nudgeStyle);
    expect(settings.countdownMs).toBe(0);
    // The plugin merges duplicate idles itself; a debounce would only delay the nudge.
    expect(settings.debounceMs).toBe(0);
    expect(parseOpenCodeOptions({ preset: "omo" }).debounceMs).toBe(0);
    expect(parseOpenCodeOptions({ debounceMs: 150 }).debounceMs).toBe(150);
    expect(settings.skipAgents).toEqual(DEFAULT_SKIP_AGENTS);
    expect(settings.closeInstruction).toBe(OPENCODE_CLOSE_INSTRUCTION);
    expect(settings.storeDir).toBeUndefined();
    expect(settings.toast).toBe(true);
    expect(settings.enabled).toBe(true);
  });

  it("takes timings from the chosen preset and lets options override them", () => {
    const omo = parseOpenCodeOptions({ preset: "omo" });
    expect(omo.countdownMs).toBe(2_000);
    expect(omo.nudgeStyle).toBe("status-directive");
    const custom = parseOpenCodeOptions({
      preset: "omo",
      countdownMs: 0,
      limits: { maxAutoTurns: 5 },
      skipAgents: [" plan "],
      storeDir: "/tmp/x",
    });
    expect(custom.countdownMs).toBe(0);
    expect(custom.limits.maxAutoTurns).toBe(5);
    expect(custom.limits.stagnationLimit).toBe(omo.limits.stagnationLimit);
    expect(custom.skipAgents).toEqual(["plan"]);
    expect(custom.storeDir).toBe("/tmp/x");
  });

  it.each([
    [{ countdown: 3 }, /unknown option "countdown"; known options: preset, limits/],
    [
      { countdownMs: "3s" },
      /option "countdownMs" must be a whole number of milliseconds .* got "3s"/,
    ],
    [{ debounceMs: -1 }, /option "debounceMs" must be a whole number .* got -1/],
    [{ countdownMs: 3_600_000 }, /option "countdownMs" .* from 0 to 600000/],
    [{ preset: "fast" }, /option preset: unknown preset "fast"; valid presets: default/],
    [
      { limits: { maxAutoTurns: -2 } },
      /option limits\.maxAutoTurns must be an integer >= 0, got -2/,
    ],
    [{ limits: { maxTurns: 2 } }, /option limits\.maxTurns is not a limit/],
    [{ nudgeStyle: "loud" }, /option "nudgeStyle" must be one of .* got "loud"/],
    [{ skipAgents: "plan" }, /option "skipAgents" must be a list of agent names, got "plan"/],
    [{ skipAgents: ["plan", ""] }, /option "skipAgents" must be a list/],
    [{ storeDir: "" }, /option "storeDir" must be a non-empty string/],
    [{ toast: "yes" }, /option "toast" must be true or false, got "yes"/],
    [["preset"], /plugin options must be an object, got an array/],
    ["omo", /plugin options must be an object, got "omo"/],
  ])("rejects %j with an error naming the option", (raw, message) => {
    expect(() => parseOpenCodeOptions(raw)).toThrow(message);
    expect(() => parseOpenCodeOptions(raw)).toThrow(/^todo-continuation \(opencode\): /);
  });
});
