import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { parseGeminiHookArgs, runGeminiHook } from "./hook.js";

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});
function temp(prefix: string) {
  const d = mkdtempSync(join(tmpdir(), prefix));
  made.push(d);
  return d;
}

async function hook(argv: string[], input: string, env: Record<string, string> = {}) {
  let stdout = "";
  let stderr = "";
  const project = temp("gem-hook-p-");
  const code = await runGeminiHook(argv, {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    stdin: Readable.from([input]),
    env: {
      GEMINI_PROJECT_DIR: project,
      TODO_CONTINUATION_GEMINI_CHILDREN: temp("gem-hook-c-"),
      ...env,
    },
    cwd: project,
  });
  return { code, stdout, stderr, project };
}

const event = (fields: Record<string, unknown>) =>
  JSON.stringify({ session_id: "s1", cwd: undefined, ...fields });

describe("runGeminiHook", () => {
  it("fails open: bad input allows the stop with {} and one line on stderr, exit 0", async () => {
    const bad = await hook([], "not json");
    expect(bad).toMatchObject({ code: 0, stdout: "{}\n" });
    expect(bad.stderr.trim().split("\n")).toHaveLength(1);
    expect(bad.stderr).toContain("hook failed, allowing the stop");
    const badArgs = await hook(["--bogus"], event({ hook_event_name: "AfterAgent" }));
    expect(badArgs).toMatchObject({ code: 0, stdout: "{}\n" });
    const notADir = join(temp("gem-hook-f-"), "file");
    writeFileSync(notADir, "");
    const badStore = await hook(
      ["--dir", join(notADir, "store")],
      event({
        hook_event_name: "AfterTool",
        tool_name: "write_todos",
        tool_input: { todos: [{ description: "a", status: "pending" }] },
      }),
    );
    expect(badStore).toMatchObject({ code: 0, stdout: "{}\n" });
    expect(badStore.stderr).toContain("hook failed");
  });

  it("keeps the list in the project's .gemini folder and blocks an early stop", async () => {
    const write = await hook(
      [],
      event({
        hook_event_name: "AfterTool",
        tool_name: "write_todos",
        tool_input: { todos: [{ description: "a", status: "pending" }] },
      }),
    );
    expect(existsSync(join(write.project, ".gemini", "todo-continuation"))).toBe(true);
    const dir = join(write.project, ".gemini", "todo-continuation");
    const stop = await hook(
      ["--dir", dir],
      event({ hook_event_name: "AfterAgent", prompt: "p", prompt_response: "Bye." }),
    );
    expect(JSON.parse(stop.stdout)).toMatchObject({ decision: "block" });
  });

  it("with two commands of ours for one event (two package copies), one answers it", async () => {
    const store = join(temp("gem-hook-twice-"), "store");
    const global = ["--dir", store, "--target", "user"];
    const local = ["--dir", store];
    const children = { TODO_CONTINUATION_GEMINI_CHILDREN: temp("gem-hook-c-") };
    const twice = async (input: string) => [
      await hook(local, input, children),
      await hook(global, input, children),
    ];
    await twice(
      event({
        hook_event_name: "AfterTool",
        tool_name: "write_todos",
        tool_input: { todos: [{ description: "a", status: "pending" }] },
      }),
    );
    const [a, b] = await twice(
      event({ hook_event_name: "AfterAgent", prompt: "p", prompt_response: "Bye." }),
    );
    expect(JSON.parse(a?.stdout ?? "")).toMatchObject({ decision: "block" });
    // Gemini reads JSON from every hook: the twin says nothing in it.
    expect(b?.stdout).toBe("{}\n");
    expect(b?.stderr).toContain("handled by another installed copy of this hook");
  });

  it("opens no store for events that do not need one", async () => {
    const other = await hook(
      [],
      event({ hook_event_name: "BeforeTool", tool_name: "invoke_agent", tool_input: {} }),
    );
    expect(other.stdout).toBe("{}\n");
    expect(existsSync(join(other.project, ".gemini"))).toBe(false);
  });

  it("prints its usage and reads its options", async () => {
    expect((await hook(["--help"], "")).stdout).toContain("Usage: todo-continuation hook gemini");
    expect(parseGeminiHookArgs(["gemini", "--preset", "parley"]).preset).toBe("parley");
    expect(() => parseGeminiHookArgs(["--dir", "a", "--database-url", "b"])).toThrow(/only one/);
  });
});
