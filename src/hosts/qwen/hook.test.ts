import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { captureIo } from "../test-support/hook-io.js";
import { runQwenHook } from "./hook.js";

const project = mkdtempSync(join(tmpdir(), "tc-qwen-hook-"));
afterAll(() => rmSync(project, { recursive: true, force: true }));

async function hook(
  event: Record<string, unknown>,
  env: Record<string, string> = {},
  args: string[] = [],
) {
  const stdin = JSON.stringify({ session_id: "s-1", cwd: project, ...event });
  const { io, out, err } = captureIo(stdin, { CLAUDE_PROJECT_DIR: project, ...env }, project);
  const code = await runQwenHook(["hook", "qwen", ...args], io);
  return { code, stdout: out(), stderr: err() };
}

const stop = {
  hook_event_name: "Stop",
  stop_hook_active: false,
  last_assistant_message: "Pausing.",
};

describe("hook qwen", () => {
  it("keeps the todo_write list in .qwen/todo-continuation and nudges in Qwen's own tool", async () => {
    await hook({ hook_event_name: "UserPromptSubmit", prompt: "go", submitted_prompt: "go" });
    await hook({
      hook_event_name: "PostToolUse",
      tool_name: "todo_write",
      tool_input: { todos: [{ id: "1", content: "Write it", status: "in_progress" }] },
      tool_response: { llmContent: "Todos have been modified successfully." },
    });
    const first = await hook(stop);
    expect(first.code).toBe(0);
    const reply = JSON.parse(first.stdout) as { decision: string; reason: string };
    expect(reply.decision).toBe("block");
    expect(reply.reason).toContain("call todo_write with the whole list");
    expect(reply.reason).toContain("Automatic nudge 1 of 7");
    expect(existsSync(join(project, ".qwen", "todo-continuation"))).toBe(true);
    // The block's reason comes back as a UserPromptSubmit without submitted_prompt: not the user.
    await hook({ hook_event_name: "UserPromptSubmit", prompt: reply.reason });
    await hook({
      hook_event_name: "PostToolUse",
      tool_name: "todo_write",
      tool_input: { todos: [{ id: "1", content: "Write it", status: "completed" }] },
    });
    const done = await hook({ ...stop, stop_hook_active: true });
    expect(done.stdout).toBe("");
    expect(done.stderr).toContain("stop allowed (no-incomplete-todos)");
  });

  it("sends at most one nudge fewer than Qwen's cap, and never more than the preset's own", async () => {
    const nudgeOf = async (session: string, env: Record<string, string>, args: string[]) => {
      const at = { session_id: session };
      await hook(
        { ...at, hook_event_name: "UserPromptSubmit", prompt: "go", submitted_prompt: "go" },
        env,
        args,
      );
      await hook(
        {
          ...at,
          hook_event_name: "PostToolUse",
          tool_name: "todo_write",
          tool_input: { todos: [{ id: "1", content: "Run it", status: "pending" }] },
        },
        env,
        args,
      );
      const reply = await hook({ ...at, ...stop }, env, args);
      return /Automatic nudge 1 of (\d+)/.exec(reply.stdout)?.[1];
    };
    expect(await nudgeOf("cap-3", { QWEN_CODE_STOP_HOOK_BLOCK_CAP: "3" }, [])).toBe("2");
    expect(await nudgeOf("typeclaw", {}, ["--preset", "typeclaw"])).toBe("3");
    expect(
      await nudgeOf("both", { QWEN_CODE_STOP_HOOK_BLOCK_CAP: "3" }, ["--preset", "typeclaw"]),
    ).toBe("2");
  });

  it("ignores a subagent's todo_write and answers bad input with a line on stderr and exit 0", async () => {
    const sub = await hook({
      hook_event_name: "PostToolUse",
      tool_name: "todo_write",
      agent_id: "sub-1",
      tool_input: { todos: [{ id: "1", content: "Sub", status: "pending" }] },
    });
    expect(sub).toEqual({ code: 0, stdout: "", stderr: "" });
    const bad = captureIo("{not json", {}, project);
    expect(await runQwenHook([], bad.io)).toBe(0);
    expect(bad.err()).toMatch(/hook failed, allowing the stop: hook input is not JSON/);
  });
});
