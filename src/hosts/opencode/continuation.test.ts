import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resolveScope } from "../../core/scope/scope.js";
import { RETRY_TEXT } from "../../runtime/runtime.js";
import { createFileStore } from "../../store/file/file-store.js";
import { MemoryStore } from "../../store/memory/memory-store.js";
import { NUDGE_MARKER, OpenCodeContinuation } from "./continuation.js";
import { type OpenCodePluginOptions, parseOpenCodeOptions } from "./options.js";
import { type BusEvent, events, FakeOpenCode, turnEvents } from "./test-support/fake-client.js";

const OPEN = [
  { content: "write the parser", status: "in_progress", priority: "high" },
  { content: "add tests", status: "pending", priority: "medium" },
];

/** OPEN after the agent closed its first item. */
const WORKED = [
  { content: "write the parser", status: "completed", priority: "high" },
  { content: "add tests", status: "in_progress", priority: "medium" },
];

const live: OpenCodeContinuation[] = [];

afterEach(async () => {
  for (const c of live.splice(0)) await c.dispose();
});

function setup(options: OpenCodePluginOptions = {}, store: MemoryStore = new MemoryStore()) {
  const fake = new FakeOpenCode();
  const settings = parseOpenCodeOptions({ debounceMs: 0, ...options });
  const continuation = new OpenCodeContinuation({ client: fake.client(), settings, store });
  live.push(continuation);
  const send = async (...list: BusEvent[]) => {
    // OpenCode does not await plugin hooks: events arrive back to back.
    for (const event of list) void continuation.handle(event);
    await continuation.settle();
  };
  const scope = (id: string) => resolveScope({ kind: "session", host: "opencode", sessionId: id })!;
  const state = async (id: string) => (await store.read(scope(id))).state;
  const log = async (id: string) => store.readLog(scope(id));
  const decisions = async (id: string) =>
    (await log(id)).map((e) => (e.action === "skip" ? `skip:${e.reason}` : e.action));
  return { fake, store, continuation, send, scope, state, log, decisions };
}

/** The events of our own nudge coming back as a user message, then the model's reply. */
function nudgeReply(sessionID: string, fake: FakeOpenCode, finish = "stop") {
  const prompt = fake.prompts.at(-1)!;
  const part = prompt.parts[0]!;
  return turnEvents(sessionID, {
    userPart: {
      text: part.text,
      synthetic: true,
      ...(part.metadata ? { metadata: part.metadata } : {}),
    },
    finish,
  });
}

