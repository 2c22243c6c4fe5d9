import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveScope } from "../../core/scope/scope.js";
import type { Scope } from "../../core/types.js";
import { createFileStore } from "../../store/file/index.js";
import { MemoryStore } from "../../store/memory/memory-store.js";
import { closeInstructionFor } from "../claude-code/todos.js";
import {
  AGENT_SDK_HOOK_EVENTS,
  type AgentSdkHookInput,
  type AgentSdkHooks,
  todoContinuationHooks,
} from "./hooks.js";

const SESSION = "5f1c2a7e-0d4b-4c1e-9a43-6b2f0e7d9c11";
const scope = resolveScope({ kind: "session", host: "claude-code", sessionId: SESSION }) as Scope;

let root: string;
let project: string;
let lines: string[];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "tc-agent-sdk-unit-"));
  project = join(root, "project");
  lines = [];
  writeFileSync(join(root, "transcript.jsonl"), "");
  // A project folder with nothing in it yet: the store folder is created on first write.
  mkdirSync(project);
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Calls the first callback registered for `event`, as the SDK does, with an SDK-shaped input. */
async function call(hooks: AgentSdkHooks, input: Record<string, unknown>) {
  const event = input.hook_event_name as keyof AgentSdkHooks;
  const matcher = hooks[event][0];
  if (matcher === undefined) throw new Error(`no matcher for ${event}`);
  const callback = matcher.hooks[0];
  if (callback === undefined) throw new Error(`no callback for ${event}`);
  return callback(input as unknown as AgentSdkHookInput, input.tool_use_id as string | undefined, {
    signal: new AbortController().signal,
  });
}

const base = () => ({
  session_id: SESSION,
  transcript_path: join(root, "transcript.jsonl"),
  cwd: project,
  permission_mode: "bypassPermissions",
});

const prompt = () => ({
  ...base(),
  hook_event_name: "UserPromptSubmit",
  prompt: "Do the work",
  source: "sdk",
});

const todoWrite = (statuses: string[], extra: Record<string, unknown> = {}) => ({
  ...base(),
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
  tool_use_id: "toolu_01",
  ...extra,
});

const stop = () => ({
  ...base(),
  hook_event_name: "Stop",
  stop_hook_active: false,
  last_assistant_message: "I have started.",
  background_tasks: [],
  session_crons: [],
});

const storeRoot = () => join(project, ".claude", "todo-continuation");

async function readStored() {
  const store = createFileStore({ root: storeRoot() });
  try {
    return { snapshot: await store.read(scope), log: await store.readLog(scope) };
  } finally {
    await store.close();
  }
}

