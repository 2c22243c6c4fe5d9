import { describe, expect, it } from "vitest";
import { PRESETS } from "../../core/engine/presets.js";
import { resolveScope } from "../../core/scope/scope.js";
import type { Limits, Scope, Store } from "../../core/types.js";
import { RETRY_TEXT } from "../../runtime/runtime.js";
import { MemoryStore } from "../../store/memory/memory-store.js";
import { type HookOptions, runHook } from "./handler.js";
import type { TaskFileEntry } from "./todos.js";

const SESSION = "0a049ea4-9d5d-4d02-9483-f5dcac7eddc5";
const scope = resolveScope({ kind: "session", host: "claude-code", sessionId: SESSION }) as Scope;

/** One Claude Code session talking to the hook, with a fake clock, transcript and task folder. */
function session(
  options: {
    limits?: Partial<Limits>;
    store?: Store;
    waitOnQuestions?: boolean;
    sleep?: (ms: number) => Promise<void>;
  } = {},
) {
  const store = options.store ?? new MemoryStore();
  let clock = 1_800_000_000_000;
  const transcript: string[] = [];
  let taskFiles: Map<string, TaskFileEntry> | null = null;
  const hookOptions: HookOptions = {
    store,
    now: () => clock,
    env: { HOME: "/home/test" },
    readTranscript: async () => [...transcript],
    readTasks: async () => taskFiles,
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.waitOnQuestions !== undefined ? { waitOnQuestions: options.waitOnQuestions } : {}),
    ...(options.sleep ? { sleep: options.sleep } : {}),
  };
  const send = (event: Record<string, unknown>) => {
    clock += 1000;
    return runHook(
      JSON.stringify({ session_id: SESSION, transcript_path: "/t.jsonl", cwd: "/p", ...event }),
      hookOptions,
    );
  };
  return {
    store,
    transcript,
    setTaskFiles: (files: Map<string, TaskFileEntry> | null) => {
      taskFiles = files;
    },
    now: () => clock,
    prompt: (prompt = "do the work", source?: string) =>
      send({ hook_event_name: "UserPromptSubmit", prompt, ...(source ? { source } : {}) }),
    todoWrite: (...statuses: string[]) =>
      send({
        hook_event_name: "PostToolUse",
        tool_name: "TodoWrite",
        tool_input: {
          todos: statuses.map((status, i) => ({
            content: `item ${i + 1}`,
            status,
            activeForm: `Doing ${i + 1}`,
          })),
        },
        tool_response: {},
      }),
    stop: (extra: Record<string, unknown> = {}) =>
      send({
        hook_event_name: "Stop",
        stop_hook_active: false,
        last_assistant_message: "Stopping here.",
        ...extra,
      }),
    send,
    log: () => store.readLog(scope),
  };
}

const blocked = (stdout: string) => stdout !== "" && JSON.parse(stdout).decision === "block";

