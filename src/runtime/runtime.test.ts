import { describe, expect, it } from "vitest";
import { piTools } from "../core/dialects/pi.js";
import { resolveScope } from "../core/scope/scope.js";
import type { Scope, Todo } from "../core/types.js";
import { MemoryStore } from "../store/memory/memory-store.js";
import { ContinuationRuntime, type Nudge } from "./runtime.js";

const scope = resolveScope({ kind: "session", host: "test", sessionId: "s1" }) as Scope;

function todos(...statuses: Todo["status"][]): Todo[] {
  return statuses.map((status, i) => ({
    content: `item ${i + 1}`,
    status,
    ...(status === "blocked" ? { blockedReason: "waiting" } : {}),
  }));
}

function setup(options: { now?: () => number } = {}) {
  let clock = 1_000_000;
  const store = new MemoryStore();
  const runtime = new ContinuationRuntime({
    store,
    now: options.now ?? (() => clock),
  });
  const delivered: Nudge[] = [];
  const idle = (trigger = "idle") =>
    runtime.runIdle(scope, { trigger, deliver: (n) => void delivered.push(n) });
  return {
    store,
    runtime,
    delivered,
    idle,
    tick: (ms: number) => {
      clock += ms;
    },
  };
}

describe("ContinuationRuntime", () => {
  it("injects after an early stop with actionable todos, and logs the decision", async () => {
    const { runtime, store, idle, delivered } = setup();
    await runtime.turnStarted(scope, { real: true });
    await runtime.setTodos(scope, todos("completed", "pending", "pending"));
    await runtime.turnEnded(scope, { stopReason: "stop", usage: { output: 100 } });
    const result = await idle();
    expect(result.action).toBe("inject");
    expect(delivered).toHaveLength(1);
    expect(delivered[0]?.text).toContain("item 2");
    const log = await store.readLog(scope);
    expect(log.map((e) => e.action)).toEqual(["inject"]);
    expect(log[0]?.nudgeChars).toBe(delivered[0]?.chars);
  });

  it("records an idle's outcome in the decision's own write, exactly as turnEnded would", async () => {
    const separate = setup();
    const merged = setup();
    for (const { runtime } of [separate, merged]) {
      await runtime.turnStarted(scope, { real: true });
      await runtime.setTodos(scope, todos("completed", "pending", "pending"));
    }
    const end = { stopReason: "stop" as const, usage: { output: 120 }, turnId: "turn-1" };
    await separate.runtime.turnEnded(scope, end);
    await separate.idle("stop-hook");
    let writes = 0;
    const transact = merged.store.transact.bind(merged.store);
    merged.store.transact = ((...args: Parameters<typeof transact>) => {
      writes++;
      return transact(...args);
    }) as typeof transact;
    const result = await merged.runtime.runIdle(scope, {
      trigger: "stop-hook",
      outcome: end,
      deliver: (n) => void merged.delivered.push(n),
    });
    expect(result.action).toBe("inject");
    // One transaction: the outcome, the decision and its log entry; a clean delivery adds none.
    expect(writes).toBe(1);
    const a = await separate.store.read(scope);
    const b = await merged.store.read(scope);
    expect(b.state).toEqual(a.state);
    expect(b.state.lastOutcome?.turnId).toBe("turn-1");
    expect(merged.delivered.map((n) => n.text)).toEqual(separate.delivered.map((n) => n.text));
  });

  it("never injects twice for one turn outcome (duplicate idles)", async () => {
    const { runtime, idle, delivered } = setup();
    await runtime.turnStarted(scope, { real: true });
    await runtime.setTodos(scope, todos("pending", "pending"));
    await runtime.turnEnded(scope, { stopReason: "stop" });
    await idle();
    const second = await idle();
    expect(delivered).toHaveLength(1);
    expect(second.action).toBe("skip");
  });

  it("after an abort, gives no nudge until a real user turn", async () => {
    const { runtime, idle, delivered } = setup();
    await runtime.turnStarted(scope, { real: true });
    await runtime.setTodos(scope, todos("pending", "pending"));
    await runtime.turnEnded(scope, { stopReason: "aborted" });
    expect(await idle()).toEqual({ action: "skip", reason: "user-abort-blocked" });
    // An injected turn that somehow ends cleanly does not lift the block.
    await runtime.turnStarted(scope, { real: false });
    await runtime.turnEnded(scope, { stopReason: "stop", injected: true });
    expect(await idle()).toEqual({ action: "skip", reason: "user-abort-blocked" });
    expect(delivered).toHaveLength(0);
    await runtime.turnStarted(scope, { real: true });
    await runtime.setTodos(scope, todos("completed", "pending"));
    await runtime.turnEnded(scope, { stopReason: "stop" });
    expect((await idle()).action).toBe("inject");
  });

  it("after a real user turn, nudges only once the agent works its list again", async () => {
    const { runtime, idle, delivered } = setup();
    await runtime.setTodos(scope, todos("pending", "pending", "pending"));
    // "Stop. Inspect the broken context first.": the agent answers without touching its list.
    await runtime.turnStarted(scope, { real: true });
    await runtime.turnEnded(scope, { stopReason: "stop" });
    expect(await idle()).toEqual({ action: "skip", reason: "list-unchanged-since-user" });
    // "Continue": the agent closes an item, and is nudged as before.
    await runtime.turnStarted(scope, { real: true });
    await runtime.setTodos(scope, todos("completed", "pending", "pending"));
    await runtime.turnEnded(scope, { stopReason: "stop" });
    expect((await idle()).action).toBe("inject");
    expect(delivered).toHaveLength(1);
  });

  it("retries once after a transient provider error, after the backoff, then parks", async () => {
    const { runtime, idle, delivered } = setup();
    await runtime.turnStarted(scope, { real: true });
    await runtime.setTodos(scope, todos("completed", "pending"));
    await runtime.turnEnded(scope, { stopReason: "transient_error" });
    const retry = await idle();
    expect(retry.action).toBe("inject");
    expect(delivered[0]?.delayMs).toBe(runtime.limits.errorBackoffMs);
    expect(delivered[0]?.text).not.toContain("item 2");
    await runtime.turnEnded(scope, { stopReason: "transient_error", injected: true });
    expect(await idle()).toEqual({ action: "skip", reason: "retries-exhausted" });
    // Parked: even a clean turn that is not the user's does not bring nudges back.
    await runtime.turnEnded(scope, { stopReason: "stop", injected: true });
    expect(await idle()).toEqual({ action: "skip", reason: "retries-exhausted" });
    await runtime.turnStarted(scope, { real: true });
    await runtime.setTodos(scope, todos("completed", "completed", "pending"));
    await runtime.turnEnded(scope, { stopReason: "stop" });
    expect((await idle()).action).toBe("inject");
  });

  it("a non-retryable provider error parks the scope until the user speaks", async () => {
    const { runtime, idle } = setup();
    await runtime.turnStarted(scope, { real: true });
    await runtime.setTodos(scope, todos("completed", "pending"));
    await runtime.turnEnded(scope, { stopReason: "error" });
    expect(await idle()).toEqual({ action: "skip", reason: "provider-error" });
    await runtime.turnEnded(scope, { stopReason: "stop", injected: false });
    expect(await idle()).toEqual({ action: "skip", reason: "provider-error" });
  });

  it("a real user turn disarms the restart kick (a resumed session with a new prompt)", async () => {
    const { runtime, idle } = setup();
    await runtime.setTodos(scope, todos("pending", "pending"));
    await runtime.armRestartKick(scope);
    await runtime.turnStarted(scope, { real: true });
    await runtime.setTodos(scope, todos("completed", "pending"));
    await runtime.turnEnded(scope, { stopReason: "stop" });
    expect((await idle()).action).toBe("inject");
  });

  it("a restart-caused abort does not block", async () => {
    const { runtime, idle } = setup();
    await runtime.turnStarted(scope, { real: true });
    await runtime.setTodos(scope, todos("pending"));
    await runtime.turnEnded(scope, { stopReason: "aborted", restartCaused: true });
    const result = await idle();
    expect(result).not.toEqual({ action: "skip", reason: "user-abort-blocked" });
  });

  it("a restart skips exactly one idle", async () => {
    const { runtime, idle } = setup();
    await runtime.turnStarted(scope, { real: true });
    await runtime.setTodos(scope, todos("pending", "pending"));
    await runtime.turnEnded(scope, { stopReason: "stop" });
    await runtime.armRestartKick(scope);
    expect(await idle()).toEqual({ action: "skip", reason: "restart-kick-suppressed" });
    expect((await idle()).action).toBe("inject");
  });

  it("the user's stop holds until resume", async () => {
    const { runtime, idle } = setup();
    await runtime.turnStarted(scope, { real: true });
    await runtime.setTodos(scope, todos("pending"));
    await runtime.turnEnded(scope, { stopReason: "stop" });
    await runtime.stop(scope);
    expect(await idle()).toEqual({ action: "skip", reason: "continuation-stopped" });
    await runtime.turnStarted(scope, { real: true });
    await runtime.setTodos(scope, todos("completed", "pending"));
    await runtime.turnEnded(scope, { stopReason: "stop" });
    expect(await idle()).toEqual({ action: "skip", reason: "continuation-stopped" });
    await runtime.resume(scope);
    expect((await idle()).action).toBe("inject");
  });

  it("a failed delivery is logged, counted, and cools down", async () => {
    const { runtime, store } = setup();
    await runtime.turnStarted(scope, { real: true });
    await runtime.setTodos(scope, todos("pending"));
    await runtime.turnEnded(scope, { stopReason: "stop" });
    const result = await runtime.runIdle(scope, {
      deliver: () => {
        throw new Error("host unreachable");
      },
    });
    expect(result).toMatchObject({ action: "inject", delivered: false });
    const snap = await store.read(scope);
    expect(snap.state.episode?.failures).toBe(1);
    const log = await store.readLog(scope);
    expect(log.map((e) => e.action)).toEqual(["inject", "delivery-failed"]);
    expect(log[1]?.note).toBe("host unreachable");
  });

  it("persists before it delivers: the episode counts the nudge even if delivery never returns", async () => {
    const { runtime, store } = setup();
    await runtime.turnStarted(scope, { real: true });
    await runtime.setTodos(scope, todos("pending", "pending"));
    await runtime.turnEnded(scope, { stopReason: "stop" });
    let seenAutoTurns = -1;
    await runtime.runIdle(scope, {
      deliver: async () => {
        seenAutoTurns = (await store.read(scope)).state.episode?.autoTurns ?? -1;
      },
    });
    expect(seenAutoTurns).toBe(1);
  });

  it("a scopeless caller gets a notice and nothing is written", async () => {
    const { runtime, store } = setup();
    const tool = {
      name: "todo_write",
      description: "",
      inputSchema: {},
      readOnly: false,
      handler: () => {
        throw new Error("must not run");
      },
    };
    const result = await runtime.callTool(null, tool, {});
    expect(result.details).toEqual({ noScope: true });
    expect(await store.listScopes()).toEqual([]);
  });

  it("a failed tool write queues a reminder the host can drain once", async () => {
    const { runtime } = setup();
    const tool = {
      name: "todo_write",
      description: "",
      inputSchema: {},
      readOnly: false,
      handler: (list: never) => ({
        list,
        result: { text: "todo_write: todos must be an array", isError: true, details: {} },
      }),
    };
    await runtime.callTool(scope, tool, { todos: 3 });
    const reminders = await runtime.drainReminders(scope);
    expect(reminders).toHaveLength(1);
    expect(reminders[0]?.kind).toBe("write-failed");
    expect(reminders[0]?.text).toContain("todos must be an array");
    expect(await runtime.drainReminders(scope)).toEqual([]);
  });

  it("a failed pi write's reminder gives the model the actual first error", async () => {
    const { runtime } = setup();
    const [tool] = piTools();
    await runtime.callTool(scope, tool!, { ops: [{ op: "done", task: "Nothing like this" }] });
    const [reminder] = await runtime.drainReminders(scope);
    expect(reminder?.text).toMatch(
      /Fix the call and retry: ops\[0\]: task "Nothing like this" not found/,
    );
    expect(reminder?.text).not.toContain("Errors:");
  });

  it("explain is a dry run that writes nothing", async () => {
    const { runtime, store } = setup();
    await runtime.turnStarted(scope, { real: true });
    await runtime.setTodos(scope, todos("pending"));
    await runtime.turnEnded(scope, { stopReason: "stop" });
    await runtime.armRestartKick(scope);
    const before = await store.read(scope);
    const { decision } = await runtime.explain(scope);
    expect(decision).toMatchObject({ action: "skip", reason: "restart-kick-suppressed" });
    const after = await store.read(scope);
    expect(after.stateRevision).toBe(before.stateRevision);
    expect(await store.readLog(scope)).toEqual([]);
  });

  it("parks a list with only blocked items instead of nagging", async () => {
    const { runtime, idle } = setup();
    await runtime.turnStarted(scope, { real: true });
    await runtime.setTodos(scope, todos("completed", "blocked"));
    await runtime.turnEnded(scope, { stopReason: "stop" });
    expect(await idle()).toEqual({ action: "skip", reason: "only-blocked-todos" });
  });
});
