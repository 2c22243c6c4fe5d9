import { describe, expect, it } from "vitest";
import type { Notification } from "../core/notify/events.js";
import { resolveScope } from "../core/scope/scope.js";
import type { Scope, Todo } from "../core/types.js";
import { MemoryStore } from "../store/memory/memory-store.js";
import { ContinuationRuntime } from "./runtime.js";

/**
 * `done` goes out once per finished list: a user who keeps talking to an
 * agent whose list stays all-completed is not told "done" at every turn.
 */

const scope = resolveScope({ kind: "session", host: "test", sessionId: "done" }) as Scope;

function world() {
  const sent: Notification[] = [];
  let now = 1_000_000;
  const runtime = new ContinuationRuntime({
    store: new MemoryStore(),
    now: () => (now += 1_000),
    notify: { events: ["done"], send: (_scope, notifications) => sent.push(...notifications) },
  });
  /** One exchange: the user speaks, the agent (maybe) writes its list, the turn ends, the host idles. */
  const turn = async (list?: Todo[]) => {
    await runtime.turnStarted(scope, { real: true });
    if (list !== undefined) await runtime.setTodos(scope, list);
    return runtime.runIdle(scope, { outcome: { stopReason: "stop" }, deliver: () => undefined });
  };
  /** The turn a nudge started, ending with `list`. */
  const nudgedTurn = async (list: Todo[]) => {
    await runtime.setTodos(scope, list);
    return runtime.runIdle(scope, {
      outcome: { stopReason: "stop", injected: true },
      deliver: () => undefined,
    });
  };
  return { sent, turn, nudgedTurn, done: () => sent.filter((n) => n.event === "done").length };
}

const item = (content: string, status: Todo["status"]): Todo => ({ content, status });

describe("the done notification: once per finished list", () => {
  it("a list finished after an episode: one done, none at the user's later turns", async () => {
    const w = world();
    expect((await w.turn([item("a", "pending"), item("b", "pending")])).action).toBe("inject");
    await w.nudgedTurn([item("a", "completed"), item("b", "completed")]);
    expect(w.done()).toBe(1);
    // The user keeps talking; the list stays as it is, all completed.
    for (let i = 0; i < 3; i++) await w.turn();
    expect(w.done()).toBe(1);
  });

  it("a list written and finished within one turn: one done, none after", async () => {
    const w = world();
    await w.turn([item("a", "completed")]);
    expect(w.done()).toBe(1);
    await w.turn();
    await w.turn();
    expect(w.done()).toBe(1);
  });

  it("new work finished later is a new done", async () => {
    const w = world();
    await w.turn([item("a", "completed")]);
    await w.turn();
    await w.turn([item("a", "completed"), item("c", "completed")]);
    expect(w.done()).toBe(2);
    // The same item reopened and finished again is new work, too.
    await w.turn([item("a", "completed"), item("c", "pending")]);
    await w.turn([item("a", "completed"), item("c", "completed")]);
    expect(w.done()).toBe(3);
  });
});
