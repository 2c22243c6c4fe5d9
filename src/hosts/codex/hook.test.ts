import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { resolveScope } from "../../core/scope/scope.js";
import type { Scope } from "../../core/types.js";
import { createFileStore } from "../../store/file/index.js";
import { parseCodexHookArgs, runCodexHook } from "./hook.js";

const folders: string[] = [];
afterAll(async () => {
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

/** What the session's decision log holds, a reason (or action) per decision. */
async function decisions(project: string, sessionId: string): Promise<string[]> {
  const store = createFileStore({ root: join(project, ".codex", "todo-continuation") });
  try {
    const scope = resolveScope({ kind: "session", host: "codex", sessionId }) as Scope;
    return (await store.readLog(scope)).map((e) => e.reason ?? e.action);
  } finally {
    await store.close();
  }
}

function io(input: string, env: Record<string, string | undefined> = {}) {
  const out = { stdout: "", stderr: "" };
  return {
    out,
    io: {
      stdout: { write: (t: string) => (out.stdout += t) },
      stderr: { write: (t: string) => (out.stderr += t) },
      stdin: Readable.from([input]),
      env,
      cwd: "/nonexistent",
    },
  };
}

describe("runCodexHook", () => {
  it("reads its options, refusing two stores at once", () => {
    expect(parseCodexHookArgs(["codex", "--preset", "omo", "--dir", "d"])).toMatchObject({
      preset: "omo",
      dir: "d",
    });
    expect(() => parseCodexHookArgs(["--dir", "d", "--database-url", "postgres://x"])).toThrow(
      /two different stores/,
    );
    expect(() => parseCodexHookArgs(["extra"])).toThrow(/unexpected argument/);
  });

  it("keeps the store in the session's project by default and blocks an open plan", async () => {
    const project = await mkdtemp(join(tmpdir(), "tc-codex-hook-"));
    folders.push(project);
    const base = { session_id: "s-1", turn_id: "t-1", cwd: project };
    const plan = io(
      JSON.stringify({
        ...base,
        hook_event_name: "PostToolUse",
        tool_name: "update_plan",
        tool_input: { plan: [{ step: "ship it", status: "pending" }] },
      }),
    );
    expect(await runCodexHook([], plan.io)).toBe(0);
    const stop = io(JSON.stringify({ ...base, hook_event_name: "Stop" }));
    expect(await runCodexHook([], stop.io)).toBe(0);
    expect(JSON.parse(stop.out.stdout)).toMatchObject({ decision: "block" });
    expect(stop.out.stdout).toContain("ship it");
  });

  it("reads --target, refusing a value that names no settings", () => {
    expect(parseCodexHookArgs(["codex", "--target", "user"]).target).toBe("user");
    expect(parseCodexHookArgs(["--target=project"]).target).toBe("project");
    expect(parseCodexHookArgs([]).target).toBeUndefined();
    expect(() => parseCodexHookArgs(["--target", "global"])).toThrow(/user or project/);
  });

  it("with ours in both configs, one copy decides each event (Codex runs both at once)", async () => {
    const project = await mkdtemp(join(tmpdir(), "tc-codex-twice-"));
    folders.push(project);
    const base = { session_id: "s-2", turn_id: "t-1", cwd: project };
    const event = (payload: object) => JSON.stringify({ ...base, ...payload });
    const plan = event({
      hook_event_name: "PostToolUse",
      tool_name: "update_plan",
      tool_use_id: "call_1",
      tool_input: { plan: [{ step: "ship it", status: "pending" }] },
    });
    const stop = event({ hook_event_name: "Stop", last_assistant_message: "Stopping here." });
    /** Both copies, the user's first or the project's, as Codex happens to start them. */
    const both = async (input: string, first: "user" | "project") => {
      const second = first === "user" ? "project" : "user";
      const runs = [io(input), io(input)];
      await runCodexHook(["--target", first], runs[0]?.io as never);
      await runCodexHook(["--target", second], runs[1]?.io as never);
      return runs.map((r) => r.out);
    };
    await both(plan, "user");
    const [a, b] = await both(stop, "project");
    expect(JSON.parse(a?.stdout ?? "")).toMatchObject({ decision: "block" });
    expect(b?.stdout).toBe("");
    expect(b?.stderr).toContain(
      "handled by another installed copy of this hook (this one is in the user's settings)",
    );
    // The next stop of the turn (the nudge answered with the same words): decided again, once.
    const again = event({
      hook_event_name: "Stop",
      last_assistant_message: "Stopping here.",
      stop_hook_active: true,
    });
    const [c, d] = await both(again, "user");
    expect(c?.stderr).not.toContain("handled by another");
    expect(d?.stderr).toContain(
      "handled by another installed copy of this hook (this one is in the project's settings)",
    );
    // One decision per stop: the second (no progress since the nudge) lets the agent go.
    expect(await decisions(project, "s-2")).toEqual(["inject", "stagnation"]);
  });

  it("with ours installed once, an event repeated word for word is decided each time", async () => {
    const project = await mkdtemp(join(tmpdir(), "tc-codex-once-"));
    folders.push(project);
    const base = { session_id: "s-3", turn_id: "t-1", cwd: project };
    const plan = io(
      JSON.stringify({
        ...base,
        hook_event_name: "PostToolUse",
        tool_name: "update_plan",
        tool_input: { plan: [{ step: "ship it", status: "pending" }] },
      }),
    );
    await runCodexHook(["--target", "project"], plan.io);
    const stop = JSON.stringify({ ...base, hook_event_name: "Stop", stop_hook_active: true });
    const first = io(stop);
    const second = io(stop);
    await runCodexHook(["--target", "project"], first.io);
    await runCodexHook(["--target", "project"], second.io);
    expect(first.out.stdout).toContain("block");
    expect(second.out.stderr).not.toContain("handled by another");
    expect(await decisions(project, "s-3")).toEqual(["inject", "stagnation"]);
  });

  it("never fails closed: bad options or input exit 0 with one stderr line", async () => {
    const badArgs = io("{}");
    expect(await runCodexHook(["--nope"], badArgs.io)).toBe(0);
    expect(badArgs.out.stdout).toBe("");
    expect(badArgs.out.stderr.trim().split("\n")).toHaveLength(1);
    const unreachable = io(
      JSON.stringify({ session_id: "s", turn_id: "t", cwd: "/", hook_event_name: "Stop" }),
    );
    expect(
      await runCodexHook(["--database-url", "postgres://127.0.0.1:1/none"], unreachable.io),
    ).toBe(0);
    expect(unreachable.out.stdout).toBe("");
    expect(unreachable.out.stderr).toContain("allowing the stop");
  });
});
