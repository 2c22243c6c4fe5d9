import { describe, expect, it } from "vitest";
import { resolveScope } from "../../core/scope/index.js";
import type { Scope } from "../../core/types.js";
import { MemoryStore } from "../../store/memory/memory-store.js";
import { createPiExtension } from "./extension.js";
import type { PiAssistantMessage } from "./pi-api.js";
import { assistant, FakePi } from "./test-support/fake-pi.js";

/*
 * The event order is pi's own (read from 0.73.1 `AgentSession._processAgentEvent`
 * / `_handleRetryableError` and 1.3.0 `_handlePostAgentRun` / `_prepareRetry`,
 * and seen in the end-to-end runs): a failed call ends with message_end,
 * turn_end and agent_end; only then does pi decide to retry. A retry calls the
 * model again (context first); giving up ends the run, which on 1.x emits
 * agent_before_settle and on 0.73 emits nothing more until the next prompt or
 * the end of the session.
 */

const SESSION = "pi-errors-1";
const scope = resolveScope({ kind: "session", host: "pi", sessionId: SESSION }) as Scope;
const init = (...items: string[]) => ({ ops: [{ op: "init", list: [{ phase: "Work", items }] }] });

async function start() {
  const store = new MemoryStore();
  const pi = new FakePi(SESSION);
  createPiExtension({ store, env: {} })(pi);
  await pi.emit("session_start", { reason: "startup" });
  await pi.emit("input", { text: "go", source: "interactive" });
  await pi.callTool("todo_write", init("A", "B"));
  return { pi, store };
}

function failed(errorMessage: string): PiAssistantMessage {
  return { ...assistant("error"), content: [], errorMessage };
}

/** One failed model call and the end of its run, as pi emits them (handlers not awaited). */
async function failedCall(pi: FakePi, errorMessage: string) {
  await pi.emit("context", { messages: [] });
  const reply = failed(errorMessage);
  pi.emitSync("message_end", { message: reply });
  pi.emitSync("turn_end", { message: reply, toolResults: [] });
  pi.emitSync("agent_end", { messages: [reply] });
}

async function answer(pi: FakePi) {
  await pi.emit("context", { messages: [] });
  const reply = assistant("stop");
  pi.emitSync("message_end", { message: reply });
  pi.emitSync("turn_end", { message: reply, toolResults: [] });
}

/** Lets the extension's queued store work finish (the memory store never waits on a timer). */
const drain = () => new Promise((resolve) => setTimeout(resolve, 5));

async function decisions(store: MemoryStore) {
  return (await store.readLog(scope)).map((e) => `${e.action}:${e.reason ?? ""}`);
}

describe("pi provider errors", () => {
  for (const error of [
    "500 Internal server error",
    "429 status code (no body)",
    '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
    "Connection error.",
  ]) {
    it(`a ${JSON.stringify(error)} that pi's retry recovers from is still nudged`, async () => {
      const { pi, store } = await start();
      await failedCall(pi, error);
      await drain();
      // Nothing decided yet: pi has not said whether it retries.
      expect(await decisions(store)).toEqual([]);
      await answer(pi); // pi's retry, after its backoff
      expect(pi.sent).toHaveLength(1);
      await pi.emit("context", { messages: [] });
      expect(await decisions(store)).toEqual(["inject:"]);
      expect((await store.read(scope)).state.parked).toBeNull();
    });
  }

  it("a permanent error parks once, at agent_end, even without a settle event (0.73)", async () => {
    const { pi, store } = await start();
    await failedCall(pi, '401 {"type":"error","error":{"type":"authentication_error"}}');
    await drain();
    expect(await decisions(store)).toEqual(["skip:provider-error"]);
    expect((await store.read(scope)).state.parked).toBe("provider-error");
    pi.emitSync("agent_before_settle", { outcome: "error" });
    await pi.emit("session_shutdown", {});
    expect(await decisions(store)).toEqual(["skip:provider-error"]);
    expect(pi.sent).toEqual([]);
  });

  it("a transient error pi gave up on parks once at agent_before_settle (1.x), as retries spent", async () => {
    const { pi, store } = await start();
    for (let attempt = 0; attempt <= 3; attempt++) await failedCall(pi, "503 Service Unavailable");
    await drain();
    expect(await decisions(store)).toEqual([]);
    pi.emitSync("agent_before_settle", { outcome: "error" });
    await drain();
    expect(await decisions(store)).toEqual(["skip:retries-exhausted"]);
    await pi.emit("session_shutdown", {});
    expect(await decisions(store)).toEqual(["skip:retries-exhausted"]);
    const state = (await store.read(scope)).state;
    expect(state.parked).toBe("retries-exhausted");
    expect(state.lastOutcome).toMatchObject({ stopReason: "transient_error", hostRetried: true });
    expect(pi.sent).toEqual([]);
  });

  it("pi 0.73 in print mode: the final transient error parks at session_shutdown", async () => {
    const { pi, store } = await start();
    await failedCall(pi, "fetch failed");
    await drain();
    expect(await decisions(store)).toEqual([]);
    await pi.emit("session_shutdown", {});
    expect(await decisions(store)).toEqual(["skip:retries-exhausted"]);
  });

  it("a context overflow pi compacts away is nudged after the recovered answer", async () => {
    const { pi, store } = await start();
    await failedCall(pi, "400 This model's maximum context length is 8192 tokens");
    await answer(pi);
    expect(pi.sent).toHaveLength(1);
    await pi.emit("context", { messages: [] });
    expect(await decisions(store)).toEqual(["inject:"]);
  });

  it("an error that broke off inside a tool call parks when pi gives up too", async () => {
    const { pi, store } = await start();
    await pi.emit("context", { messages: [] });
    const reply = {
      ...assistant("error", { toolCall: true }),
      errorMessage: "401 Incorrect API key provided",
    };
    pi.emitSync("message_end", { message: reply });
    pi.emitSync("turn_end", { message: reply, toolResults: [] });
    pi.emitSync("agent_end", { messages: [reply] });
    await drain();
    expect(await decisions(store)).toEqual(["skip:provider-error"]);
  });

  it("a final overflow parks as a provider error", async () => {
    const { pi, store } = await start();
    await failedCall(pi, "prompt is too long: 210000 tokens > 200000 maximum");
    pi.emitSync("agent_before_settle", { outcome: "error" });
    await drain();
    expect(await decisions(store)).toEqual(["skip:provider-error"]);
  });

  it("an error the user answers with a prompt is recorded before the prompt lifts the park", async () => {
    const { pi, store } = await start();
    await failedCall(pi, "503 Service Unavailable");
    await pi.emit("input", { text: "try again", source: "interactive" });
    expect(await decisions(store)).toEqual(["skip:retries-exhausted"]);
    expect((await store.read(scope)).state.parked).toBeNull();
    await answer(pi);
    expect(pi.sent).toHaveLength(0); // the list has not moved since the user spoke
  });
});
