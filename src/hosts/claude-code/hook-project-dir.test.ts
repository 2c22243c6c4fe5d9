import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { resolveScope } from "../../core/scope/scope.js";
import type { Scope } from "../../core/types.js";
import { createFileStore } from "../../store/file/file-store.js";
import type { HookIo } from "../hook-kit/process.js";
import { runClaudeCodeHook } from "./hook.js";

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

const SESSION = "5f1b7c1e-0000-4000-8000-0000000000aa";
const scope = resolveScope({ kind: "session", host: "claude-code", sessionId: SESSION }) as Scope;

/** One event through the whole hook process; `cwd` only in the payload (the process runs elsewhere). */
async function send(
  storeDir: string,
  cwd: string,
  event: Record<string, unknown>,
  flags: string[] = [],
) {
  const sink = { write: () => {} };
  const io: HookIo = {
    stdout: sink,
    stderr: sink,
    stdin: Readable.from([Buffer.from(JSON.stringify({ session_id: SESSION, cwd, ...event }))]),
    env: { HOME: join(storeDir, "home") },
    cwd: storeDir,
  };
  return runClaudeCodeHook(["claude-code", "--dir", storeDir, ...flags], io);
}

describe("hook claude-code: the session's project folder", () => {
  it("records the payload's cwd in the scope's state, even in a user-wide store", async () => {
    const storeDir = temp("cc-store-");
    const project = temp("cc-project-");
    await send(storeDir, project, {
      hook_event_name: "PostToolUse",
      tool_name: "TodoWrite",
      tool_input: { todos: [{ content: "A", status: "pending", activeForm: "A" }] },
      tool_response: {},
    });
    await send(storeDir, project, { hook_event_name: "Stop", last_assistant_message: "Later." });
    const store = createFileStore({ root: storeDir });
    try {
      expect((await store.read(scope)).state.projectDir).toBe(project);
    } finally {
      await store.close();
    }
  });

  it("records the command's --preset, so readers judge the scope by it; none without one", async () => {
    const storeDir = temp("cc-store-");
    const project = temp("cc-project-");
    const list = {
      hook_event_name: "PostToolUse",
      tool_name: "TodoWrite",
      tool_input: { todos: [{ content: "A", status: "pending", activeForm: "A" }] },
      tool_response: {},
    };
    await send(storeDir, project, list);
    const store = createFileStore({ root: storeDir });
    try {
      expect((await store.read(scope)).state.presetOption).toBeUndefined();
      await send(storeDir, project, list, ["--preset", "typeclaw"]);
      await send(storeDir, project, { hook_event_name: "Stop", last_assistant_message: "Later." }, [
        "--preset",
        "typeclaw",
      ]);
      expect((await store.read(scope)).state.presetOption).toBe("typeclaw");
    } finally {
      await store.close();
    }
  });
});
