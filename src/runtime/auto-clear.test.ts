import { describe, expect, it } from "vitest";
import type { Scope, TodoList } from "../core/types.js";
import { MemoryStore } from "../store/memory/memory-store.js";
import { FinishedItemSweeper } from "./auto-clear.js";
import { ContinuationRuntime } from "./runtime.js";

const scope: Scope = { key: "tui", kind: "tui" };

const list: TodoList = {
  phases: [],
  nextId: 1,
  todos: [
    { content: "done already", status: "completed" },
    { content: "dropped", status: "cancelled" },
    { content: "still open", status: "pending" },
  ],
};

async function run(delayMs: number, waitMs: number, clock?: { now: number }) {
  const runtime = new ContinuationRuntime({
    store: new MemoryStore(),
    ...(clock ? { now: () => clock.now } : {}),
  });
  await runtime.setTodos(scope, list);
  const sweeper = new FinishedItemSweeper(runtime, delayMs);
  sweeper.observe(scope, list);
  await new Promise((r) => setTimeout(r, waitMs));
  sweeper.dispose();
  return (await runtime.store.read(scope)).todos.todos.map((t) => t.content);
}

describe("FinishedItemSweeper", () => {
  it("0 clears finished items at once", async () => {
    expect(await run(0, 30)).toEqual(["still open"]);
  });

  it("a negative delay disables it", async () => {
    expect(await run(-1, 30)).toEqual(["done already", "dropped", "still open"]);
  });

  it("keeps finished items until their delay has passed", async () => {
    expect(await run(60_000, 30)).toEqual(["done already", "dropped", "still open"]);
  });

  it("rejects a delay that is not a number", () => {
    const runtime = new ContinuationRuntime({ store: new MemoryStore() });
    expect(() => new FinishedItemSweeper(runtime, Number.NaN)).toThrow(/finite number/);
  });
});