describe("Claude Code hook", () => {
  it("blocks an early stop with the live list and TodoWrite's way to close items", async () => {
    const s = session();
    await s.prompt();
    await s.todoWrite("in_progress", "pending");
    const out = await s.stop();
    expect(out.exitCode).toBe(0);
    const decision = JSON.parse(out.stdout);
    expect(decision.decision).toBe("block");
    expect(decision.reason).toContain("item 1");
    expect(decision.reason).toContain("item 2");
    expect(decision.reason).toContain("TodoWrite");
    expect(decision.reason).not.toContain("TaskUpdate");
    expect(out.stderr.join("\n")).toMatch(/stop blocked with nudge 1/);
  });

  it("allows the stop once every item is done", async () => {
    const s = session();
    await s.prompt();
    await s.todoWrite("completed", "completed");
    const out = await s.stop();
    expect(out.stdout).toBe("");
    expect((await s.log()).at(-1)?.reason).toBe("no-incomplete-todos");
  });

  it("writes nothing for a session that never used a todo list", async () => {
    const store = new MemoryStore();
    const s = session({ store });
    const out = await s.stop();
    expect(out).toEqual({ stdout: "", stderr: [], exitCode: 0 });
    expect(await store.listScopes()).toEqual([]);
  });

  it("bounds the loop with its own budget, whatever stop_hook_active says", async () => {
    const s = session();
    await s.prompt();
    await s.todoWrite("in_progress", "pending");
    expect(blocked((await s.stop()).stdout)).toBe(true);
    // The agent answers the nudge without progress; the default preset lets one wasted nudge go.
    const second = await s.stop({ stop_hook_active: false });
    expect(second.stdout).toBe("");
    expect(second.stderr.join()).toMatch(/stagnation/);
    expect((await s.stop({ stop_hook_active: false })).stdout).toBe("");
  });

  it("stops at the turn budget even while the list keeps changing", async () => {
    const s = session({ limits: { maxAutoTurns: 2, stagnationLimit: 0 } });
    await s.prompt();
    const results: boolean[] = [];
    for (let i = 0; i < 5; i++) {
      await s.todoWrite(i % 2 === 0 ? "in_progress" : "pending", "pending");
      results.push(blocked((await s.stop({ stop_hook_active: i > 0 })).stdout));
    }
    expect(results).toEqual([true, true, false, false, false]);
    expect((await s.log()).at(-1)?.reason).toBe("max-auto-turns");
  });

  it("charges the spend the transcript shows, once per response, against the token budget", async () => {
    const s = session({ limits: { maxTokens: 500, stagnationLimit: 0 } });
    const response = (id: string) =>
      JSON.stringify({
        type: "assistant",
        timestamp: new Date(s.now() + 10).toISOString(),
        message: { id, stop_reason: "end_turn", usage: { input_tokens: 200, output_tokens: 100 } },
      });
    await s.prompt();
    await s.todoWrite("in_progress", "pending");
    s.transcript.push(response("m1"));
    expect(blocked((await s.stop()).stdout)).toBe(true);
    s.transcript.push(response("m2"), response("m2"));
    await s.todoWrite("pending", "in_progress");
    expect(blocked((await s.stop()).stdout)).toBe(true);
    s.transcript.push(response("m3"));
    await s.todoWrite("in_progress", "pending");
    expect((await s.stop()).stdout).toBe("");
    const last = (await s.log()).at(-1);
    expect(last?.reason).toBe("max-tokens");
    // m1 belongs to the user's own turn; m2 and m3 are charged once each.
    expect(last?.tokens).toBe(600);
  });

  describe("the user's interrupt", () => {
    const interrupt = (at: number) =>
      JSON.stringify({
        type: "user",
        timestamp: new Date(at).toISOString(),
        message: {
          role: "user",
          content: [{ type: "text", text: "[Request interrupted by user]" }],
        },
      });

    it("holds through turns the host injects, until the user speaks again", async () => {
      const s = session();
      await s.prompt();
      await s.todoWrite("in_progress", "pending");
      s.transcript.push(interrupt(s.now() + 1));
      // A background task finishing wakes the session with a prompt nobody typed.
      await s.prompt("<task-notification>\n<task-id>b1</task-id>", undefined);
      const afterWake = await s.stop();
      expect(afterWake.stdout).toBe("");
      expect(afterWake.stderr.join()).toMatch(/aborted/);
      expect((await s.stop()).stdout).toBe("");
      expect((await s.log()).at(-1)?.reason).toBe("user-abort-blocked");
      await s.prompt("carry on");
      await s.todoWrite("completed", "in_progress");
      expect(blocked((await s.stop()).stdout)).toBe(true);
    });
  });

  it("nudges a resumed session with a new prompt exactly like a fresh one", async () => {
    const s = session();
    await s.prompt();
    await s.todoWrite("in_progress", "pending", "pending");
    expect(blocked((await s.stop()).stdout)).toBe(true);
    await s.send({ hook_event_name: "SessionStart", source: "resume" });
    // `claude --resume <id> -p "..."`: the new prompt is the user speaking.
    await s.prompt("continue");
    await s.todoWrite("completed", "in_progress", "pending");
    expect(blocked((await s.stop()).stdout)).toBe(true);
    expect((await s.log()).at(-1)?.action).toBe("inject");
  });

  it("after a resume, a stop with no prompt of the user's is left to the restart kick", async () => {
    const s = session();
    await s.prompt();
    await s.todoWrite("in_progress", "pending");
    expect(blocked((await s.stop()).stdout)).toBe(true);
    const resumed = await s.send({ hook_event_name: "SessionStart", source: "resume" });
    expect(resumed.stderr.join()).toMatch(/a stop before your next prompt is not nudged/);
    await s.prompt("<task-notification>\n<task-id>b1</task-id>");
    expect((await s.stop()).stdout).toBe("");
    expect((await s.log()).at(-1)?.reason).toBe("restart-kick-suppressed");
  });

  it("after the user redirects, waits until the agent works its list again", async () => {
    const s = session();
    await s.prompt();
    await s.todoWrite("in_progress", "pending");
    expect(blocked((await s.stop()).stdout)).toBe(true);
    await s.prompt("Stop. Inspect the broken context first.");
    expect((await s.stop({ last_assistant_message: "The context is fine." })).stdout).toBe("");
    expect((await s.log()).at(-1)?.reason).toBe("list-unchanged-since-user");
  });

  it("a /compact is not a user turn: the budget survives it", async () => {
    const s = session({ limits: { maxAutoTurns: 1 } });
    await s.prompt();
    await s.todoWrite("in_progress", "pending", "pending");
    expect(blocked((await s.stop()).stdout)).toBe(true);
    await s.todoWrite("completed", "in_progress", "pending");
    await s.prompt("/compact keep the plan");
    await s.todoWrite("completed", "completed", "in_progress");
    expect((await s.stop()).stdout).toBe("");
    expect((await s.log()).at(-1)?.reason).toBe("max-auto-turns");
  });

  it("retries a turn a transient API error ended, after the backoff, once", async () => {
    const slept: number[] = [];
    const s = session({ sleep: async (ms) => void slept.push(ms) });
    await s.prompt();
    await s.todoWrite("in_progress", "pending");
    const retry = await s.stop({ last_assistant_message: "API Error: 529 overloaded_error" });
    expect(blocked(retry.stdout)).toBe(true);
    expect(JSON.parse(retry.stdout).reason).toBe(RETRY_TEXT);
    expect(slept).toEqual([PRESETS.default.limits.errorBackoffMs]);
    const again = await s.stop({
      stop_hook_active: true,
      last_assistant_message: "API Error: 529 overloaded_error",
    });
    expect(again.stdout).toBe("");
    expect((await s.log()).at(-1)?.reason).toBe("retries-exhausted");
  });

  it("waits for the user after an AskUserQuestion that got no answer", async () => {
    const s = session();
    await s.prompt();
    await s.todoWrite("in_progress", "pending");
    const at = new Date(s.now() + 500).toISOString();
    s.transcript.push(
      JSON.stringify({
        type: "assistant",
        timestamp: at,
        message: {
          id: "m1",
          content: [{ type: "tool_use", id: "q1", name: "AskUserQuestion", input: {} }],
        },
      }),
      JSON.stringify({
        type: "user",
        timestamp: at,
        message: {
          content: [
            { type: "tool_result", tool_use_id: "q1", is_error: true, content: "declined" },
          ],
        },
      }),
    );
    expect((await s.stop({ last_assistant_message: "I will wait." })).stdout).toBe("");
    expect((await s.log()).at(-1)?.reason).toBe("awaiting-user");
  });

  it("does not arm the resume kick when nothing is left to do", async () => {
    const s = session();
    await s.todoWrite("completed");
    await s.send({ hook_event_name: "SessionStart", source: "resume" });
    expect((await s.store.read(scope)).state.restartKickArmed).toBe(false);
  });

  it("never lets a subagent touch the parent's list or be blocked", async () => {
    const s = session();
    await s.prompt();
    await s.todoWrite("completed");
    const sub = await s.send({
      hook_event_name: "PostToolUse",
      agent_id: "a1",
      tool_name: "TodoWrite",
      tool_input: { todos: [{ content: "sub item", status: "pending" }] },
      tool_response: {},
    });
    expect(sub.stdout).toBe("");
    expect((await s.store.read(scope)).todos.todos.map((t) => t.content)).toEqual(["item 1"]);
    await s.todoWrite("pending");
    const subStop = await s.send({
      hook_event_name: "SubagentStop",
      agent_id: "a1",
      stop_hook_active: false,
    });
    expect(subStop.stdout).toBe("");
    const stopInSub = await s.stop({ agent_id: "a1" });
    expect(stopInSub.stdout).toBe("");
  });

  it.each([
    [
      "background work runs",
      { background_tasks: [{ id: "b", type: "shell", status: "running" }] },
      "background-work",
    ],
    ["a wakeup is scheduled", { session_crons: [{ id: "c" }] }, "background-work"],
    ["the session is in plan mode", { permission_mode: "plan" }, "agent-excluded"],
    [
      "the agent asked the user a question",
      { last_assistant_message: "Which database should I use?" },
      "awaiting-user",
    ],
    [
      "the turn ended in an API error a retry will not fix",
      { last_assistant_message: "API Error: 401 invalid x-api-key" },
      "provider-error",
    ],
  ])("allows the stop when %s", async (_label, extra, reason) => {
    const s = session();
    await s.prompt();
    await s.todoWrite("pending");
    expect((await s.stop(extra)).stdout).toBe("");
    expect((await s.log()).at(-1)?.reason).toBe(reason);
  });

  it("can be told to nudge after a closing question", async () => {
    const s = session({ waitOnQuestions: false });
    await s.prompt();
    await s.todoWrite("pending");
    expect(blocked((await s.stop({ last_assistant_message: "Shall I go on?" })).stdout)).toBe(true);
  });

  it("records a failed turn as unsafe", async () => {
    const s = session();
    await s.prompt();
    await s.todoWrite("pending");
    const out = await s.send({
      hook_event_name: "StopFailure",
      error: "authentication_failed",
      last_assistant_message: "API Error: 401",
    });
    expect(out.stdout).toBe("");
    expect((await s.store.read(scope)).state.lastOutcome?.stopReason).toBe("error");
  });

  it("tracks Task tools, reconciling with the task folder at stop", async () => {
    const s = session();
    await s.prompt();
    const create = (id: string, subject: string) =>
      s.send({
        hook_event_name: "PostToolUse",
        tool_name: "TaskCreate",
        tool_input: { subject, description: subject },
        tool_response: { task: { id, subject } },
      });
    await create("1", "Write code");
    await create("2", "Write docs");
    // Task 1 was completed by something the hook did not see; task 2 was deleted.
    s.setTaskFiles(
      new Map<string, TaskFileEntry>([
        ["1", { id: "1", content: "Write code", status: "completed" }],
      ]),
    );
    expect((await s.stop()).stdout).toBe("");
    expect((await s.store.read(scope)).todos.todos).toEqual([
      { id: "1", content: "Write code", status: "completed" },
    ]);
    await create("3", "Ship it");
    s.setTaskFiles(null);
    const out = await s.stop();
    const reason = JSON.parse(out.stdout).reason as string;
    expect(reason).toContain("Ship it");
    expect(reason).toContain("TaskUpdate");
  });

  it("reports an update for a task it never saw created, without inventing one", async () => {
    const s = session();
    const out = await s.send({
      hook_event_name: "PostToolUse",
      tool_name: "TaskUpdate",
      tool_input: { taskId: "9", status: "in_progress" },
      tool_response: { success: true },
    });
    expect(out.stderr.join()).toMatch(/never created/);
    expect((await s.store.read(scope)).todos.todos).toEqual([]);
  });

  describe("never fails closed", () => {
    it("allows the stop on input it cannot read, and keeps the stored list", async () => {
      const s = session();
      await s.todoWrite("pending", "pending");
      const bad = await s.send({
        hook_event_name: "PostToolUse",
        tool_name: "TodoWrite",
        tool_input: { todos: [{ content: "x", status: "finished" }] },
        tool_response: {},
      });
      expect(bad.exitCode).toBe(0);
      expect(bad.stderr.join()).toMatch(/tool_input\.todos\[0\]\.status/);
      expect((await s.store.read(scope)).todos.todos).toHaveLength(2);
      const garbage = await runHook("not json", { store: s.store });
      expect(garbage).toMatchObject({ stdout: "", exitCode: 0 });
      expect(garbage.stderr.join()).toMatch(/allowing the stop/);
    });

    it("allows the stop when the store fails", async () => {
      const broken = new MemoryStore();
      const s = session({ store: broken });
      await s.prompt();
      await s.todoWrite("pending");
      await broken.close();
      const out = await s.stop();
      expect(out).toMatchObject({ stdout: "", exitCode: 0 });
      expect(out.stderr.join()).toMatch(/hook failed, allowing the stop: .*closed/);
    });

    it("ignores events it does not know", async () => {
      const s = session();
      expect(await s.send({ hook_event_name: "Notification", message: "hi" })).toEqual({
        stdout: "",
        stderr: [],
        exitCode: 0,
      });
    });
  });

  describe("a host /goal", () => {
    const goalEntry = (fields: object) =>
      JSON.stringify({
        type: "attachment",
        attachment: { type: "goal_status", condition: "everything is ported", ...fields },
      });

    it("steps aside while the goal is active and takes over once it is met", async () => {
      const s = session();
      await s.prompt("/goal everything is ported");
      s.transcript.push(goalEntry({ met: false, sentinel: true }));
      await s.todoWrite("in_progress", "pending");
      const first = await s.stop();
      expect(first.stdout).toBe("");
      expect(first.stderr.join()).toMatch(/stop allowed \(host-goal-active\)/);
      expect((await s.log()).at(-1)).toMatchObject({ action: "skip", reason: "host-goal-active" });
      // The goal's own block continued the session: Claude Code now says stop_hook_active.
      s.transcript.push(goalEntry({ met: false, reason: "printer not ported" }));
      await s.todoWrite("completed", "in_progress");
      expect((await s.stop({ stop_hook_active: true })).stdout).toBe("");
      expect((await s.log()).at(-1)?.reason).toBe("host-goal-active");
      s.transcript.push(goalEntry({ met: true, reason: "done" }));
      await s.todoWrite("completed", "in_progress", "pending");
      expect(blocked((await s.stop({ stop_hook_active: true })).stdout)).toBe(true);
    });

    it("after /goal clear, nudges again", async () => {
      const s = session();
      await s.prompt();
      s.transcript.push(
        goalEntry({ met: false, sentinel: true }),
        goalEntry({ met: true, sentinel: true }),
      );
      await s.todoWrite("in_progress", "pending");
      expect(blocked((await s.stop()).stdout)).toBe(true);
    });

    it("a goal the model paused does not drive the session: ours waits for the user", async () => {
      const s = session();
      await s.prompt();
      const at = new Date(s.now() + 500).toISOString();
      s.transcript.push(
        goalEntry({ met: false, sentinel: true }),
        JSON.stringify({
          type: "assistant",
          timestamp: at,
          message: {
            id: "m1",
            content: [
              { type: "tool_use", id: "p1", name: "PauseGoal", input: { reason: "a key" } },
            ],
          },
        }),
        JSON.stringify({
          type: "user",
          timestamp: at,
          message: { content: [{ type: "tool_result", tool_use_id: "p1", content: "paused" }] },
        }),
      );
      await s.todoWrite("in_progress", "pending");
      expect((await s.stop()).stdout).toBe("");
      expect((await s.log()).at(-1)).toMatchObject({ action: "skip", reason: "awaiting-user" });
    });

    it("a turn the goal started is not recorded as started by our nudge", async () => {
      const s = session();
      await s.prompt();
      await s.todoWrite("in_progress", "pending");
      // Ours blocks; the next turn is ours, whatever stop_hook_active says.
      expect(blocked((await s.stop()).stdout)).toBe(true);
      await s.todoWrite("completed", "in_progress");
      s.transcript.push(goalEntry({ met: false, sentinel: true }));
      expect((await s.stop({ stop_hook_active: false })).stdout).toBe("");
      expect((await s.store.read(scope)).state.lastOutcome?.injected).toBe(true);
      // Ours stepped aside and the goal blocked: stop_hook_active is true, the turn is not ours.
      await s.todoWrite("completed", "completed", "pending");
      await s.stop({ stop_hook_active: true });
      expect((await s.store.read(scope)).state.lastOutcome?.injected).toBe(false);
    });
  });

  describe("the line printed on a resume", () => {
    async function resumed(
      setup: (s: ReturnType<typeof session>) => Promise<void> = async () => {},
    ) {
      const s = session();
      await s.prompt();
      await s.todoWrite("in_progress", "pending");
      await setup(s);
      const out = await s.send({ hook_event_name: "SessionStart", source: "resume" });
      return { s, line: out.stderr.join("\n") };
    }

    it("says a stop before the next prompt is not nudged, and holds after a prompt too", async () => {
      const { s, line } = await resumed();
      expect(line).toMatch(/2 open todo items; a stop before your next prompt is not nudged/);
      expect(line).not.toMatch(/first stop will not be nudged/);
      // The promise for after a prompt: once the agent works its list, it is nudged.
      await s.prompt("carry on");
      await s.todoWrite("completed", "in_progress");
      expect(blocked((await s.stop()).stdout)).toBe(true);
    });

    it("says continuation is stopped when the user stopped it", async () => {
      const { s, line } = await resumed((s) =>
        s.store.transact(scope, (snap) => ({
          state: { ...snap.state, stopped: true },
          result: undefined,
        })),
      );
      expect(line).toMatch(/continuation is stopped for it/);
      await s.prompt("carry on");
      await s.todoWrite("completed", "in_progress");
      expect((await s.stop()).stdout).toBe("");
      expect((await s.log()).at(-1)?.reason).toBe("continuation-stopped");
    });

    it("says a restored /goal owns the stops", async () => {
      const { line } = await resumed(async (s) => {
        s.transcript.push(
          JSON.stringify({
            type: "attachment",
            attachment: { type: "goal_status", met: false, sentinel: true, condition: "all done" },
          }),
        );
      });
      expect(line).toMatch(/its \/goal is active again/);
    });

    it("prints nothing when the list has no open work", async () => {
      const s = session();
      await s.prompt();
      await s.todoWrite("completed");
      const out = await s.send({ hook_event_name: "SessionStart", source: "resume" });
      expect(out.stderr).toEqual([]);
    });
  });
});
