import { resolveScope } from "../../core/scope/index.js";
import type { Origin, Scope, Store, TodoList } from "../../core/types.js";
import { ContinuationRuntime } from "../../runtime/runtime.js";

export function scopeOf(origin: Origin): Scope {
  const scope = resolveScope(origin);
  if (scope === null) throw new Error("seed: origin has no scope");
  return scope;
}

export const TUI = scopeOf({ kind: "tui" });
export const ABC = scopeOf({ kind: "session", host: "claude-code", sessionId: "abc123" });
export const ABD = scopeOf({ kind: "session", host: "claude-code", sessionId: "abd999" });
export const NIGHTLY = scopeOf({ kind: "cron", jobId: "nightly" });

/** A list with phases, notes, ids, a priority and a blocked item: everything `show` draws. */
export const TUI_LIST: TodoList = {
  todos: [
    { content: "Write the parser", status: "completed", id: "1", phase: "Build" },
    {
      content: "Test the parser",
      status: "in_progress",
      id: "2",
      phase: "Build",
      priority: "high",
      notes: ["cover the empty input"],
    },
    {
      content: "Publish the package",
      status: "blocked",
      id: "3",
      phase: "Release",
      blockedReason: "waiting for the npm token",
    },
    { content: "Announce it", status: "pending", id: "4", phase: "Release" },
  ],
  phases: ["Build", "Release"],
  nextId: 5,
};

/**
 * Fills a store the way hosts would: the tui list was nudged once; one
 * session is finished, another stopped by the user; the cron job has only
 * blocked work.
 */
export async function seed(store: Store): Promise<void> {
  const runtime = new ContinuationRuntime({ store });
  await runtime.turnStarted(TUI, { real: true });
  await runtime.setTodos(TUI, TUI_LIST);
  await runtime.turnEnded(TUI, { stopReason: "stop", usage: { input: 1000, output: 200 } });
  await runtime.runIdle(TUI, { deliver: () => undefined });

  await runtime.setTodos(ABC, [{ content: "Fix the login bug", status: "completed" }]);
  await runtime.setTodos(ABD, [{ content: "Refactor the router", status: "pending" }]);
  await runtime.stop(ABD);

  await runtime.setTodos(NIGHTLY, [
    { content: "Rotate the logs", status: "blocked", blockedReason: "disk is read-only" },
  ]);
}
