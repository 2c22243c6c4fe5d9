import { describe, expect, it } from "vitest";
import { resolveScope } from "../../core/scope/index.js";
import type { PresetName, Scope, Store } from "../../core/types.js";
import { MemoryStore } from "../../store/memory/memory-store.js";
import { NUDGE_MESSAGE_TYPE, REMINDER_MESSAGE_TYPE } from "./continuation.js";
import { createPiExtension, type PiExtensionOptions } from "./extension.js";
import type { PiMessage } from "./pi-api.js";
import { PARENT_ENV } from "./subagent.js";
import { asQueued, assistant, FakePi } from "./test-support/fake-pi.js";

const SESSION = "pi-session-1";
const scope = resolveScope({ kind: "session", host: "pi", sessionId: SESSION }) as Scope;
const init = (...items: string[]) => ({ ops: [{ op: "init", list: [{ phase: "Work", items }] }] });
const done = (task: string) => ({ ops: [{ op: "done", task }] });

async function start(options: PiExtensionOptions & { preset?: PresetName } = {}) {
  const store = new MemoryStore();
  const pi = new FakePi(SESSION);
  const env: Record<string, string | undefined> = {};
  createPiExtension({ store, env, ...options })(pi);
  await pi.emit("session_start", { reason: "startup" });
  return { pi, store, env };
}

/** One model call as pi runs it: context (awaited), then the reply's message_end and turn_end (not awaited). */
async function modelCall(pi: FakePi, history: PiMessage[], reply: ReturnType<typeof assistant>) {
  const result = (await pi.emit("context", { messages: history })) as
    | { messages?: PiMessage[] }
    | undefined;
  const seen = result?.messages ?? history;
  pi.emitSync("message_end", { message: reply });
  pi.emitSync("turn_end", { message: reply, toolResults: [] });
  return seen;
}

