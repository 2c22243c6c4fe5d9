import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveScope } from "../../core/scope/scope.js";
import type { Scope } from "../../core/types.js";
import { createFileStore } from "../../store/file/index.js";
import type { HookIo } from "../hook-kit/process.js";
import { VERIFY_CACHE_FOLDER } from "../hook-kit/project.js";
import { type VerifyFixture, verifyFixture } from "../test-support/verify-project.js";
import { runClaudeCodeHook } from "./hook.js";
import { PROJECT_STORE_FOLDER } from "./store-location.js";

const SESSION = "5f1b7c1e-0000-4000-8000-00000000a0a1";
const scope = resolveScope({ kind: "session", host: "claude-code", sessionId: SESSION }) as Scope;

let fx: VerifyFixture;
beforeEach(() => {
  fx = verifyFixture();
});
afterEach(() => fx.cleanup());

async function send(event: Record<string, unknown>, argv: string[] = ["claude-code"]) {
  let stdout = "";
  let stderr = "";
  const io: HookIo = {
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
    stdin: Readable.from([
      Buffer.from(JSON.stringify({ session_id: SESSION, cwd: fx.dir, ...event })),
    ]),
    env: { ...fx.env, CLAUDE_PROJECT_DIR: fx.dir },
    cwd: fx.dir,
  };
  await runClaudeCodeHook(argv, io);
  return { stdout: stdout.trim(), stderr };
}

const prompt = () => send({ hook_event_name: "UserPromptSubmit", prompt: "do it" });
const todos = (...statuses: string[]) =>
  send({
    hook_event_name: "PostToolUse",
    tool_name: "TodoWrite",
    tool_input: {
      todos: statuses.map((status, i) => ({ content: `item ${i + 1}`, status, activeForm: "x" })),
    },
    tool_response: {},
  });
const stop = (active = false) =>
  send({ hook_event_name: "Stop", stop_hook_active: active, last_assistant_message: "Done." });

async function log() {
  const store = createFileStore({ root: join(fx.dir, PROJECT_STORE_FOLDER) });
  try {
    return await store.readLog(scope);
  } finally {
    await store.close();
  }
}

describe("Claude Code hook with a project verify", () => {
  it("nudges with the failing check, then lets the stop pass as verified once it passes", async () => {
    fx.config({ verify: { command: "test -f done.txt || (echo missing done.txt; exit 3)" } });
    fx.trust();
    await prompt();
    await todos("completed", "completed");
    const first = await stop();
    const decision = JSON.parse(first.stdout);
    expect(decision.decision).toBe("block");
    expect(decision.reason).toContain("missing done.txt");
    expect(decision.reason).toContain("exit");
    writeFileSync(join(fx.dir, "done.txt"), "ok\n");
    const second = await stop(true);
    expect(second.stdout).toBe("");
    expect(second.stderr).toContain("stop allowed (verified)");
    const entries = await log();
    expect(entries.map((e) => e.reason ?? e.action)).toEqual(["inject", "verified"]);
    // The cache lives in the store folder and never shows in git status.
    expect(existsSync(join(fx.dir, PROJECT_STORE_FOLDER, VERIFY_CACHE_FOLDER, ".gitignore"))).toBe(
      true,
    );
  });

  it("runs nothing for an untrusted config, and says what to run once the list is finished", async () => {
    fx.config({ verify: { command: "touch ran.txt; exit 1" } });
    await prompt();
    await todos("completed");
    const out = await stop();
    expect(out.stdout).toBe("");
    expect(out.stderr).toContain("stop allowed (no-incomplete-todos)");
    expect(out.stderr).toMatch(/verify not run: .* is not trusted; run `todo-continuation trust`/);
    expect(existsSync(join(fx.dir, "ran.txt"))).toBe(false);
  });

  it("allows the stop on an invalid config, logging config-invalid with the error", async () => {
    fx.config({ limits: { maxAutoTurns: -1 } });
    await prompt();
    await todos("in_progress", "pending");
    const out = await stop();
    expect(out.stdout).toBe("");
    expect(out.stderr).toContain("stop allowed (config-invalid)");
    expect(out.stderr).toContain("limits.maxAutoTurns");
    const [entry] = await log();
    expect(entry).toMatchObject({ action: "skip", reason: "config-invalid" });
    expect(entry?.note).toContain("limits.maxAutoTurns");
  });

  it("never nudges for a check that runs out of time", async () => {
    fx.config({ verify: { command: "sleep 5", timeoutMs: 1000 } });
    fx.trust();
    await prompt();
    await todos("completed");
    const out = await stop();
    expect(out.stdout).toBe("");
    expect(out.stderr).toContain("stop allowed (verify-timed-out)");
  });

  it("runs no check for a session that tracked no list, nor for a subagent", async () => {
    fx.config({ verify: { command: "touch ran.txt" } });
    fx.trust();
    await prompt();
    expect((await stop()).stdout).toBe("");
    await send({ hook_event_name: "SubagentStop", agent_id: "a1", stop_hook_active: false });
    expect(existsSync(join(fx.dir, "ran.txt"))).toBe(false);
  });

  it("takes the file's preset and limits; the hook's --preset wins over the file's preset", async () => {
    fx.config({ preset: "omo", limits: { maxAutoTurns: 1 } });
    await prompt();
    await todos("in_progress", "pending");
    // omo's nudge carries its status line.
    expect(JSON.parse((await stop()).stdout).reason).toContain("[Status:");
    await todos("completed", "in_progress");
    // The file's maxAutoTurns of 1 holds.
    const out = await stop(true);
    expect(out.stdout).toBe("");
    expect(out.stderr).toContain("max-auto-turns");
    // With --preset default given to the hook, the file's omo no longer applies.
    await prompt();
    await todos("completed", "pending");
    // (Other words than the stops before: the same input from another command a moment after
    // is that command's twin, which leaves the event to the first.)
    const withFlag = await send(
      { hook_event_name: "Stop", stop_hook_active: false, last_assistant_message: "Done now." },
      ["claude-code", "--preset", "default"],
    );
    expect(JSON.parse(withFlag.stdout).reason).not.toContain("[Status:");
  });
});