describe("OpenCodeContinuation", () => {
  it("nudges a session that stopped with open todos, as a synthetic prompt under the same agent and model", async () => {
    const { fake, send, decisions } = setup();
    fake.todos.set("s1", OPEN);
    await send(...turnEvents("s1").events);
    expect(fake.prompts).toHaveLength(1);
    const prompt = fake.prompts[0]!;
    expect(prompt.sessionId).toBe("s1");
    expect(prompt.agent).toBe("build");
    expect(prompt.model).toEqual({ providerID: "scripted", modelID: "m1" });
    expect(prompt.parts).toHaveLength(1);
    const part = prompt.parts[0]!;
    expect(part.synthetic).toBe(true);
    expect(part.text).toContain("write the parser");
    expect(part.text).toContain("add tests");
    expect(part.text).toContain("todowrite");
    expect(part.metadata?.[NUDGE_MARKER]).toMatchObject({ autoTurn: 1 });
    // Both idle events of the turn made one decision.
    expect(await decisions("s1")).toEqual(["inject"]);
  });

  it("keeps nudging while the list shrinks and stops once everything is done", async () => {
    const { fake, send, decisions } = setup();
    fake.todos.set("s1", OPEN);
    await send(...turnEvents("s1").events);
    fake.todos.set("s1", [{ ...OPEN[0], status: "completed" }, OPEN[1]]);
    await send(...nudgeReply("s1", fake).events);
    fake.todos.set("s1", [
      { ...OPEN[0], status: "completed" },
      { ...OPEN[1], status: "completed" },
    ]);
    await send(...nudgeReply("s1", fake).events);
    expect(fake.prompts).toHaveLength(2);
    expect(await decisions("s1")).toEqual(["inject", "inject", "skip:no-incomplete-todos"]);
  });

  it("tells its own injected prompt from a real user message", async () => {
    const { fake, send, state, decisions } = setup();
    fake.todos.set("s1", OPEN);
    await send(...turnEvents("s1").events);
    const episode = (await state("s1")).episode!;
    // The nudge comes back as a user message; the model answers without progress.
    await send(...nudgeReply("s1", fake).events);
    expect((await state("s1")).episode?.id).toBe(episode.id);
    expect(await decisions("s1")).toEqual(["inject", "skip:stagnation"]);
    // A real user message starts a new episode; the agent works its list, so it is nudged again.
    fake.todos.set("s1", WORKED);
    await send(...turnEvents("s1").events);
    expect(fake.prompts).toHaveLength(2);
    expect((await state("s1")).episode?.id).not.toBe(episode.id);
  });

  it("recognizes its nudge by text when the marker metadata is not echoed back", async () => {
    const { fake, send, state } = setup();
    fake.todos.set("s1", OPEN);
    await send(...turnEvents("s1").events);
    const episode = (await state("s1")).episode!.id;
    const text = fake.prompts[0]!.parts[0]!.text;
    await send(...turnEvents("s1", { userPart: { text, synthetic: true } }).events);
    expect((await state("s1")).episode?.id).toBe(episode);
  });

  it("does not count another plugin's synthetic prompt as the user's", async () => {
    const { fake, send, state } = setup();
    fake.todos.set("s1", OPEN);
    await send(...turnEvents("s1").events);
    const episode = (await state("s1")).episode!.id;
    await send(...turnEvents("s1", { userPart: { text: "Continue.", synthetic: true } }).events);
    expect((await state("s1")).episode?.id).toBe(episode);
  });

  it("ignores updates of user messages written before the plugin started", async () => {
    const { fake, send, state } = setup();
    fake.todos.set("s1", OPEN);
    await send(...turnEvents("s1").events);
    const episode = (await state("s1")).episode!.id;
    await send(
      events.user("s1", "msg_old", { created: Date.now() - 60_000 }),
      events.part("s1", "msg_old", { text: "an old prompt" }),
    );
    expect((await state("s1")).episode?.id).toBe(episode);
  });

  it("respects an abort: no nudge until the user speaks again", async () => {
    const { fake, send, state, decisions } = setup();
    fake.todos.set("s1", OPEN);
    const turn = turnEvents("s1");
    await send(
      ...turn.events.slice(0, 4),
      events.error("s1", { name: "MessageAbortedError", data: { message: "Aborted" } }),
      events.status("s1", "idle"),
      events.idle("s1"),
      events.assistant("s1", turn.assistantId, {
        parentID: turn.userId,
        error: { name: "MessageAbortedError", data: { message: "Aborted" } },
      }),
      events.status("s1", "idle"),
      events.idle("s1"),
    );
    expect(fake.prompts).toHaveLength(0);
    expect((await state("s1")).userAbortBlocked).toBe(true);
    expect(await decisions("s1")).toEqual(["skip:user-abort-blocked"]);
    fake.todos.set("s1", WORKED);
    await send(...turnEvents("s1").events);
    expect(fake.prompts).toHaveLength(1);
  });

  it("does not loop on an API error after a nudge", async () => {
    const { fake, send, decisions } = setup();
    fake.todos.set("s1", OPEN);
    await send(...turnEvents("s1").events);
    const reply = nudgeReply("s1", fake);
    const error = { name: "APIError", data: { message: "bad request", statusCode: 400 } };
    await send(
      ...reply.events.slice(0, 4),
      events.error("s1", error),
      events.status("s1", "idle"),
      events.idle("s1"),
      events.assistant("s1", reply.assistantId, { parentID: reply.userId, error }),
      events.status("s1", "idle"),
      events.idle("s1"),
    );
    expect(fake.prompts).toHaveLength(1);
    expect(await decisions("s1")).toEqual(["inject", "skip:provider-error"]);
  });

  it("treats a token-limit error as not safe", async () => {
    const { fake, send, state } = setup();
    fake.todos.set("s1", OPEN);
    const turn = turnEvents("s1");
    await send(
      ...turn.events.slice(0, 4),
      events.error("s1", {
        name: "APIError",
        data: { message: "maximum context length exceeded" },
      }),
      events.status("s1", "idle"),
      events.idle("s1"),
    );
    expect(fake.prompts).toHaveLength(0);
    expect((await state("s1")).lastOutcome?.stopReason).toBe("context_overflow");
  });

  it("after the user redirects, waits until the agent works its list again", async () => {
    const { fake, send, decisions } = setup();
    fake.todos.set("s1", OPEN);
    await send(...turnEvents("s1").events);
    expect(fake.prompts).toHaveLength(1);
    // "Stop. Inspect the broken context first.": the answer leaves the list alone.
    await send(
      ...turnEvents("s1", { userPart: { text: "Stop. Inspect the context first." } }).events,
    );
    expect(fake.prompts).toHaveLength(1);
    expect((await decisions("s1")).at(-1)).toBe("skip:list-unchanged-since-user");
    // "Continue": the agent closes an item, and is nudged as before.
    fake.todos.set("s1", WORKED);
    await send(...turnEvents("s1", { userPart: { text: "continue" } }).events);
    expect(fake.prompts).toHaveLength(2);
  });

  it("a compaction is not a user turn: the budget and an Esc block survive it", async () => {
    const { fake, send, state, decisions } = setup({ limits: { maxAutoTurns: 1 } });
    fake.todos.set("s1", OPEN);
    await send(...turnEvents("s1").events);
    const episode = (await state("s1")).episode!;
    fake.todos.set("s1", WORKED);
    await send(...nudgeReply("s1", fake).events);
    expect((await decisions("s1")).at(-1)).toBe("skip:max-auto-turns");
    // OpenCode compacts: a user message whose only part is a compaction, then the summary.
    const request = "msg_compaction_request";
    const summary = "msg_compaction_summary";
    await send(
      events.user("s1", request, { agent: "build" }),
      events.part("s1", request, { type: "compaction", text: "" }),
      events.status("s1", "busy"),
      events.assistant("s1", summary, { parentID: request, agent: "compaction", summary: true }),
      events.compacted("s1"),
      events.status("s1", "idle"),
      events.idle("s1"),
    );
    // Another turn that is not the user's (e.g. OpenCode's own "continue") ends: still no nudge.
    await send(...turnEvents("s1", { userPart: { text: "Continue.", synthetic: true } }).events);
    expect(fake.prompts).toHaveLength(1);
    expect((await state("s1")).episode?.id).toBe(episode.id);
    expect((await decisions("s1")).at(-1)).toBe("skip:max-auto-turns");
  });

  it("a compaction does not lift an Esc block", async () => {
    const { fake, send, state } = setup();
    fake.todos.set("s1", OPEN);
    const turn = turnEvents("s1");
    const aborted = { name: "MessageAbortedError", data: { message: "Aborted" } };
    await send(...turn.events.slice(0, 4), events.error("s1", aborted), events.idle("s1"));
    expect((await state("s1")).userAbortBlocked).toBe(true);
    const request = "msg_compaction_request_2";
    await send(
      events.user("s1", request),
      events.part("s1", request, { type: "compaction", text: "" }),
      events.compacted("s1"),
      events.idle("s1"),
    );
    expect((await state("s1")).userAbortBlocked).toBe(true);
    expect(fake.prompts).toHaveLength(0);
  });

  it("retries once after a transient provider error, then parks", async () => {
    const { fake, send, decisions } = setup({ limits: { errorBackoffMs: 20 } });
    fake.todos.set("s1", OPEN);
    const overloaded = {
      name: "APIError",
      data: { message: "Overloaded", statusCode: 529, isRetryable: true },
    };
    const turn = turnEvents("s1");
    await send(
      ...turn.events.slice(0, 4),
      events.assistant("s1", turn.assistantId, { parentID: turn.userId, error: overloaded }),
      events.error("s1", overloaded),
      events.status("s1", "idle"),
      events.idle("s1"),
    );
    expect(fake.prompts).toHaveLength(1);
    expect(fake.prompts[0]?.parts[0]?.text).toBe(RETRY_TEXT);
    const reply = nudgeReply("s1", fake);
    await send(
      ...reply.events.slice(0, 4),
      events.assistant("s1", reply.assistantId, { parentID: reply.userId, error: overloaded }),
      events.error("s1", overloaded),
      events.status("s1", "idle"),
      events.idle("s1"),
    );
    expect(fake.prompts).toHaveLength(1);
    expect(await decisions("s1")).toEqual(["inject", "skip:retries-exhausted"]);
  });

  it("a user message during the backoff cancels the retry", async () => {
    const { fake, send } = setup({ limits: { errorBackoffMs: 300 } });
    fake.todos.set("s1", OPEN);
    const turn = turnEvents("s1");
    const limited = { name: "APIError", data: { message: "rate limit", isRetryable: true } };
    for (const event of [
      ...turn.events.slice(0, 4),
      events.error("s1", limited),
      events.idle("s1"),
    ])
      void send(event);
    await new Promise((r) => setTimeout(r, 100));
    await send(...turnEvents("s1", { userPart: { text: "never mind" } }).events.slice(0, 2));
    expect(fake.prompts).toHaveLength(0);
  });

  it("waits for the user while the question tool asks, or when the answer ends with a question", async () => {
    const { fake, send, decisions } = setup();
    fake.todos.set("s1", OPEN);
    const turn = turnEvents("s1");
    await send(...turn.events.slice(0, 4), events.question("s1", "que_1"), ...turn.events.slice(4));
    expect(fake.prompts).toHaveLength(0);
    expect(await decisions("s1")).toEqual(["skip:awaiting-user"]);
    const asking = turnEvents("s1");
    fake.todos.set("s1", WORKED);
    await send(
      events.questionReplied("s1", "que_1"),
      ...asking.events.slice(0, 4),
      events.part("s1", asking.assistantId, { text: "Done with the parser. Shall I add tests?" }),
      ...asking.events.slice(4),
    );
    expect(fake.prompts).toHaveLength(0);
    expect((await decisions("s1")).at(-1)).toBe("skip:awaiting-user");
  });

  it("creates nothing for a chat that never has a list, and stores one from its first list on", async () => {
    const root = mkdtempSync(join(tmpdir(), "oc-lazy-"));
    try {
      const fake = new FakeOpenCode();
      const store = createFileStore({ root });
      const settings = parseOpenCodeOptions({ debounceMs: 0 });
      const continuation = new OpenCodeContinuation({ client: fake.client(), settings, store });
      live.push(continuation);
      const send = async (...list: BusEvent[]) => {
        for (const event of list) void continuation.handle(event);
        await continuation.settle();
      };
      await send(...turnEvents("chat").events, ...turnEvents("chat").events);
      expect(await store.listScopes()).toEqual([]);
      expect(readdirSync(root)).toEqual([]);
      // The same session starts a list: from then on it is stored and nudged.
      fake.todos.set("chat", OPEN);
      await send(...turnEvents("chat").events);
      expect((await store.listScopes()).map((s) => s.key)).toEqual(["session/sopencode.schat"]);
      expect(fake.prompts).toHaveLength(1);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("stays silent when everything is done", async () => {
    const { fake, send, decisions } = setup();
    fake.todos.set("s1", [{ content: "ship it", status: "completed", priority: "high" }]);
    await send(...turnEvents("s1").events);
    expect(fake.prompts).toHaveLength(0);
    expect(await decisions("s1")).toEqual(["skip:no-incomplete-todos"]);
  });

  it("never nudges an agent that may not edit, nor one on the skip list", async () => {
    const { fake, send, decisions } = setup({ skipAgents: ["plan", "docs"] });
    fake.agents.push({ name: "docs", mode: "primary", permission: [] });
    for (const [session, agent] of [
      ["s-plan", "plan"],
      ["s-review", "review"],
      ["s-docs", "docs"],
      ["s-ghost", "not-an-agent"],
    ] as const) {
      fake.todos.set(session, OPEN);
      await send(...turnEvents(session, { agent }).events);
      expect(await decisions(session)).toEqual(["skip:agent-excluded"]);
    }
    expect(fake.prompts).toHaveLength(0);
  });

  it("fails closed when the agent list cannot be read", async () => {
    const { fake, send, decisions } = setup();
    fake.agents = "nope" as unknown as unknown[];
    fake.todos.set("s1", OPEN);
    await send(...turnEvents("s1").events);
    expect(await decisions("s1")).toEqual(["skip:agent-excluded"]);
  });

  it("leaves subagent sessions alone: no scope, nothing stored, nothing sent", async () => {
    const { fake, send, store } = setup();
    fake.todos.set("child", OPEN);
    fake.parents.set("child", "parent");
    await send(...turnEvents("child").events, events.todos("child", OPEN));
    // Known from the lookup, and equally from session.created.
    fake.todos.set("child2", OPEN);
    await send(events.created("child2", "parent"), ...turnEvents("child2").events);
    expect(fake.prompts).toHaveLength(0);
    expect(await store.listScopes()).toEqual([]);
  });

  it("lets a real user message cancel a pending countdown", async () => {
    const { fake, send, continuation } = setup({ countdownMs: 60_000 });
    fake.todos.set("s1", OPEN);
    const toast = fake.nextToast();
    for (const event of turnEvents("s1").events) void continuation.handle(event);
    await toast;
    await new Promise((resolve) => setImmediate(resolve)); // the countdown has started
    expect(fake.toasts[0]?.message).toContain("continuing in 60s");
    await send(events.user("s1", "msg_typed"), events.part("s1", "msg_typed", { text: "wait" }));
    expect(fake.prompts).toHaveLength(0);
  });

  it("an error reported during the countdown still gets its single retry", async () => {
    const { fake, send, continuation, decisions } = setup({
      countdownMs: 60_000,
      limits: { errorBackoffMs: 20 },
    });
    fake.todos.set("s1", OPEN);
    const toast = fake.nextToast();
    for (const event of turnEvents("s1").events) void continuation.handle(event);
    await toast;
    await new Promise((resolve) => setImmediate(resolve)); // the countdown has started
    // The stream's overload arrives after the idles, as nested OpenAI JSON.
    const overloaded = {
      name: "APIError",
      data: {
        message: "Server error.",
        isRetryable: false,
        responseBody: '{"type":"error","error":{"code":"server_is_overloaded","message":"busy"}}',
      },
    };
    await send(events.error("s1", overloaded));
    expect(fake.prompts).toHaveLength(1);
    expect(fake.prompts[0]?.parts[0]?.text).toBe(RETRY_TEXT);
    expect(await decisions("s1")).toEqual(["inject"]);
    // Its own idles, arriving late, decide nothing more.
    await send(events.status("s1", "idle"), events.idle("s1"));
    expect(fake.prompts).toHaveLength(1);
  });

  it("a permanent error reported during the countdown parks, on record, and sends nothing", async () => {
    const { fake, send, continuation, decisions, state } = setup({ countdownMs: 60_000 });
    fake.todos.set("s1", OPEN);
    const toast = fake.nextToast();
    for (const event of turnEvents("s1").events) void continuation.handle(event);
    await toast;
    await new Promise((resolve) => setImmediate(resolve));
    await send(
      events.error("s1", {
        name: "ProviderAuthError",
        data: { providerID: "x", message: "no key" },
      }),
    );
    expect(fake.prompts).toHaveLength(0);
    expect(await decisions("s1")).toEqual(["skip:provider-error"]);
    expect((await state("s1")).parked).toBe("provider-error");
  });

  it("drops a deleted session's timers and stored data, and ignores its late events", async () => {
    const { fake, send, continuation, store } = setup({ countdownMs: 60_000 });
    fake.todos.set("s1", OPEN);
    const toast = fake.nextToast();
    for (const event of turnEvents("s1").events) void continuation.handle(event);
    await toast;
    await new Promise((resolve) => setImmediate(resolve)); // the countdown has started
    await send(events.deleted("s1"));
    await send(events.todos("s1", OPEN), ...turnEvents("s1").events);
    expect(fake.prompts).toHaveLength(0);
    expect(await store.listScopes()).toEqual([]);
    expect(continuation.trackedSessions).toBe(0);
    expect(continuation.enforcer.trackedSessions).toBe(0);
  });

  it("skips the idle right after a compaction", async () => {
    const { fake, send, decisions } = setup();
    fake.todos.set("s1", OPEN);
    const turn = turnEvents("s1");
    await send(...turn.events.slice(0, 5), events.compacted("s1"), ...turn.events.slice(5));
    expect(fake.prompts).toHaveLength(0);
    expect(await decisions("s1")).toEqual(["skip:recovering"]);
  });

  it("does not nudge when the session went busy again before the decision", async () => {
    const { fake, send, decisions } = setup({ debounceMs: 30 });
    fake.todos.set("s1", OPEN);
    await send(...turnEvents("s1").events, events.status("s1", "busy"));
    expect(fake.prompts).toHaveLength(0);
    expect(await decisions("s1")).toEqual(["skip:background-work"]);
  });

  it.each([
    ["goes busy", (c: OpenCodeContinuation) => c.handle(events.status("s1", "busy"))],
    [
      "gets a message of unknown origin",
      (c: OpenCodeContinuation) => c.handle(events.user("s1", "msg_typed")),
    ],
  ])(
    "sends nothing when the session %s while the inject decision is being stored",
    async (_what, meanwhile) => {
      // The store answers the inject's write only after the session's event was handled:
      // the user's prompt reaching OpenCode between "recorded" and "sent".
      let continuation: OpenCodeContinuation | undefined;
      const store = new (class extends MemoryStore {
        override async transact<R>(
          scope: Parameters<MemoryStore["transact"]>[0],
          fn: Parameters<MemoryStore["transact"]>[1],
        ): Promise<R> {
          const result = (await super.transact(scope, fn)) as R;
          const last = (await this.readLog(scope)).at(-1);
          if (last?.action === "inject" && continuation) await meanwhile(continuation);
          return result;
        }
      })();
      const { fake, send, log, ...made } = setup({}, store);
      continuation = made.continuation;
      fake.todos.set("s1", OPEN);
      await send(...turnEvents("s1").events);
      expect(fake.prompts).toHaveLength(0);
      const entries = await log("s1");
      expect(entries.map((e) => e.action)).toEqual(["inject", "delivery-failed"]);
      expect(entries[1]?.note).toBe("a turn started in the session before the nudge was sent");
    },
  );

  it("counts a failed delivery and backs off", async () => {
    const { fake, send, state, log } = setup();
    fake.todos.set("s1", OPEN);
    fake.promptFailure = { status: 400, error: { name: "BadRequestError" } };
    await send(...turnEvents("s1").events);
    expect((await state("s1")).episode?.failures).toBe(1);
    expect((await log("s1")).map((e) => e.action)).toEqual(["inject", "delivery-failed"]);
    expect(fake.logs.some((l) => l.message.includes("not delivered"))).toBe(true);
  });

  it("sends nothing when the todo list cannot be fetched", async () => {
    const { fake, send, log } = setup();
    fake.todos.set("s1", OPEN);
    fake.todoFailure = { status: 500, error: "boom" };
    await send(...turnEvents("s1").events);
    expect(fake.prompts).toHaveLength(0);
    expect(await log("s1")).toEqual([]);
    expect(fake.logs.some((l) => l.level === "error" && l.message.includes("session.todo"))).toBe(
      true,
    );
  });

  it("keeps the stored list in step with todo.updated", async () => {
    const { send, store, scope } = setup();
    await send(events.todos("s1", [...OPEN, { content: "odd", status: "someday" }]));
    const todos = (await store.read(scope("s1"))).todos.todos;
    expect(todos.map((t) => [t.content, t.status])).toEqual([
      ["write the parser", "in_progress"],
      ["add tests", "pending"],
      ["odd", "blocked"],
    ]);
  });

  it("records the turn's spend without counting cache reads as input", async () => {
    const { fake, send, state } = setup();
    fake.todos.set("s1", OPEN);
    await send(
      ...turnEvents("s1", {
        tokens: { input: 40, output: 10, reasoning: 5, cache: { read: 9000, write: 20 } },
      }).events,
    );
    expect((await state("s1")).lastOutcome?.usage).toEqual({
      input: 40,
      output: 15,
      cacheRead: 9000,
      cacheWrite: 20,
      total: 9075,
    });
  });

  it("does nothing when disabled", async () => {
    const { fake, send, log } = setup({ enabled: false });
    fake.todos.set("s1", OPEN);
    await send(...turnEvents("s1").events);
    expect(fake.prompts).toHaveLength(0);
    expect(await log("s1")).toEqual([]);
  });

  it("ignores events it cannot read", async () => {
    const { fake, send } = setup();
    await send(
      { type: "session.idle" },
      { type: "session.status", properties: { status: { type: "idle" } } },
      { type: "message.updated", properties: { info: "garbage" } },
      { type: "tui.toast.show", properties: {} },
    );
    expect(fake.prompts).toHaveLength(0);
  });
});