describe("the pi extension", () => {
  it("registers the pi dialect's todo_write by default and another dialect on request", async () => {
    expect([...(await start()).pi.tools.keys()]).toEqual(["todo_write"]);
    expect([...(await start({ dialect: "parley" })).pi.tools.keys()]).toEqual([
      "todo_write",
      "todo_list",
      "todo_update",
    ]);
    const env = { TODO_CONTINUATION_DIALECT: "typeclaw" };
    const pi = new FakePi();
    createPiExtension({ store: new MemoryStore(), env })(pi);
    expect([...pi.tools.keys()]).toContain("todo_clear");
  });

  it("rejects a bad dialect or preset from the environment, naming the variable", () => {
    const pi = new FakePi();
    expect(() =>
      createPiExtension({ store: new MemoryStore(), env: { TODO_CONTINUATION_DIALECT: "yaml" } })(
        pi,
      ),
    ).toThrow(/TODO_CONTINUATION_DIALECT must be one of typeclaw, parley, pi/);
    expect(() =>
      createPiExtension({ store: new MemoryStore(), env: { TODO_CONTINUATION_PRESET: "x" } })(pi),
    ).toThrow(/TODO_CONTINUATION_PRESET/);
  });

  it("queues the nudge synchronously at turn_end, and delivers it only once persisted", async () => {
    const { pi, store } = await start();
    await pi.emit("input", { text: "Do the work", source: "interactive" });
    expect((await pi.callTool("todo_write", init("Parse", "Render"))).isError).toBe(false);
    const history: PiMessage[] = [{ role: "user", content: "Do the work" }];
    await modelCall(pi, history, assistant("stop"));

    // Queued before any await: pi checks its follow-up queue within microtasks.
    expect(pi.sent).toHaveLength(1);
    const queued = pi.sent[0]!;
    expect(queued.options).toEqual({ deliverAs: "followUp" });
    expect(queued.message.customType).toBe(NUDGE_MESSAGE_TYPE);
    expect(queued.message.content).toContain("Render");

    // pi drains it and asks for context: the extension waits for the persisted decision.
    const nudge = asQueued(queued);
    const seen = await modelCall(pi, [...history, nudge], assistant("stop"));
    expect(seen.at(-1)).toMatchObject({
      customType: NUDGE_MESSAGE_TYPE,
      content: queued.message.content,
    });
    expect(pi.aborted).toBe(0);
    const log = await store.readLog(scope);
    expect(log.find((e) => e.action === "inject")).toMatchObject({
      autoTurns: 1,
      trigger: "turn_end",
    });
    // The turn the nudge started is recorded as injected, with pi's usage (input excludes cache).
    const snapshot = await store.read(scope);
    expect(snapshot.state.lastOutcome).toMatchObject({
      injected: true,
      usage: { input: 60, cacheRead: 40, output: 10, total: 110 },
    });
  });

  it("advise mode queues no nudge at turn_end; the decision is logged as advise", async () => {
    const { pi, store } = await start({ mode: "advise" });
    await pi.emit("input", { text: "Do the work", source: "interactive" });
    await pi.callTool("todo_write", init("Parse", "Render"));
    await modelCall(pi, [{ role: "user", content: "Do the work" }], assistant("stop"));
    await pi.emit("context", { messages: [] }); // settles the queued decision
    expect(pi.sent).toEqual([]);
    expect((await store.readLog(scope)).at(-1)).toMatchObject({ action: "inject", advise: true });
  });

  it("queues nothing when the list is done, and logs why", async () => {
    const { pi, store } = await start();
    await pi.emit("input", { text: "go", source: "interactive" });
    await pi.callTool("todo_write", init("Only"));
    await pi.callTool("todo_write", done("Only"));
    await modelCall(pi, [{ role: "user", content: "go" }], assistant("stop"));
    await pi.emit("context", { messages: [] }); // settles the queued decision
    expect(pi.sent).toEqual([]);
    expect((await store.readLog(scope)).at(-1)).toMatchObject({
      action: "skip",
      reason: "no-incomplete-todos",
    });
  });

  it("does not decide after a turn that called tools: pi continues that run itself", async () => {
    const { pi, store } = await start();
    await pi.emit("input", { text: "go", source: "interactive" });
    await pi.callTool("todo_write", init("A"));
    await modelCall(pi, [], assistant("toolUse", { toolCall: true }));
    await pi.emit("context", { messages: [] });
    expect(pi.sent).toEqual([]);
    expect(await store.readLog(scope)).toEqual([]);
  });

  it("respects the user's abort: nothing queued, blocked until the next real prompt", async () => {
    const { pi, store } = await start();
    await pi.emit("input", { text: "go", source: "interactive" });
    await pi.callTool("todo_write", init("A", "B"));
    await modelCall(pi, [], assistant("aborted"));
    await pi.emit("context", { messages: [] });
    expect(pi.sent).toEqual([]);
    expect((await store.read(scope)).state.userAbortBlocked).toBe(true);

    await pi.emit("input", { text: "continue please", source: "interactive" });
    expect((await store.read(scope)).state.userAbortBlocked).toBe(false);
    await pi.callTool("todo_write", done("A"));
    await modelCall(pi, [], assistant("stop"));
    expect(pi.sent).toHaveLength(1);
  });

  it("withdraws a queued nudge the store refuses, aborting before the model is called", async () => {
    const store = new MemoryStore();
    const pi = new FakePi(SESSION);
    // The user's `stop` lands just before the next write: the preview saw the old state.
    let stopNext = false;
    const racing: Store = {
      read: (s) => store.read(s),
      transact: async (s, fn) => {
        if (stopNext) {
          stopNext = false;
          await store.transact(s, (snap) => ({
            state: { ...snap.state, stopped: true },
            result: null,
          }));
        }
        return store.transact(s, fn);
      },
      listScopes: () => store.listScopes(),
      readLog: (s, limit) => store.readLog(s, limit),
      deleteScope: (s) => store.deleteScope(s),
      close: () => store.close(),
    };
    createPiExtension({ store: racing, env: {} })(pi);
    await pi.emit("session_start", {});
    await pi.emit("input", { text: "go", source: "interactive" });
    await pi.callTool("todo_write", init("A", "B"));
    stopNext = true; // the next write (turnEnded) is preceded by the user's stop
    await modelCall(pi, [], assistant("stop"));
    expect(pi.sent).toHaveLength(1);
    const seen = (await pi.emit("context", { messages: [asQueued(pi.sent[0]!)] })) as {
      messages: PiMessage[];
    };
    expect(seen.messages).toEqual([]);
    expect(pi.aborted).toBe(1);
    expect((await store.readLog(scope)).at(-1)).toMatchObject({ reason: "continuation-stopped" });
    // The aborted call becomes the run's answer again: `pi -p` prints it and exits 0.
    const ended = pi.endMessage({ ...assistant("aborted"), errorMessage: "Request was aborted" });
    expect(ended).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "ok" }] });
    expect(ended).not.toHaveProperty("errorMessage");
    pi.emitSync("turn_end", { message: ended, toolResults: [] });
    await pi.emit("context", { messages: [] });
    expect((await store.read(scope)).state.userAbortBlocked).toBe(false);
  });

  it("does not continue after an answer that asks the user", async () => {
    const { pi, store } = await start();
    await pi.emit("input", { text: "go", source: "interactive" });
    await pi.callTool("todo_write", init("A", "B"));
    const asking = assistant("stop");
    asking.content = [{ type: "text", text: "A is done. Should I start B now?" }];
    await modelCall(pi, [], asking);
    await pi.emit("context", { messages: [] });
    expect(pi.sent).toHaveLength(0);
    expect((await store.readLog(scope)).at(-1)).toMatchObject({ reason: "awaiting-user" });
  });

  it("sends the persisted nudge when the list changed after the preview", async () => {
    const store = new MemoryStore();
    const pi = new FakePi(SESSION);
    let editNext = false;
    const editing: Store = {
      read: (s) => store.read(s),
      transact: async (s, fn) => {
        if (editNext) {
          editNext = false;
          // Another process (the CLI, a second window) adds an item meanwhile.
          await store.transact(s, (snap) => ({
            todos: {
              ...snap.todos,
              todos: [
                ...snap.todos.todos,
                { content: "Added elsewhere", status: "pending" as const },
              ],
            },
            result: null,
          }));
        }
        return store.transact(s, fn);
      },
      listScopes: () => store.listScopes(),
      readLog: (s, limit) => store.readLog(s, limit),
      deleteScope: (s) => store.deleteScope(s),
      close: () => store.close(),
    };
    createPiExtension({ store: editing, env: {} })(pi);
    await pi.emit("session_start", {});
    await pi.emit("input", { text: "go", source: "interactive" });
    await pi.callTool("todo_write", init("A", "B"));
    editNext = true;
    await modelCall(pi, [], assistant("stop"));
    expect(pi.sent[0]?.message.content).not.toContain("Added elsewhere");
    const seen = (await pi.emit("context", { messages: [asQueued(pi.sent[0]!)] })) as {
      messages: { content: string }[];
    };
    expect(seen.messages).toHaveLength(1);
    expect(seen.messages[0]?.content).toContain("Added elsewhere");
    expect(pi.aborted).toBe(0);
  });

  it("drops a queued nudge that a real user prompt overtook", async () => {
    const { pi } = await start();
    await pi.emit("input", { text: "go", source: "interactive" });
    await pi.callTool("todo_write", init("A", "B"));
    await modelCall(pi, [], assistant("stop"));
    expect(pi.sent).toHaveLength(1);
    await pi.emit("input", { text: "actually, wait", source: "interactive" });
    const user: PiMessage = { role: "user", content: "actually, wait" };
    const seen = (await pi.emit("context", { messages: [asQueued(pi.sent[0]!), user] })) as {
      messages: PiMessage[];
    };
    expect(seen.messages).toEqual([user]);
    expect(pi.aborted).toBe(0);
  });

  it("ignores prompts sent by extensions: they are not the user's", async () => {
    const { pi, store } = await start();
    await pi.emit("input", { text: "go", source: "interactive" });
    await pi.callTool("todo_write", init("A"));
    await modelCall(pi, [], assistant("aborted"));
    await pi.emit("input", { text: "auto", source: "extension" });
    expect((await store.read(scope)).state.userAbortBlocked).toBe(true);
  });

  it("brings a failed write and a user edit to the model as reminders in the next call", async () => {
    const { pi, store } = await start();
    await pi.emit("input", { text: "go", source: "interactive" });
    const refused = await pi.callTool("todo_write", { ops: [{ op: "done", task: "Missing" }] });
    expect(refused.isError).toBe(true);
    // pi itself rejected another call against the schema, before our handler ran.
    pi.emitSync("tool_execution_end", {
      toolCallId: "never-ran",
      toolName: "todo_write",
      isError: true,
    });
    await store.transact(scope, (snap) => ({
      state: {
        ...snap.state,
        reminders: [
          ...snap.state.reminders,
          { kind: "user-edit" as const, text: "The user renamed A.", at: 1 },
        ],
      },
      result: null,
    }));
    const seen = (await pi.emit("context", { messages: [] })) as { messages: PiMessage[] };
    const reminder = seen.messages.at(-1) as {
      customType: string;
      content: string;
      display: boolean;
    };
    expect(reminder.customType).toBe(REMINDER_MESSAGE_TYPE);
    expect(reminder.display).toBe(false);
    expect(reminder.content.match(/<system-reminder>/g)).toHaveLength(3);
    expect(reminder.content).toContain("rejected before it ran");
    expect(reminder.content).toContain("The user renamed A.");
    // Delivered once.
    expect(await pi.emit("context", { messages: [] })).toBeUndefined();
  });

  it("ends at the budget when the model makes no progress", async () => {
    const { pi, store } = await start({ limits: { maxAutoTurns: 2, stagnationLimit: 0 } });
    await pi.emit("input", { text: "go", source: "interactive" });
    await pi.callTool("todo_write", init("A", "B"));
    let history: PiMessage[] = [];
    for (let i = 0; i < 5; i++) {
      const before = pi.sent.length;
      history = await modelCall(pi, history, assistant("stop"));
      await pi.emit("context", { messages: [] }); // let the queued decision settle
      if (pi.sent.length === before) break;
      history = [...history, asQueued(pi.sent.at(-1)!)];
    }
    expect(pi.sent).toHaveLength(2);
    expect((await store.readLog(scope)).at(-1)).toMatchObject({
      action: "skip",
      reason: "max-auto-turns",
    });
  });

  it("gives subagents no tools and never continues them", async () => {
    const env = { [PARENT_ENV]: "1:session/spi.sparent" };
    const store = new MemoryStore();
    const pi = new FakePi("child");
    createPiExtension({ store, env })(pi);
    await pi.emit("session_start", {});
    expect(pi.tools.size).toBe(0);
    await pi.emit("input", { text: "go", source: "interactive" });
    await modelCall(pi, [], assistant("stop"));
    expect(pi.sent).toEqual([]);
    expect(await store.listScopes()).toEqual([]);
  });

  it("marks its environment so pi processes it spawns know they are subagents", async () => {
    const { env } = await start();
    expect(env[PARENT_ENV]).toBe(`${process.pid}:${scope.key}`);
    // Reloading in the same process (/new, /reload) is not a subagent.
    const again = new FakePi("other");
    createPiExtension({ store: new MemoryStore(), env })(again);
    expect(again.tools.size).toBe(1);
  });
});
