import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { parseCodexHookArgs, runCodexHook } from "./hook.js";

const folders: string[] = [];
afterAll(async () => {
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

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
