import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resolveScope } from "../core/scope/scope.js";
import type { Scope, Todo } from "../core/types.js";
import { createFileStore } from "../store/file/file-store.js";
import { scopePaths } from "../store/file/paths.js";
import { MemoryStore } from "../store/memory/memory-store.js";
import { ContinuationRuntime } from "./runtime.js";

const scope = resolveScope({ kind: "session", host: "test", sessionId: "s1" }) as Scope;

const open: Todo[] = [
  { id: "1", content: "write the parser", status: "completed" },
  { id: "2", content: "test the parser", status: "pending" },
];

async function readyToNudge(runtime: ContinuationRuntime): Promise<void> {
  await runtime.turnStarted(scope, { real: true });
  await runtime.setTodos(scope, open);
  await runtime.turnEnded(scope, { stopReason: "stop" });
}

describe("runIdle with a countdown's preview", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("reuses the preview's summary while the stored list has the same items", async () => {
    const store = new MemoryStore();
    const runtime = new ContinuationRuntime({ store, now: () => 1_000_000 });
    await readyToNudge(runtime);
    const preview = await runtime.explain(scope);
    expect(preview.summary.actionable).toBe(1);
    // A marked summary shows which one the decision used.
    const marked = { todos: preview.todos, summary: { ...preview.summary, blocked: 7 } };
    await runtime.runIdle(scope, { preview: marked, deliver: () => undefined });
    const [entry] = await store.readLog(scope);
    expect(entry?.action).toBe("inject");
    expect(entry?.blocked).toBe(7);
  });

  it("summarizes afresh when the list changed after the preview", async () => {
    const store = new MemoryStore();
    const runtime = new ContinuationRuntime({ store, now: () => 1_000_000 });
    await readyToNudge(runtime);
    const preview = await runtime.explain(scope);
    await runtime.setTodos(scope, [...open, { id: "3", content: "ship it", status: "pending" }]);
    const marked = { todos: preview.todos, summary: { ...preview.summary, blocked: 7 } };
    await runtime.runIdle(scope, { preview: marked, deliver: () => undefined });
    const [entry] = await store.readLog(scope);
    expect(entry?.blocked).toBe(0);
    expect(entry?.actionable).toBe(2);
  });

  it("never decides on a list a hand edit has replaced, even at the same revision", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tc-preview-"));
    dirs.push(dir);
    const store = createFileStore({ root: dir });
    const runtime = new ContinuationRuntime({ store, now: () => 1_000_000 });
    await readyToNudge(runtime);
    const preview = await runtime.explain(scope);
    expect(preview.decision.action).toBe("inject");

    // The person closes the last item by hand and leaves the revision alone.
    const file = scopePaths(store.todoDir, scope).todos;
    const doc = JSON.parse(readFileSync(file, "utf8"));
    doc.todos[1].status = "completed";
    writeFileSync(file, JSON.stringify(doc));

    const delivered: string[] = [];
    const result = await runtime.runIdle(scope, {
      preview,
      deliver: (nudge) => void delivered.push(nudge.text),
    });
    expect(result).toEqual({ action: "skip", reason: "no-incomplete-todos" });
    expect(delivered).toEqual([]);
    await store.close();
  });
});

describe("setTodos", () => {
  it("writes a host's list only when it differs from the stored one", async () => {
    const store = new MemoryStore();
    const runtime = new ContinuationRuntime({ store, now: () => 1_000_000 });
    await runtime.setTodos(scope, open);
    const first = await store.read(scope);
    await runtime.setTodos(scope, structuredClone(open));
    expect((await store.read(scope)).todosRevision).toBe(first.todosRevision);
    await runtime.setTodos(scope, [...open, { content: "ship it", status: "pending" }]);
    const changed = await store.read(scope);
    expect(changed.todosRevision).toBe(first.todosRevision + 1);
    expect(changed.todos.todos).toHaveLength(3);
  });
});
