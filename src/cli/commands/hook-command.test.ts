import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../test-support/run-cli.js";

const folders: string[] = [];

afterAll(async () => {
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

function event(cwd: string, fields: Record<string, unknown>): string {
  return JSON.stringify({
    session_id: "wired-1",
    transcript_path: join(cwd, "none.jsonl"),
    cwd,
    ...fields,
  });
}

describe("hook claude-code (wired through the dispatcher)", () => {
  it("records a TodoWrite and blocks the stop with a nudge, in the folder --dir names", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tc-cli-hook-"));
    folders.push(dir);
    const todos = [
      { content: "Write the docs", status: "pending", activeForm: "Writing the docs" },
    ];
    const posted = await runCli(["--dir", dir, "hook", "claude-code"], {
      input: event(dir, {
        hook_event_name: "PostToolUse",
        tool_name: "TodoWrite",
        tool_input: { todos },
        tool_response: { oldTodos: [], newTodos: todos },
      }),
    });
    expect(posted.code).toBe(0);
    const stop = await runCli(["--dir", dir, "hook", "claude-code"], {
      input: event(dir, {
        hook_event_name: "Stop",
        stop_hook_active: false,
        last_assistant_message: "Done for now.",
      }),
    });
    expect(stop.code).toBe(0);
    const answer = JSON.parse(stop.stdout) as { decision: string; reason: string };
    expect(answer.decision).toBe("block");
    expect(answer.reason).toContain("Write the docs");
    const log = JSON.parse((await runCli(["--dir", dir, "log", "wired-1", "--json"])).stdout);
    expect(log.entries).toHaveLength(1);
    expect(log.entries[0]).toMatchObject({ action: "inject", trigger: "stop-hook" });
  });

  it("prints the hook's own help", async () => {
    const run = await runCli(["hook", "claude-code", "--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Usage: todo-continuation hook claude-code");
  });
});

describe("hook gemini (wired through the dispatcher)", () => {
  it("records a write_todos and blocks an early AfterAgent, in the folder --dir names", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tc-cli-gemini-"));
    folders.push(dir);
    const base = { session_id: "gem-wired-1", cwd: dir, timestamp: "now" };
    const tool = await runCli(["--dir", dir, "hook", "gemini"], {
      input: JSON.stringify({
        ...base,
        hook_event_name: "AfterTool",
        tool_name: "write_todos",
        tool_input: { todos: [{ description: "Write the docs", status: "pending" }] },
      }),
      env: { TODO_CONTINUATION_GEMINI_CHILDREN: dir },
    });
    expect(tool).toMatchObject({ code: 0, stdout: "{}\n" });
    const stop = await runCli(["--dir", dir, "hook", "gemini"], {
      input: JSON.stringify({
        ...base,
        hook_event_name: "AfterAgent",
        prompt: "Write the docs.",
        prompt_response: "Stopping here.",
        stop_hook_active: false,
      }),
      env: { TODO_CONTINUATION_GEMINI_CHILDREN: dir },
    });
    expect(stop.code).toBe(0);
    const answer = JSON.parse(stop.stdout) as { decision: string; reason: string };
    expect(answer.decision).toBe("block");
    expect(answer.reason).toContain("Write the docs");
  });

  it("prints the Gemini hook's help, and install gemini's", async () => {
    expect((await runCli(["hook", "gemini", "--help"])).stdout).toContain(
      "Usage: todo-continuation hook gemini",
    );
    expect((await runCli(["install", "gemini", "--help"])).stdout).toContain(
      "Usage: todo-continuation install gemini",
    );
  });
});
