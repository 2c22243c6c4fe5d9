import { afterEach, describe, expect, it } from "vitest";
import { resolveScope } from "../core/scope/scope.js";
import type { HostSignals, Scope, Todo } from "../core/types.js";
import { MemoryStore } from "../store/memory/memory-store.js";
import { IdleEnforcer } from "./enforcer.js";
import { ContinuationRuntime, type Nudge } from "./runtime.js";

const scopeFor = (sessionId: string): Scope | null =>
  sessionId.startsWith("sub-") ? null : resolveScope({ kind: "session", host: "test", sessionId });

const open: Todo[] = [
  { content: "write the parser", status: "completed" },
  { content: "write the tests", status: "pending" },
];

function setup(options: { countdownMs?: number; signals?: HostSignals } = {}) {
  const store = new MemoryStore();
  const runtime = new ContinuationRuntime({ store });
  const delivered: { sessionId: string; nudge: Nudge; agent: string | undefined }[] = [];
  const countdowns: string[] = [];
  const countdownLeft: number[] = [];
  let todos: Todo[] = open;
  const enforcer = new IdleEnforcer({
    runtime,
    scopeFor,
    debounceMs: 5,
    countdownMs: options.countdownMs ?? 0,
    fetchTodos: async () => todos,
    signals: () => options.signals ?? {},
    onCountdown: (sessionId, ms) => {
      countdowns.push(sessionId);
      countdownLeft.push(ms);
    },
    deliver: async (sessionId, nudge, context) => {
      delivered.push({ sessionId, nudge, agent: context.agent });
    },
  });
  enforcers.push(enforcer);
  let followUps = 0;
  // The agent works its list during a turn: it adds a follow-up item.
  workers.set(enforcer, () => {
    followUps++;
    todos = [...todos, { content: `follow-up ${followUps}`, status: "pending" }];
  });
  return {
    store,
    runtime,
    enforcer,
    delivered,
    countdowns,
    countdownLeft,
    setTodos: (next: Todo[]) => {
      todos = next;
    },
  };
}

const enforcers: IdleEnforcer[] = [];
const workers = new WeakMap<IdleEnforcer, () => void>();
afterEach(() => {
  for (const e of enforcers.splice(0)) e.dispose();
});

/**
 * A user prompt followed by an assistant answer that worked the list and
 * stopped: the usual shape of an early stop.
 */
async function earlyStop(enforcer: IdleEnforcer, sessionId: string) {
  await enforcer.userMessage(sessionId);
  workers.get(enforcer)?.();
  await enforcer.assistantMessage(sessionId, { agent: "build", stopReason: "stop" });
}

