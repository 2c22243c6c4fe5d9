import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../test-support/run-cli.js";

const folders: string[] = [];
afterAll(async () => {
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

async function folder(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  folders.push(dir);
  return dir;
}

function event(cwd: string, fields: Record<string, unknown>): string {
  return JSON.stringify({
    session_id: "01a2164d-bf88-7433-8fc1-99e5806455da",
    turn_id: "01a2164d-c04b-78d2-9ee2-1ed8d68352a8",
    cwd,
    model: "scripted",
    permission_mode: "bypassPermissions",
    ...fields,
  });
}

describe("hook codex and install codex (wired through the dispatcher)", () => {
  it("records an update_plan and blocks the stop with a nudge, in the folder --dir names", async () => {
    const dir = await folder("tc-cli-codex-hook-");
    const posted = await runCli(["--dir", dir, "hook", "codex"], {
      input: event(dir, {
        hook_event_name: "PostToolUse",
        tool_name: "update_plan",
        tool_input: { plan: [{ step: "Write the docs", status: "pending" }] },
        tool_response: "Plan updated",
      }),
    });
    expect(posted.code).toBe(0);
    const stop = await runCli(["--dir", dir, "hook", "codex"], {
      input: event(dir, { hook_event_name: "Stop", stop_hook_active: false }),
    });
    expect(stop.code).toBe(0);
    const decision = JSON.parse(stop.stdout) as { decision: string; reason: string };
    expect(decision.decision).toBe("block");
    expect(decision.reason).toContain("Write the docs");
  });

  it("fails open on bad input: exit 0, nothing on stdout, one line on stderr", async () => {
    const run = await runCli(["hook", "codex"], { input: "not json" });
    expect(run).toMatchObject({ code: 0, stdout: "" });
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("installs into the project's .codex/config.toml and the user's trust, then removes both", async () => {
    const root = await folder("tc-cli-codex-install-");
    const project = join(root, "project");
    const codexHome = join(root, "codex-home");
    await mkdir(project, { recursive: true });
    const env = { CODEX_HOME: codexHome, HOME: root };
    const install = await runCli(["install", "codex", "--project-dir", project], { env });
    expect(install.stderr).toBe("");
    expect(install.code).toBe(0);
    const config = await readFile(join(project, ".codex", "config.toml"), "utf8");
    expect(config).toContain("[[hooks.Stop]]");
    expect(await readFile(join(codexHome, "config.toml"), "utf8")).toContain("trusted_hash");
    const uninstall = await runCli(["uninstall", "codex", "--project-dir", project], { env });
    expect(uninstall.code).toBe(0);
    expect(await readFile(join(codexHome, "config.toml"), "utf8").catch(() => "")).toBe("");
  });
});
