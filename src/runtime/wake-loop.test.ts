import { describe, expect, it } from "vitest";
import { resolveScope } from "../core/scope/scope.js";
import type { Scope, Todo } from "../core/types.js";
import { MemoryStore } from "../store/memory/memory-store.js";
import { ContinuationRuntime, RETRY_TEXT } from "./runtime.js";
import { runWakeLoop, WakeBudget } from "./wake-loop.js";

const scope = resolveScope({ kind: "session", host: "test", sessionId: "w" }) as Scope;

function list(done: number, total: number, blocked = 0): Todo[] {
  return Array.from({ length: total }, (_, i) => {
    if (i < done) return { content: `step ${i}`, status: "completed" as const };
    if (i >= total - blocked) {
      return { content: `step ${i}`, status: "blocked" as const, blockedReason: "needs approval" };
    }
    return { content: `step ${i}`, status: "pending" as const };
  });
}

async function activation(preset: "parley" | "default") {
  const runtime = new ContinuationRuntime({ store: new MemoryStore(), preset });
  await runtime.turnStarted(scope, { real: true });
  return runtime;
}

describe("runWakeLoop", () => {
  it("re-enters with the nudge until the list is done, then goes dormant", async () => {
    const runtime = await activation("parley");
    let done = 0;
    const nudges: (string | null)[] = [];
    const result = await runWakeLoop({
      runtime,
      scope,
      runTurn: async ({ nudge }) => {
        nudges.push(nudge?.text ?? null);
        done++; // one item per turn: a lazy but honest worker
        await runtime.setTodos(scope, list(done, 5));
        return { stopReason: "stop" };
      },
    });
    expect(result).toEqual({
      state: "dormant",
      cycles: 4,
      lastSkip: null,
      stoppedBy: "nothing-actionable",
    });
    expect(nudges[0]).toBeNull();
    expect(nudges.slice(1).every((n) => n?.includes("step 4"))).toBe(true);
  });

  it("retries a turn a transient provider error ended once, after the backoff", async () => {
    const runtime = await activation("default");
    await runtime.setTodos(scope, list(0, 3));
    const slept: number[] = [];
    const nudges: (string | null)[] = [];
    const result = await runWakeLoop({
      runtime,
      scope,
      sleep: async (ms) => void slept.push(ms),
      runTurn: async ({ nudge }) => {
        nudges.push(nudge?.text ?? null);
        return { stopReason: "transient_error" };
      },
    });
    expect(result).toMatchObject({ state: "idle", cycles: 1, lastSkip: "retries-exhausted" });
    expect(nudges[1]).toBe(RETRY_TEXT);
    expect(slept).toEqual([runtime.limits.errorBackoffMs]);
  });

  it("parks Idle when the shared budget runs out with todos open", async () => {
    const runtime = await activation("parley");
    let done = 0;
    const budget = new WakeBudget(3);
    expect(budget.take()).toBe(true); // another runtime nudge (a reply nudge) spent one
    const result = await runWakeLoop({
      runtime,
      scope,
      budget,
      runTurn: async () => {
        done++;
        await runtime.setTodos(scope, list(done, 10));
        return { stopReason: "stop" };
      },
    });
    expect(result.state).toBe("idle");
    expect(result.cycles).toBe(2);
    expect(result.stoppedBy).toBe("wake-budget");
    // The log says why the loop stopped after its last nudge, and the state is left as it was.
    const stateBefore = (await runtime.store.read(scope)).state;
    const log = await runtime.store.readLog(scope);
    expect(log.map((e) => e.reason ?? e.action)).toEqual(["inject", "inject", "wake-budget"]);
    // Three turns each closed one of ten items.
    expect(log.at(-1)).toMatchObject({ action: "skip", trigger: "wake", actionable: 7 });
    expect((await runtime.store.read(scope)).state).toEqual(stateBefore);
    expect(budget.remaining).toBe(0);
    budget.reset();
    expect(budget.remaining).toBe(3);
  });

  it("a parked turn (waiting on a human) is not re-entered", async () => {
    const runtime = await activation("parley");
    await runtime.setTodos(scope, list(0, 3));
    let turns = 0;
    const result = await runWakeLoop({
      runtime,
      scope,
      runTurn: async () => {
        turns++;
        return { stopReason: "stop", parked: true };
      },
    });
    expect(result).toEqual({ state: "parked", cycles: 0, lastSkip: null, stoppedBy: "parked" });
    expect(turns).toBe(1);
  });

  it("only blocked items left: dormant, no nagging", async () => {
    const runtime = await activation("parley");
    const result = await runWakeLoop({
      runtime,
      scope,
      runTurn: async () => {
        await runtime.setTodos(scope, list(2, 3, 1));
        return { stopReason: "stop" };
      },
    });
    expect(result.state).toBe("dormant");
    expect(result.cycles).toBe(0);
  });

  it("an agent that never progresses is stopped by the engine, not by luck", async () => {
    const runtime = await activation("default");
    await runtime.setTodos(scope, list(0, 4));
    let turns = 0;
    const result = await runWakeLoop({
      runtime,
      scope,
      runTurn: async () => {
        turns++;
        return { stopReason: "stop" };
      },
    });
    expect(result.state).toBe("idle");
    expect(result.lastSkip).toBe("stagnation");
    expect(turns).toBe(2); // the first turn, one nudge, then stagnation
  });

  it("rejects a negative budget with a clear error", () => {
    expect(() => new WakeBudget(-1)).toThrow(/non-negative integer/);
  });
});
