import { describe, expect, it } from "vitest";
import { resolveScope } from "../../core/scope/scope.js";
import type { Limits, Scope } from "../../core/types.js";
import { MemoryStore } from "../../store/memory/memory-store.js";
import { GOAL_EVENT_MARKER } from "./goal.js";
import { type CodexHookOptions, runCodexHookText } from "./handler.js";
import { goalLine, taskStarted } from "./test-support/rollout-lines.js";

const SESSION = "01a2164d-bf88-7433-8fc1-99e5806455da";
const TURN = "01a2164d-c04b-78d2-9ee2-1ed8d68352a8";
const scope = resolveScope({ kind: "session", host: "codex", sessionId: SESSION }) as Scope;

/** One Codex session talking to the hook, with a fake clock and rollout. */
function session(options: { limits?: Partial<Limits> } = {}) {
  const store = new MemoryStore();
  let clock = 1_800_000_000_000;
  let turn = TURN;
  const rollout: string[] = [];
  const hookOptions: CodexHookOptions = {
    store,
    now: () => clock,
    readRollout: async () => [...rollout],
    readGoalLine: async () => rollout.filter((l) => l.includes(GOAL_EVENT_MARKER)).at(-1) ?? null,
    ...(options.limits ? { limits: options.limits } : {}),
  };
  const send = (event: Record<string, unknown>) => {
    clock += 1000;
    return runCodexHookText(
      JSON.stringify({
        session_id: SESSION,
        turn_id: turn,
        transcript_path: "/r.jsonl",
        cwd: "/p",
        model: "scripted",
        permission_mode: "bypassPermissions",
        ...event,
      }),
      hookOptions,
    );
  };
  return {
    store,
    rollout,
    newTurn: (id: string) => {
      turn = id;
    },
    prompt: (prompt = "do the work", extra: Record<string, unknown> = {}) =>
      send({ hook_event_name: "UserPromptSubmit", prompt, ...extra }),
    plan: (statuses: string[], extra: Record<string, unknown> = {}) =>
      send({
        hook_event_name: "PostToolUse",
        tool_name: "update_plan",
        tool_input: { plan: statuses.map((status, i) => ({ step: `step ${i + 1}`, status })) },
        tool_response: "Plan updated",
        tool_use_id: "call_1",
        ...extra,
      }),
    stop: (extra: Record<string, unknown> = {}) =>
      send({
        hook_event_name: "Stop",
        stop_hook_active: false,
        last_assistant_message: "I stopped early.",
        ...extra,
      }),
    interrupt: () => send({ hook_event_name: "Interrupt" }),
  };
}

function reasonOf(stdout: string): string {
  const parsed = JSON.parse(stdout) as { decision: string; reason: string };
  expect(parsed.decision).toBe("block");
  return parsed.reason;
}

