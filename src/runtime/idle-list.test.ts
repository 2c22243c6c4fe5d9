import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolveScope } from "../core/scope/scope.js";
import type { Scope, Todo } from "../core/types.js";
import { MemoryStore } from "../store/memory/memory-store.js";
import { ContinuationRuntime } from "./runtime.js";

const cacheDir = mkdtempSync(join(tmpdir(), "tc-idle-list-"));
afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

const scope = resolveScope({ kind: "session", host: "test", sessionId: "idle-list" }) as Scope;

const open: Todo[] = [
  { id: "1", content: "write the parser", status: "completed" },
  { id: "2", content: "test the parser", status: "pending" },
];

/** A memory store that keeps what each transaction wrote. */
function recordingStore(): { store: MemoryStore; writes: Record<string, unknown>[] } {
  const store = new MemoryStore();
  const writes: Record<string, unknown>[] = [];
  const transact = store.transact.bind(store);
  store.transact = ((s, update) =>
    transact(s, (snap) => {
      const out = update(snap);
      writes.push(out as unknown as Record<string, unknown>);
      return out;
    })) as typeof store.transact;
  return { store, writes };
}

describe("runIdle with the host's list (todos)", () => {
  it("stores the list and decides on it in the decision's one write", async () => {
    const { store, writes } = recordingStore();
    const runtime = new ContinuationRuntime({ store, now: () => 1_000_000 });
    await runtime.turnStarted(scope, { real: true });
    writes.length = 0;
    let delivered = "";
    const result = await runtime.runIdle(scope, {
      trigger: "stop-hook",
      outcome: { stopReason: "stop" },
      todos: open,
      deliver: (nudge) => {
        delivered = nudge.text;
      },
    });
    expect(result.action).toBe("inject");
    expect(delivered).toContain("test the parser");
    expect(writes).toHaveLength(1);
    expect(Object.keys(writes[0] ?? {}).sort()).toEqual(["log", "result", "state", "todos"]);
    const stored = await store.read(scope);
    expect(stored.todos.todos.map((t) => [t.content, t.status])).toEqual([
      ["write the parser", "completed"],
      ["test the parser", "pending"],
    ]);
    const [entry] = await store.readLog(scope);
    expect(entry?.actionable).toBe(1);
  });

  it("writes no list when it brings the stored one", async () => {
    const { store, writes } = recordingStore();
    const runtime = new ContinuationRuntime({ store, now: () => 1_000_000 });
    await runtime.turnStarted(scope, { real: true });
    await runtime.setTodos(scope, open);
    const before = (await store.read(scope)).todos;
    writes.length = 0;
    await runtime.runIdle(scope, { todos: open, deliver: () => undefined });
    expect(writes).toHaveLength(1);
    expect(writes[0]).not.toHaveProperty("todos");
    expect((await store.read(scope)).todos).toEqual(before);
  });

  it("drops a malformed item of the host's, as setTodos does", async () => {
    const store = new MemoryStore();
    const runtime = new ContinuationRuntime({ store, now: () => 1_000_000 });
    const todos = [...open, { content: "", status: "done?" }] as unknown as Todo[];
    await runtime.runIdle(scope, { todos, deliver: () => undefined });
    const other = resolveScope({ kind: "session", host: "test", sessionId: "other" }) as Scope;
    await runtime.setTodos(other, todos);
    expect((await store.read(scope)).todos.todos).toEqual((await store.read(other)).todos.todos);
  });

  it("runs the project's check on the list it brings, not the stored one", async () => {
    let checks = 0;
    const runtime = new ContinuationRuntime({
      store: new MemoryStore(),
      now: () => 1_000_000,
      verify: {
        settings: { command: "exit 1", timeoutMs: 5_000, when: "finished" },
        cwd: process.cwd(),
        cacheDir,
        check: async () => {
          checks++;
          return {
            result: {
              command: "exit 1",
              status: "failed",
              exitCode: 1,
              signal: null,
              startedAt: 1_000_000,
              durationMs: 5,
              outputTail: "2 tests failed",
              tree: "t1",
              cached: false,
            },
          } as never;
        },
      },
    });
    await runtime.turnStarted(scope, { real: true });
    await runtime.setTodos(scope, open);
    // The stored list has an open item; the one the host brings is finished: the check is due.
    const done = open.map((t) => ({ ...t, status: "completed" as const }));
    const result = await runtime.runIdle(scope, {
      outcome: { stopReason: "stop" },
      todos: done,
      deliver: () => undefined,
    });
    expect(checks).toBe(1);
    expect(result.action).toBe("inject");
    // And the other way: a stored finished list, an open one brought: no check.
    const again = resolveScope({ kind: "session", host: "test", sessionId: "again" }) as Scope;
    await runtime.turnStarted(again, { real: true });
    await runtime.setTodos(again, done);
    await runtime.runIdle(again, { todos: open, deliver: () => undefined });
    expect(checks).toBe(1);
  });
});
