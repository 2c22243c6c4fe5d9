import { describe, expect, it } from "vitest";
import { resolveScope } from "../core/scope/scope.js";
import type { Scope, Todo } from "../core/types.js";
import { MemoryStore } from "../store/memory/memory-store.js";
import { ContinuationRuntime, type Nudge, type RuntimeOptions } from "./runtime.js";

const scope = resolveScope({ kind: "session", host: "test", sessionId: "s1" }) as Scope;

function todos(...statuses: Todo["status"][]): Todo[] {
  return statuses.map((status, i) => ({ content: `item ${i + 1}`, status }));
}

function setup(options: Partial<RuntimeOptions> = {}) {
  const store = new MemoryStore();
  const runtime = new ContinuationRuntime({ store, now: () => 1_000_000, ...options });
  const delivered: Nudge[] = [];
  const idle = () => runtime.runIdle(scope, { deliver: (n) => void delivered.push(n) });
  return { store, runtime, delivered, idle };
}

/** A user turn, then the agent stops with items open (the list moved since the user spoke). */
async function stopWithWork(runtime: ContinuationRuntime, turn: number, end = {}) {
  if (turn === 1) {
    await runtime.turnStarted(scope, { real: true });
  }
  await runtime.setTodos(scope, todos(...Array(turn).fill("completed"), "pending", "pending"));
  await runtime.turnEnded(scope, { turnId: `t${turn}`, stopReason: "stop", ...end });
}

describe("advise mode", () => {
  it("decides and records, never delivers; the log marks the entry", async () => {
    const { runtime, store, delivered, idle } = setup({ mode: "advise" });
    await stopWithWork(runtime, 1);
    const result = await idle();
    expect(result).toMatchObject({ action: "inject", delivered: false, advised: true });
    expect(delivered).toHaveLength(0);
    const [entry] = await store.readLog(scope);
    expect(entry).toMatchObject({ action: "inject", advise: true, autoTurns: 1 });
    // The budget is counted as enforce mode would have: the log shows what would have happened.
    expect((await store.read(scope)).state.episode?.autoTurns).toBe(1);
  });

  it("enforce is the default, and a bad mode is refused before anything changes", async () => {
    const { runtime, delivered, idle } = setup();
    expect(runtime.mode).toBe("enforce");
    await stopWithWork(runtime, 1);
    expect(await idle()).toMatchObject({ action: "inject", delivered: true });
    expect(delivered).toHaveLength(1);
    expect(() => runtime.reconfigure({ mode: "warn" as never })).toThrow(/mode must be/);
    expect(runtime.mode).toBe("enforce");
    runtime.reconfigure({ mode: "advise" });
    expect(runtime.mode).toBe("advise");
  });
});

describe("cost", () => {
  const usage = { input: 100_000, output: 10_000, cacheRead: 0, cacheWrite: 0 };

  it("prices each turn by its model and keeps the episode's cost and model", async () => {
    const { runtime, store, idle } = setup({ limits: { maxCostUsd: 10 } });
    await stopWithWork(runtime, 1, { usage, model: "claude-sonnet-4-5-20250929" });
    expect(await idle()).toMatchObject({ action: "inject" });
    await stopWithWork(runtime, 2, { usage, model: "claude-sonnet-4-5-20250929", injected: true });
    expect(await idle()).toMatchObject({ action: "inject" });
    const { state } = await store.read(scope);
    // The user's own turn is not charged; the nudged one is: 0.30 + 0.15 USD.
    expect(state.episode?.costUsd).toBeCloseTo(0.45);
    expect(state.episode?.model).toBe("claude-sonnet-4-5-20250929");
    const log = await store.readLog(scope);
    expect(log.at(-1)?.costUsd).toBeCloseTo(0.45);
  });

  it("an unknown model stops nudging under a cost limit, and a config price fixes it", async () => {
    const unknown = setup({ limits: { maxCostUsd: 10 } });
    await stopWithWork(unknown.runtime, 1, { usage, model: "my-local-model" });
    expect(await unknown.idle()).toEqual({ action: "skip", reason: "max-cost" });
    const priced = setup({
      limits: { maxCostUsd: 10 },
      prices: { "my-local-model": { input: 0.1, output: 0.1 } },
    });
    await stopWithWork(priced.runtime, 1, { usage, model: "my-local-model" });
    expect(await priced.idle()).toMatchObject({ action: "inject" });
  });

  it("trips max-cost once the priced episode reaches the limit", async () => {
    const { runtime, idle } = setup({ limits: { maxCostUsd: 0.4 } });
    await stopWithWork(runtime, 1, { usage, model: "claude-sonnet-4-5" });
    expect(await idle()).toMatchObject({ action: "inject" });
    await stopWithWork(runtime, 2, { usage, model: "claude-sonnet-4-5", injected: true });
    expect(await idle()).toEqual({ action: "skip", reason: "max-cost" });
  });
});

describe("raise (resume --add)", () => {
  it("adds to the open episode, lifts a stop, and logs what was added", async () => {
    const { runtime, store, idle, delivered } = setup({ limits: { maxAutoTurns: 1 } });
    await stopWithWork(runtime, 1);
    expect(await idle()).toMatchObject({ action: "inject" });
    await stopWithWork(runtime, 2, { injected: true });
    expect(await idle()).toEqual({ action: "skip", reason: "max-auto-turns" });
    await runtime.stop(scope);
    const episode = await runtime.raise(
      scope,
      { nudges: 3, tokens: 0, timeMs: 0, costUsd: 0 },
      "+3 nudges",
    );
    expect(episode.raised?.nudges).toBe(3);
    const after = await store.read(scope);
    expect(after.state.stopped).toBe(false);
    const log = await store.readLog(scope);
    expect(log.at(-1)).toMatchObject({ action: "raised", note: "+3 nudges", trigger: "user" });
    await stopWithWork(runtime, 3, { injected: true });
    expect(await idle()).toMatchObject({ action: "inject", delivered: true });
    expect(delivered).toHaveLength(2);
  });

  it("the next real user turn starts a fresh episode without the extra allowance", async () => {
    const { runtime, store, idle } = setup({ limits: { maxAutoTurns: 1 } });
    await stopWithWork(runtime, 1);
    await idle();
    await runtime.raise(scope, { nudges: 3, tokens: 0, timeMs: 0, costUsd: 0 }, "+3 nudges");
    await runtime.turnStarted(scope, { real: true });
    expect((await store.read(scope)).state.episode).toBeNull();
  });

  it("without an open episode it throws and writes nothing", async () => {
    const { runtime, store } = setup();
    await runtime.stop(scope);
    const before = await store.read(scope);
    await expect(
      runtime.raise(scope, { nudges: 3, tokens: 0, timeMs: 0, costUsd: 0 }, "+3 nudges"),
    ).rejects.toThrow(/no episode is open/);
    const after = await store.read(scope);
    expect(after.stateRevision).toBe(before.stateRevision);
    expect(after.state.stopped).toBe(true);
    expect(await store.readLog(scope)).toHaveLength(0);
  });
});