describe("Codex hook handler", () => {
  it("stores update_plan as the list and blocks an early stop with the nudge as reason", async () => {
    const s = session();
    await s.prompt();
    await s.plan(["in_progress", "pending"]);
    const stored = await s.store.read(scope);
    expect(stored.todos.todos.map((t) => [t.content, t.status])).toEqual([
      ["step 1", "in_progress"],
      ["step 2", "pending"],
    ]);
    const response = await s.stop();
    const reason = reasonOf(response.stdout);
    expect(reason).toContain("step 1");
    expect(reason).toContain("update_plan");
    expect(response.exitCode).toBe(0);
  });

  it("is silent when every step is done, and when the session never made a plan", async () => {
    const s = session();
    await s.prompt();
    expect((await s.stop()).stdout).toBe("");
    expect((await s.store.read(scope)).todosRevision).toBe(0);
    await s.plan(["completed", "completed"]);
    const done = await s.stop();
    expect(done.stdout).toBe("");
    expect(done.stderr.join("\n")).toContain("stop allowed");
  });

  it("stops an agent that never makes progress within the preset's turn budget", async () => {
    const limits = { maxAutoTurns: 3, stagnationLimit: 100 };
    const s = session({ limits });
    await s.prompt();
    await s.plan(["pending", "pending"]);
    let blocks = 0;
    for (let i = 0; i < 20; i++) {
      const response = await s.stop({ stop_hook_active: i > 0 });
      if (response.stdout === "") break;
      blocks++;
    }
    expect(blocks).toBe(3);
  });

  it("ends a stagnant episode with the default preset's stagnation limit", async () => {
    const s = session();
    await s.prompt();
    await s.plan(["pending", "pending"]);
    let blocks = 0;
    for (let i = 0; i < 20 && (await s.stop({ stop_hook_active: i > 0 })).stdout !== ""; i++) {
      blocks++;
    }
    expect(blocks).toBeGreaterThan(0);
    expect(blocks).toBeLessThan(20);
  });

  it("never lets a subagent touch the parent's list or be blocked", async () => {
    const s = session();
    await s.prompt();
    await s.plan(["pending"]);
    const child = { agent_id: "child-1", agent_type: "default" };
    await s.prompt("SUBTASK", child);
    await s.plan(["completed", "completed", "completed"], child);
    expect((await s.stop(child)).stdout).toBe("");
    const stored = await s.store.read(scope);
    expect(stored.todos.todos.map((t) => t.status)).toEqual(["pending"]);
    // The child's prompt did not end the parent's episode either: the parent is still nudged.
    expect((await s.stop()).stdout).not.toBe("");
  });

  it("respects an interrupt until the user's next prompt", async () => {
    const s = session();
    await s.prompt();
    await s.plan(["in_progress", "pending"]);
    const interrupted = await s.interrupt();
    expect(interrupted.stderr.join("\n")).toContain("interrupted");
    expect((await s.stop()).stdout).toBe("");
    s.newTurn("turn-2");
    await s.prompt("go on");
    // After the user speaks, a nudge needs the agent to work its list again.
    await s.plan(["completed", "in_progress"]);
    expect((await s.stop()).stdout).not.toBe("");
  });

  it("treats a prompt typed into a nudged turn as the user redirecting, whatever its turn id", async () => {
    const s = session();
    await s.prompt();
    await s.plan(["in_progress", "pending"]);
    const first = await s.stop();
    expect(first.stdout).not.toBe("");
    // The user steers the running turn: Codex sends the running turn's own turn_id.
    await s.prompt("Stop. Inspect the broken config first.");
    const state = (await s.store.read(scope)).state;
    expect(state.episode).toBeNull();
    const after = await s.stop({ stop_hook_active: true, last_assistant_message: "Inspected." });
    expect(after.stdout).toBe("");
    expect(after.stderr.join("\n")).toContain("list-unchanged-since-user");
    // Once the agent works its list again, nudging resumes in a new episode.
    await s.plan(["completed", "in_progress"]);
    const resumed = await s.stop();
    expect(reasonOf(resumed.stdout)).toContain("step 2");
    expect(resumed.stderr.join("\n")).toContain("nudge 1 of episode");
  });

  it("a redirect refills the budget a nudged turn used up; our own nudge does not", async () => {
    const s = session({ limits: { maxAutoTurns: 1, stagnationLimit: 100 } });
    await s.prompt();
    await s.plan(["pending", "pending"]);
    const nudge = reasonOf((await s.stop()).stdout);
    // Our own reason coming back as a prompt is not the user: the spent budget stays spent.
    await s.prompt(`<hook_prompt hook_run_id="stop:0:/c.toml">${nudge}</hook_prompt>`);
    await s.plan(["completed", "pending"]);
    const spent = await s.stop({ stop_hook_active: true });
    expect(spent.stdout).toBe("");
    expect(spent.stderr.join("\n")).toContain("max-auto-turns");
    // The user's prompt inside the same turn starts a new episode with a fresh budget.
    await s.prompt("also cover the edge case");
    await s.plan(["completed", "in_progress"]);
    expect((await s.stop({ stop_hook_active: true })).stdout).not.toBe("");
  });

  it("steps aside while the thread's Codex goal is active, and logs why", async () => {
    const s = session();
    await s.prompt();
    await s.plan(["in_progress", "pending"]);
    s.rollout.push(goalLine("active"), taskStarted(TURN, null));
    const stepped = await s.stop();
    expect(stepped.stdout).toBe("");
    expect(stepped.stderr.join("\n")).toContain("host-goal-active");
    const log = await s.store.readLog(scope);
    expect(log.at(-1)).toMatchObject({ action: "skip", reason: "host-goal-active" });
    // The goal's own continuation turns: still not ours to block.
    s.newTurn("goal-turn-1");
    s.rollout.push(taskStarted("goal-turn-1", "goal"));
    expect((await s.stop()).stdout).toBe("");
    // Paused (or complete, or out of budget): the list is ours again.
    s.newTurn("turn-3");
    s.rollout.push(goalLine("paused"), taskStarted("turn-3", null));
    await s.plan(["completed", "in_progress"]);
    expect(reasonOf((await s.stop()).stdout)).toContain("step 2");
  });

  it("does not answer the agent's closing question with a nudge", async () => {
    const s = session();
    await s.prompt();
    await s.plan(["pending"]);
    const response = await s.stop({ last_assistant_message: "Should I also update the docs?" });
    expect(response.stdout).toBe("");
    expect(response.stderr.join("\n")).toContain("awaiting-user");
  });

  it("charges the rollout's token growth between stops against the budget", async () => {
    const s = session({ limits: { maxTokens: 1000, stagnationLimit: 100, maxAutoTurns: 100 } });
    await s.prompt();
    await s.plan(["pending"]);
    const count = (input: number, output: number) =>
      JSON.stringify({
        type: "event_msg",
        payload: {
          type: "token_count",
          info: {
            total_token_usage: {
              input_tokens: input,
              cached_input_tokens: 0,
              output_tokens: output,
            },
          },
        },
      });
    s.rollout.push(count(100, 10));
    expect((await s.stop()).stdout).not.toBe("");
    s.rollout.push(count(2100, 20));
    const over = await s.stop({ stop_hook_active: true });
    expect(over.stdout).toBe("");
    expect(over.stderr.join("\n")).toContain("max-tokens");
  });

  it("fails open: bad input allows the stop with one stderr line and exit 0", async () => {
    const s = session();
    const response = await runCodexHookText("{not json", { store: s.store });
    expect(response).toMatchObject({ stdout: "", exitCode: 0 });
    expect(response.stderr).toHaveLength(1);
    expect(response.stderr[0]).toContain("allowing the stop");
    await s.prompt();
    const bad = await s.plan(["maybe"]);
    expect(bad.stderr[0]).toContain("plan[0].status");
    expect((await s.store.read(scope)).todosRevision).toBe(0);
  });
});
