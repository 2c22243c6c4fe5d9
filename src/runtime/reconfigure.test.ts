import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolveScope } from "../core/scope/scope.js";
import type { Scope } from "../core/types.js";
import { MemoryStore } from "../store/memory/memory-store.js";
import { ContinuationRuntime } from "./runtime.js";
import { runWakeLoop } from "./wake-loop.js";

const cacheDir = mkdtempSync(join(tmpdir(), "tc-reconfigure-"));
afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));
const scope = resolveScope({ kind: "session", host: "test", sessionId: "re1" }) as Scope;

describe("ContinuationRuntime.reconfigure", () => {
  it("takes a new preset, limits and check; a bad value throws and changes nothing", () => {
    const runtime = new ContinuationRuntime({ store: new MemoryStore(), dialect: "typeclaw" });
    expect(runtime.preset.name).toBe("default");
    runtime.reconfigure({
      preset: "omo",
      limits: { maxAutoTurns: 2 },
      verify: {
        settings: { command: "true", timeoutMs: 5_000, when: "finished" },
        cwd: "/",
        cacheDir: "/tmp",
      },
    });
    expect(runtime.preset.name).toBe("omo");
    expect(runtime.limits.maxAutoTurns).toBe(2);
    expect(runtime.nudgeStyle).toBe(runtime.preset.nudgeStyle);
    expect(runtime.verify?.settings.command).toBe("true");
    // The dialect chosen at construction stays.
    expect(runtime.dialect).toBe("typeclaw");
    expect(() => runtime.reconfigure({ limits: { maxAutoTurns: -1 } })).toThrow(/maxAutoTurns/);
    expect(runtime.preset.name).toBe("omo");
    expect(runtime.limits.maxAutoTurns).toBe(2);
    runtime.reconfigure({ verify: null });
    expect(runtime.verify).toBeNull();
    expect(runtime.preset.name).toBe("default");
  });

  it("a check given to the wake loop runs for a finished list; null turns off the runtime's", async () => {
    const runtime = new ContinuationRuntime({
      store: new MemoryStore(),
      verify: {
        settings: { command: "exit 1", timeoutMs: 5_000, when: "finished" },
        cwd: process.cwd(),
        cacheDir,
      },
    });
    await runtime.turnStarted(scope, { real: true });
    await runtime.setTodos(scope, [{ content: "a", status: "completed" }]);
    const off = await runWakeLoop({
      runtime,
      scope,
      verify: null,
      runTurn: async () => ({ stopReason: "stop" }),
    });
    expect(off.stoppedBy).toBe("nothing-actionable");
    let turns = 0;
    const on = await runWakeLoop({
      runtime,
      scope,
      verify: {
        settings: { command: "true", timeoutMs: 5_000, when: "finished" },
        cwd: process.cwd(),
        cacheDir,
      },
      runTurn: async () => {
        turns++;
        return { stopReason: "stop" };
      },
    });
    expect(on).toMatchObject({ state: "dormant", stoppedBy: "verified", cycles: 0 });
    expect(turns).toBe(1);
  });
});