describe("IdleEnforcer", () => {
  it("merges duplicate idles into one decision and preserves the agent", async () => {
    const { enforcer, delivered } = setup();
    await earlyStop(enforcer, "s1");
    enforcer.idle("s1");
    enforcer.idle("s1");
    enforcer.idle("s1");
    await enforcer.settle();
    expect(delivered).toHaveLength(1);
    expect(delivered[0]?.agent).toBe("build");
    expect(delivered[0]?.nudge.text).toContain("write the tests");
  });

  it("advise mode (OpenCode's path): no countdown, no prompt, the decision logged as advise", async () => {
    const { enforcer, delivered, countdowns, store, runtime } = setup({ countdownMs: 50 });
    runtime.reconfigure({ mode: "advise" });
    await earlyStop(enforcer, "s1");
    await enforcer.assistantMessage("s1", {
      stopReason: "stop",
      turnId: "m1",
      model: { providerID: "anthropic", modelID: "claude-sonnet-4-5" },
    });
    enforcer.idle("s1");
    await enforcer.settle();
    expect(delivered).toHaveLength(0);
    expect(countdowns).toHaveLength(0);
    const scope = scopeFor("s1") as Scope;
    expect((await store.readLog(scope)).at(-1)).toMatchObject({ action: "inject", advise: true });
    // The message's modelID is the turn's model.
    expect((await store.read(scope)).state.lastOutcome?.model).toBe("claude-sonnet-4-5");
  });

  it("an error's two idles do not loop: a token-limit error is not safe", async () => {
    const { enforcer, delivered, store } = setup();
    await earlyStop(enforcer, "s1");
    await enforcer.error("s1", { name: "APIError", data: { message: "prompt is too long" } });
    enforcer.idle("s1");
    await enforcer.settle();
    enforcer.idle("s1");
    await enforcer.settle();
    expect(delivered).toHaveLength(0);
    const log = await store.readLog(scopeFor("s1") as Scope);
    expect(log.map((e) => e.reason)).toEqual(["provider-error", "provider-error"]);
  });

  it("a nudge's turn that ends in an error is judged at the next idle, not silently dropped", async () => {
    const { enforcer, delivered, store } = setup();
    await earlyStop(enforcer, "s1");
    enforcer.idle("s1");
    await enforcer.settle();
    expect(delivered).toHaveLength(1);
    // The host reports the error and the idle before the failed assistant message (OpenCode does).
    await enforcer.userMessage("s1", { injected: true });
    await enforcer.error("s1", {
      name: "APIError",
      data: { message: "bad request", statusCode: 400 },
    });
    enforcer.idle("s1");
    await enforcer.settle();
    expect(delivered).toHaveLength(1);
    const log = await store.readLog(scopeFor("s1") as Scope);
    expect(log.map((e) => e.reason ?? e.action)).toEqual(["inject", "provider-error"]);
  });

  it("an abort blocks nudges until the user speaks again", async () => {
    const { enforcer, delivered } = setup();
    await earlyStop(enforcer, "s1");
    await enforcer.error("s1", { name: "MessageAbortedError" });
    enforcer.idle("s1");
    await enforcer.settle();
    expect(delivered).toHaveLength(0);
    await earlyStop(enforcer, "s1");
    enforcer.idle("s1");
    await enforcer.settle();
    expect(delivered).toHaveLength(1);
  });

  it("a user message during the countdown cancels the nudge", async () => {
    const { enforcer, delivered, countdowns } = setup({ countdownMs: 200 });
    await earlyStop(enforcer, "s1");
    enforcer.idle("s1");
    while (countdowns.length === 0) await new Promise((r) => setTimeout(r, 5));
    await enforcer.userMessage("s1");
    await enforcer.settle();
    expect(countdowns).toEqual(["s1"]);
    expect(delivered).toHaveLength(0);
  });

  it("counts the countdown from the idle: the checks before it are part of it", async () => {
    const { enforcer, delivered, countdowns, countdownLeft, runtime } = setup({ countdownMs: 300 });
    // A slow look at the stored list (a busy disk): 200 ms of the 300 pass before the countdown.
    const explain = runtime.explain.bind(runtime);
    runtime.explain = async (...args) => {
      await new Promise((r) => setTimeout(r, 200));
      return explain(...args);
    };
    await earlyStop(enforcer, "s1");
    enforcer.idle("s1");
    await enforcer.settle();
    expect(delivered).toHaveLength(1);
    expect(countdowns).toEqual(["s1"]);
    // What is left of it is shown and waited for, not the whole countdown again.
    expect(countdownLeft[0]).toBeLessThanOrEqual(100);
  });

  it("a host call that never answers drops that idle, and the next idle decides", async () => {
    const store = new MemoryStore();
    const runtime = new ContinuationRuntime({ store });
    const delivered: Nudge[] = [];
    const errors: string[] = [];
    let hang = true;
    const enforcer = new IdleEnforcer({
      runtime,
      scopeFor,
      debounceMs: 1,
      hostCallTimeoutMs: 50,
      fetchTodos: () => (hang ? new Promise<Todo[]>(() => {}) : Promise.resolve(open)),
      deliver: async (_id, nudge) => void delivered.push(nudge),
      onError: (_id, error) => void errors.push((error as Error).message),
    });
    enforcers.push(enforcer);
    await enforcer.userMessage("s1");
    await runtime.setTodos(scopeFor("s1") as Scope, [{ content: "first", status: "pending" }]);
    await enforcer.assistantMessage("s1", { stopReason: "stop" });
    enforcer.idle("s1");
    await enforcer.settle();
    expect(errors).toEqual(["reading the todo list did not answer within 50 ms; nothing was sent"]);
    expect(delivered).toHaveLength(0);
    hang = false;
    enforcer.idle("s1");
    await enforcer.settle();
    expect(delivered).toHaveLength(1);
  });

  it("a countdown that runs out delivers", async () => {
    const { enforcer, delivered, countdowns } = setup({ countdownMs: 20 });
    await earlyStop(enforcer, "s1");
    enforcer.idle("s1");
    await enforcer.settle();
    expect(countdowns).toEqual(["s1"]);
    expect(delivered).toHaveLength(1);
  });

  it("a deleted session leaves no timer and no state", async () => {
    const { enforcer, delivered, store } = setup();
    await earlyStop(enforcer, "s1");
    enforcer.idle("s1");
    enforcer.deleted("s1");
    await enforcer.settle();
    expect(delivered).toHaveLength(0);
    expect(enforcer.trackedSessions).toBe(0);
    expect(await store.listScopes()).toEqual([]);
  });

  it("skips while background work runs, and logs why", async () => {
    const { enforcer, delivered, store } = setup({ signals: { backgroundWork: true } });
    await earlyStop(enforcer, "s1");
    enforcer.idle("s1");
    await enforcer.settle();
    expect(delivered).toHaveLength(0);
    const log = await store.readLog(scopeFor("s1") as Scope);
    expect(log.map((e) => e.reason)).toEqual(["background-work"]);
  });

  it("the idle after a compaction is not nudged", async () => {
    const { enforcer, delivered } = setup();
    await earlyStop(enforcer, "s1");
    enforcer.compacted("s1");
    enforcer.idle("s1");
    await enforcer.settle();
    expect(delivered).toHaveLength(0);
  });

  it("nothing happens for sessions without a scope (subagents)", async () => {
    const { enforcer, delivered, store } = setup();
    await earlyStop(enforcer, "sub-1");
    enforcer.idle("sub-1");
    await enforcer.settle();
    expect(delivered).toHaveLength(0);
    expect(await store.listScopes()).toEqual([]);
  });

  it("an injected prompt is not a real user turn", async () => {
    const { enforcer, delivered, store } = setup();
    await earlyStop(enforcer, "s1");
    enforcer.idle("s1");
    await enforcer.settle();
    expect(delivered).toHaveLength(1);
    // The model answers the nudge without progress; our own prompt must not reset the episode.
    await enforcer.userMessage("s1", { injected: true });
    await enforcer.assistantMessage("s1", { stopReason: "stop", injected: true });
    enforcer.idle("s1");
    await enforcer.settle();
    expect(delivered).toHaveLength(1);
    // Judged within the same episode (a reset would have skipped for the untouched list instead).
    const log = await store.readLog(scopeFor("s1") as Scope);
    expect(log.at(-1)?.reason).toBe("stagnation");
  });
});
