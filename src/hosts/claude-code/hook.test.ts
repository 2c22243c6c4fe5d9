import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { resolveScope } from "../../core/scope/scope.js";
import type { Scope } from "../../core/types.js";
import { createFileStore } from "../../store/file/index.js";
import type { HookIo } from "../hook-kit/process.js";
import { parseHookArgs, runClaudeCodeHook } from "./hook.js";

const made: string[] = [];
/** A temp folder removed when the file's tests end. */
function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

const SESSION = "5f1b7c1e-0000-4000-8000-000000000001";

function io(stdin: string, env: Record<string, string | undefined>, cwd: string) {
  let stdout = "";
  let stderr = "";
  const value: HookIo = {
    stdout: {
      write: (t: string) => {
        stdout += t;
      },
    },
    stderr: {
      write: (t: string) => {
        stderr += t;
      },
    },
    stdin: Readable.from([Buffer.from(stdin)]),
    env,
    cwd,
  };
  return { io: value, out: () => stdout, err: () => stderr };
}

function project() {
  const dir = temp("cc-hook-");
  mkdirSync(join(dir, ".git"));
  return dir;
}

async function send(dir: string, event: Record<string, unknown>, argv: string[] = ["claude-code"]) {
  const run = io(
    JSON.stringify({ session_id: SESSION, cwd: dir, ...event }),
    { CLAUDE_PROJECT_DIR: dir, HOME: join(dir, "home") },
    dir,
  );
  const code = await runClaudeCodeHook(argv, run.io);
  return { code, stdout: run.out(), stderr: run.err() };
}

describe("todo-continuation hook claude-code", () => {
  it("keeps its state in the project's folder, git-ignored without editing the project's .gitignore", async () => {
    const dir = project();
    await send(dir, { hook_event_name: "UserPromptSubmit", prompt: "go" });
    await send(dir, {
      hook_event_name: "PostToolUse",
      tool_name: "TodoWrite",
      tool_input: { todos: [{ content: "A", status: "pending", activeForm: "A" }] },
      tool_response: {},
    });
    const stop = await send(dir, { hook_event_name: "Stop", last_assistant_message: "Later." });
    expect(stop.code).toBe(0);
    expect(JSON.parse(stop.stdout)).toMatchObject({ decision: "block" });
    expect(stop.stdout.endsWith("}\n")).toBe(true);
    expect(stop.stderr).toMatch(/stop blocked/);
    expect(existsSync(join(dir, ".claude", "todo-continuation", "todo"))).toBe(true);
    expect(existsSync(join(dir, ".gitignore"))).toBe(false);
    expect(readFileSync(join(dir, ".claude", "todo-continuation", ".gitignore"), "utf8")).toMatch(
      /^\*$/m,
    );
  });

  it("with two commands of ours for one event (two package copies), one decides each stop", async () => {
    const dir = project();
    // Claude Code runs both commands, side by side, with one payload; the two differ (here in
    // their arguments; two copies of the package differ in their path).
    const both = async (event: Record<string, unknown>, first: string[], second: string[]) => [
      await send(dir, event, first),
      await send(dir, event, second),
    ];
    const global = ["claude-code", "--target", "user"];
    const local = ["claude-code"];
    await both(
      {
        hook_event_name: "PostToolUse",
        tool_name: "TodoWrite",
        tool_use_id: "t1",
        tool_input: { todos: [{ content: "A", status: "pending", activeForm: "A" }] },
        tool_response: {},
      },
      local,
      global,
    );
    const stop = { hook_event_name: "Stop", last_assistant_message: "Later." };
    const [a, b] = await both(stop, global, local);
    expect(JSON.parse(a?.stdout ?? "")).toMatchObject({ decision: "block" });
    expect(b?.stdout).toBe("");
    expect(b?.stderr).toContain("handled by another installed copy of this hook");
    // The nudge answered with the same words: the next stop, decided once again.
    const [c, d] = await both({ ...stop, stop_hook_active: true }, local, global);
    expect(c?.stderr).not.toContain("another installed copy");
    expect(d?.stderr).toContain("another installed copy");
    const store = createFileStore({ root: join(dir, ".claude", "todo-continuation") });
    try {
      const scope = resolveScope({ kind: "session", host: "claude-code", sessionId: SESSION });
      const log = await store.readLog(scope as Scope);
      // Decided twice each, the second stop would be `stagnation` after an `inject` twice over.
      expect(log.map((e) => e.reason ?? e.action)).toEqual(["inject", "stagnation"]);
    } finally {
      await store.close();
    }
  });

  it("passes the preset through", async () => {
    const dir = project();
    const argv = ["claude-code", "--preset", "typeclaw"];
    await send(dir, { hook_event_name: "UserPromptSubmit", prompt: "go" }, argv);
    await send(
      dir,
      {
        hook_event_name: "PostToolUse",
        tool_name: "TodoWrite",
        tool_input: { todos: [{ content: "A", status: "pending" }] },
      },
      argv,
    );
    const stop = await send(
      dir,
      { hook_event_name: "Stop", last_assistant_message: "Later." },
      argv,
    );
    // The typeclaw preset renders its fenced system block.
    expect(JSON.parse(stop.stdout).reason).toMatch(/SYSTEM/);
  });

  it("exits 0 and allows the stop on every failure", async () => {
    const dir = project();
    const bad = await send(dir, { hook_event_name: "Stop", session_id: 5 });
    expect(bad).toMatchObject({ code: 0, stdout: "" });
    expect(bad.stderr).toMatch(/session_id must be a non-empty string/);
    const badPreset = await send(dir, { hook_event_name: "UserPromptSubmit", prompt: "go" }, [
      "claude-code",
      "--preset",
      "nope",
    ]);
    expect(badPreset).toMatchObject({ code: 0, stdout: "" });
    expect(badPreset.stderr).toMatch(/nope/);
    const badFlag = await send(dir, { hook_event_name: "Stop" }, ["claude-code", "--frobnicate"]);
    expect(badFlag).toMatchObject({ code: 0, stdout: "" });
    expect(badFlag.stderr).toMatch(/frobnicate/);
  });

  it("does not even open the store for events it ignores", async () => {
    const dir = project();
    const out = await send(dir, { hook_event_name: "SubagentStop", agent_id: "a" });
    expect(out).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(existsSync(join(dir, ".claude", "todo-continuation"))).toBe(false);
  });
});

describe("parseHookArgs", () => {
  it("accepts the host name first and the store options", () => {
    expect(parseHookArgs(["claude-code", "--dir", "/d", "--nudge-after-questions"])).toMatchObject({
      dir: "/d",
      nudgeAfterQuestions: true,
    });
    expect(() => parseHookArgs(["opencode"])).toThrow(/unexpected argument "opencode"/);
  });
});
