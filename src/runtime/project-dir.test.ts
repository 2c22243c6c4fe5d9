import { describe, expect, it } from "vitest";
import { resolveScope } from "../core/scope/scope.js";
import type { Scope } from "../core/types.js";
import { MemoryStore } from "../store/memory/memory-store.js";
import { ContinuationRuntime } from "./runtime.js";

const scope = resolveScope({ kind: "session", host: "test", sessionId: "s1" }) as Scope;
const todos = [{ content: "one", status: "pending" as const }];

describe("runtime: the host's project folder", () => {
  it("is recorded once by setTodos and not rewritten while unchanged", async () => {
    const store = new MemoryStore();
    const runtime = new ContinuationRuntime({ store, projectDir: "/home/u/app" });
    await runtime.setTodos(scope, todos);
    const first = await store.read(scope);
    expect(first.state.projectDir).toBe("/home/u/app");
    await runtime.setTodos(scope, todos);
    const second = await store.read(scope);
    expect(second.stateRevision).toBe(first.stateRevision);
    expect(second.todosRevision).toBe(first.todosRevision);
  });

  it("is recorded with the decision by runIdle, and a new folder replaces the old", async () => {
    const store = new MemoryStore();
    await new ContinuationRuntime({ store, projectDir: "/old" }).runIdle(scope, {
      deliver: () => {},
    });
    expect((await store.read(scope)).state.projectDir).toBe("/old");
    await new ContinuationRuntime({ store, projectDir: "/new" }).turnEnded(scope, {
      stopReason: "stop",
    });
    expect((await store.read(scope)).state.projectDir).toBe("/new");
  });

  it("records nothing without one, and keeps what another host recorded", async () => {
    const store = new MemoryStore();
    await new ContinuationRuntime({ store }).runIdle(scope, { deliver: () => {} });
    expect((await store.read(scope)).state.projectDir).toBeUndefined();
    await new ContinuationRuntime({ store, projectDir: "/a" }).setTodos(scope, todos);
    await new ContinuationRuntime({ store }).runIdle(scope, { deliver: () => {} });
    expect((await store.read(scope)).state.projectDir).toBe("/a");
  });
});