describe("todoContinuationHooks", () => {
  it("registers the Claude Code hook's events, the list tools as the PostToolUse matcher", () => {
    const hooks = todoContinuationHooks({ log: () => undefined });
    expect(Object.keys(hooks).sort()).toEqual([...AGENT_SDK_HOOK_EVENTS].sort());
    expect(hooks.PostToolUse[0]?.matcher).toBe("TodoWrite|TaskCreate|TaskUpdate");
    expect(hooks.SessionStart[0]?.matcher).toBe("resume");
    expect(hooks.Stop[0]?.timeout).toBe(30);
  });

  it("blocks a stop with open items, the nudge as the reason, in the project's store folder", async () => {
    const hooks = todoContinuationHooks({ log: (line) => lines.push(line) });
    expect(await call(hooks, prompt())).toEqual({});
    expect(await call(hooks, todoWrite(["in_progress", "pending"]))).toEqual({});
    const answer = await call(hooks, stop());
    expect(answer.decision).toBe("block");
    expect(answer.reason).toContain("item 1");
    expect(answer.reason).toContain("item 2");
    expect(answer.reason).toContain(closeInstructionFor("todo-write"));
    expect(lines).toEqual([expect.stringContaining("stop blocked with nudge 1 of episode")]);
    const { snapshot, log } = await readStored();
    expect(snapshot.todos.todos.map((t) => t.status)).toEqual(["in_progress", "pending"]);
    expect(log.map((e) => e.action)).toEqual(["inject"]);
  });

  it("lets the stop go once every item is done", async () => {
    const hooks = todoContinuationHooks({ log: (line) => lines.push(line) });
    await call(hooks, prompt());
    await call(hooks, todoWrite(["completed", "completed"]));
    expect(await call(hooks, stop())).toEqual({});
    expect(lines).toEqual(["todo-continuation: stop allowed (no-incomplete-todos)"]);
  });

  it("never blocks a subagent's stop, nor lets a subagent's list touch the parent's", async () => {
    const store = new MemoryStore();
    const hooks = todoContinuationHooks({ store, log: (line) => lines.push(line) });
    await call(hooks, prompt());
    await call(hooks, todoWrite(["in_progress", "pending"]));
    await call(hooks, todoWrite(["completed", "completed"], { agent_id: "a1b2", agent_type: "x" }));
    const subagentStop = {
      ...stop(),
      hook_event_name: "SubagentStop",
      agent_id: "a1b2",
      agent_type: "general-purpose",
      agent_transcript_path: join(root, "agent.jsonl"),
    };
    expect(await call(hooks, subagentStop)).toEqual({});
    const snapshot = await store.read(scope);
    expect(snapshot.todos.todos.map((t) => t.status)).toEqual(["in_progress", "pending"]);
    expect(await store.readLog(scope)).toEqual([]);
    // The parent's own stop is still decided, from the parent's list.
    expect((await call(hooks, stop())).decision).toBe("block");
  });

  it("allows the stop on bad input, says why, and keeps what was stored", async () => {
    const hooks = todoContinuationHooks({ log: (line) => lines.push(line) });
    await call(hooks, prompt());
    await call(hooks, todoWrite(["in_progress"]));
    const bad = { ...stop(), session_id: 42 };
    expect(await call(hooks, bad)).toEqual({});
    expect(lines).toEqual([
      "todo-continuation: hook failed, allowing the stop: hook input: session_id must be a non-empty string, got number",
    ]);
    const { snapshot } = await readStored();
    expect(snapshot.todos.todos).toHaveLength(1);
  });

  it("allows the stop when the store cannot be read", async () => {
    // A file where the store's folder should be: every open or read fails.
    mkdirSync(join(project, ".claude"));
    writeFileSync(storeRoot(), "not a folder");
    const hooks = todoContinuationHooks({ log: (line) => lines.push(line) });
    expect(await call(hooks, todoWrite(["in_progress"]))).toEqual({});
    expect(await call(hooks, stop())).toEqual({});
    expect(lines.length).toBeGreaterThan(0);
    expect(
      lines.every((l) => l.startsWith("todo-continuation: hook failed, allowing the stop")),
    ).toBe(true);
  });

  it("keeps a session's store where its first event was, after the agent changes folder", async () => {
    const sub = join(project, "src");
    mkdirSync(sub);
    const hooks = todoContinuationHooks({ log: () => undefined });
    await call(hooks, prompt());
    await call(hooks, { ...todoWrite(["pending"]), cwd: sub });
    expect(existsSync(join(sub, ".claude"))).toBe(false);
    expect((await readStored()).snapshot.todos.todos).toHaveLength(1);
  });

  it("keeps the store in dir when given", async () => {
    const dir = join(root, "elsewhere");
    const hooks = todoContinuationHooks({ dir, log: () => undefined });
    await call(hooks, prompt());
    await call(hooks, todoWrite(["pending"]));
    expect(existsSync(storeRoot())).toBe(false);
    const store = createFileStore({ root: dir });
    try {
      expect((await store.read(scope)).todos.todos).toHaveLength(1);
    } finally {
      await store.close();
    }
  });

  it("reads the project config: its preset and limits apply, a flag's preset wins", async () => {
    writeFileSync(
      join(project, "todo-continuation.config.json"),
      JSON.stringify({ limits: { maxAutoTurns: 1 } }),
    );
    const hooks = todoContinuationHooks({ log: (line) => lines.push(line) });
    await call(hooks, prompt());
    await call(hooks, todoWrite(["in_progress", "pending"]));
    expect((await call(hooks, stop())).decision).toBe("block");
    await call(hooks, todoWrite(["completed", "in_progress"]));
    expect(await call(hooks, { ...stop(), stop_hook_active: true })).toEqual({});
    expect(lines.at(-1)).toContain("max-auto-turns");
  });

  it("reports a config that does not validate, and nudges nothing", async () => {
    writeFileSync(
      join(project, "todo-continuation.config.json"),
      JSON.stringify({ limits: { maxAutoTurns: "lots" } }),
    );
    const hooks = todoContinuationHooks({ log: (line) => lines.push(line) });
    await call(hooks, prompt());
    await call(hooks, todoWrite(["in_progress"]));
    expect(await call(hooks, stop())).toEqual({});
    expect(lines.at(-1)).toContain("stop allowed (config-invalid)");
  });
});
