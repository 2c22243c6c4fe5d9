import { describe, expect, it } from "vitest";
import { resolveScope } from "../core/scope/scope.js";
import { ContinuationRuntime } from "../runtime/runtime.js";
import { MemoryStore } from "../store/memory/memory-store.js";
import { overviewRow } from "./view-model.js";

const worker = resolveScope({ kind: "session", host: "claude-code", sessionId: "w1" })!;

async function rowWith(recorded: string | undefined, fromStore: string | null) {
  const runtime = new ContinuationRuntime({
    store: new MemoryStore(),
    ...(recorded !== undefined ? { projectDir: recorded } : {}),
  });
  await runtime.setTodos(worker, [{ content: "a", status: "pending" }]);
  const snapshot = await runtime.store.read(worker);
  const { limits } = runtime;
  // The decision and summary as the dashboard computes them.
  return overviewRow({
    ...runtime.preview(snapshot),
    snapshot,
    limits,
    now: 0,
    last: null,
    scope: worker,
    label: "w",
    project: fromStore,
  });
}

describe("overviewRow: the project column", () => {
  it("shows the folder the host recorded, over the store's location, and finds it", async () => {
    const row = await rowWith("/home/u/app", "/elsewhere");
    expect(row.project).toBe("/home/u/app");
    expect(row.search).toContain("/home/u/app");
  });

  it("falls back to the store's project, else none", async () => {
    expect((await rowWith(undefined, "/from/store")).project).toBe("/from/store");
    expect((await rowWith(undefined, null)).project).toBeNull();
  });
});
