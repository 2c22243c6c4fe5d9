import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { TEST_DATABASE_URL } from "../../store/postgres/test-support/database.js";
import { runCli } from "../test-support/run-cli.js";

const folders: string[] = [];
afterAll(async () => {
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

async function world() {
  const root = await mkdtemp(join(tmpdir(), "tc-doctor-"));
  folders.push(root);
  const project = join(root, "project");
  const home = join(root, "home");
  const bin = join(root, "bin");
  for (const dir of [project, home, bin]) await mkdir(dir);
  await writeFile(join(bin, "pi"), '#!/bin/sh\necho "0.73.1"\n', { mode: 0o755 });
  // No real hosts on PATH: only the fake pi and what node needs.
  const env = {
    HOME: home,
    PATH: `${bin}:${join(process.execPath, "..")}:/usr/bin:/bin`,
    XDG_STATE_HOME: join(root, "state"),
  };
  return { project, home, env };
}

describe("todo-continuation doctor", () => {
  it("prints each problem with its fix and exits 1; after the fix, exits 0", async () => {
    const { project, env } = await world();
    await mkdir(join(project, ".pi"));
    await writeFile(
      join(project, ".pi", "settings.json"),
      '{"extensions":["./node_modules/todo-continuation/dist/hosts/pi/index.js"]}',
    );
    const sick = await runCli(["doctor"], { env, cwd: project });
    expect(sick.code).toBe(1);
    expect(sick.stdout).toMatch(
      /^PROBLEM {2}pi {10}.*does not exist, and runs without todo tools$/m,
    );
    expect(sick.stdout).toMatch(/^ +fix: todo-continuation install pi --project$/m);
    expect(sick.stdout).toMatch(/^1 problem found\.$/m);
    const fix = await runCli(["install", "pi", "--project"], { env, cwd: project });
    expect(fix.code).toBe(0);
    const well = await runCli(["doctor", "--json"], { env, cwd: project });
    expect(well.code).toBe(0);
    const report = JSON.parse(well.stdout);
    expect(report.ok).toBe(true);
    expect(
      report.findings.map((f: { host: string; check: string }) => `${f.host}/${f.check}`),
    ).toEqual(["pi/version", "pi/loadable", "store/files", "hooks/server"]);
  });

  it("says whether the resident hook server runs, is off, or cannot be used here", async () => {
    const { project, env } = await world();
    const off = await runCli(["doctor"], {
      env: { ...env, TODO_CONTINUATION_HOOK_SERVER: "0" },
      cwd: project,
    });
    expect(off.stdout).toMatch(/^ok +hooks +hook server off \(TODO_CONTINUATION_HOOK_SERVER=0\)/m);
    const runtime = await mkdtemp("/dev/shm/tc-doctor-");
    try {
      const fresh = join(runtime, "none-yet");
      const none = await runCli(["doctor"], {
        env: { ...env, TODO_CONTINUATION_HOOK_SERVER: "1", TODO_CONTINUATION_RUNTIME_DIR: fresh },
        cwd: project,
      });
      expect(none.stdout).toMatch(
        /^ok +hooks +no hook server running in .*none-yet \(the next hook event starts one\)$/m,
      );
      await chmod(runtime, 0o755);
      const open = await runCli(["doctor"], {
        env: { ...env, TODO_CONTINUATION_HOOK_SERVER: "1", TODO_CONTINUATION_RUNTIME_DIR: runtime },
        cwd: project,
      });
      expect(open.stdout).toMatch(
        /^ok +hooks +hook server not used: .* is open to others \(mode 755\)/m,
      );
    } finally {
      await rm(runtime, { recursive: true, force: true });
    }
  });

  it("checks PostgreSQL when --database-url names it, before or after the command", async () => {
    const { project, env } = await world();
    for (const argv of [
      ["doctor", "--database-url", TEST_DATABASE_URL],
      ["--database-url", "postgres://x@127.0.0.1:1/none", "doctor"],
    ]) {
      const run = await runCli(argv, { env, cwd: project });
      const down = argv[0] !== "doctor";
      expect(run.code).toBe(down ? 1 : 0);
      expect(run.stdout).toMatch(
        down ? /PROBLEM +store +PostgreSQL 127\.0\.0\.1:1\/none/ : /ok +store +PostgreSQL/,
      );
    }
  });

  it("with nothing installed, names every host it found no integration for and how to install one", async () => {
    const { project, env } = await world();
    // No host program on PATH at all, and no settings of any host.
    const bare = { ...env, PATH: `${join(process.execPath, "..")}:/usr/bin:/bin` };
    const run = await runCli(["doctor"], { env: bare, cwd: project });
    expect(run.code).toBe(0);
    expect(run.stdout).not.toMatch(/No problems found/);
    for (const host of [
      "claude-code",
      "codex",
      "copilot",
      "gemini",
      "opencode",
      "kilo",
      "pi",
      "qwen",
    ]) {
      expect(run.stdout).toMatch(
        new RegExp(
          `^none {5}${host} +no integration of ours found \\(todo-continuation install ${host} adds it\\)$`,
          "m",
        ),
      );
    }
    expect(run.stdout).toMatch(
      /^No host integration is installed: none found for claude-code, codex, copilot, gemini, opencode, kilo, pi, qwen; only the store was checked\.$/m,
    );
    expect(run.stdout).toMatch(
      /^Install one in this project: todo-continuation install <claude-code\|codex\|copilot\|gemini\|opencode\|kilo\|pi\|qwen>$/m,
    );
    const json = JSON.parse(
      (await runCli(["doctor", "--json"], { env: bare, cwd: project })).stdout,
    );
    expect(json.hostsWithoutIntegration).toEqual([
      "claude-code",
      "codex",
      "copilot",
      "gemini",
      "opencode",
      "kilo",
      "pi",
      "qwen",
    ]);
  });

  it("with one host integrated, does not claim nothing is installed", async () => {
    const { project, env } = await world();
    expect((await runCli(["install", "pi", "--project"], { env, cwd: project })).code).toBe(0);
    const run = await runCli(["doctor"], { env, cwd: project });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^No problems found\.$/m);
    expect(run.stdout).not.toMatch(/No host integration is installed/);
    expect(run.stdout).toMatch(/^none {5}claude-code +no integration of ours found/m);
    expect(run.stdout).not.toMatch(/^none {5}pi/m);
  });
});
