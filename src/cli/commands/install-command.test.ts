import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../test-support/run-cli.js";

const folders: string[] = [];

afterAll(async () => {
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

describe("install and uninstall (wired through the dispatcher)", () => {
  it("merges the hooks into the project's settings and removes them again", async () => {
    const project = await mkdtemp(join(tmpdir(), "tc-cli-install-"));
    folders.push(project);
    const home = await mkdtemp(join(tmpdir(), "tc-cli-install-home-"));
    folders.push(home);
    const settings = join(project, ".claude", "settings.json");
    const install = await runCli(
      ["--preset", "typeclaw", "install", "claude-code", "--project-dir", project],
      { env: { HOME: home, CLAUDE_CONFIG_DIR: undefined } },
    );
    expect(install.stderr).toBe("");
    expect(install.code).toBe(0);
    expect(install.stdout).toContain(`Updated ${settings}:`);
    const written = await readFile(settings, "utf8");
    expect(written).toContain("hook claude-code");
    expect(written).toContain("typeclaw");
    expect(JSON.parse(written).hooks.Stop).toBeDefined();

    const uninstall = await runCli(["uninstall", "claude-code", "--project-dir", project], {
      env: { HOME: home },
    });
    expect(uninstall.code).toBe(0);
    // The settings file was install's own: it goes, with the folder made for it.
    await expect(readFile(settings, "utf8")).rejects.toThrow(/ENOENT/);
  });

  it("installs the OpenCode plugin, pointed at the store --dir names, and removes it", async () => {
    const project = await mkdtemp(join(tmpdir(), "tc-cli-install-opencode-"));
    folders.push(project);
    const store = join(project, "store");
    const install = await runCli(["--dir", store, "install", "opencode", "--project-dir", project]);
    expect(install.stderr).toBe("");
    expect(install.code).toBe(0);
    const plugin = await readFile(
      join(project, ".opencode", "plugins", "todo-continuation.js"),
      "utf8",
    );
    expect(plugin).toContain(JSON.stringify(store));
    const uninstall = await runCli(["uninstall", "opencode", "--project-dir", project]);
    expect(uninstall.code).toBe(0);
    await expect(
      readFile(join(project, ".opencode", "plugins", "todo-continuation.js"), "utf8"),
    ).rejects.toThrow(/ENOENT/);
  });

  it("exits 2 on a bad command line, wherever the bad value is, with one prefix", async () => {
    const runs = [
      ["install", "claude-code", "--user", "--local"],
      ["install", "claude-code", "--preset", "bogus"],
      ["--preset", "bogus", "install", "claude-code"],
      ["install", "claude-code", "--claude-version", "x".repeat(10_000)],
      ["install", "opencode", "--preset", "bogus"],
      ["install", "opencode", "--countdown-ms", "soon"],
    ];
    for (const argv of runs) {
      const run = await runCli(argv);
      expect(run.code, argv.join(" ")).toBe(2);
      expect(run.stderr.match(/todo-continuation/g)?.length, run.stderr).toBeLessThanOrEqual(2);
      expect(run.stderr.length).toBeLessThan(400);
    }
    const opencode = await runCli(["install", "opencode", "--preset", "bogus"]);
    expect(opencode.stderr.split("\n")[0]).toMatch(
      /^todo-continuation install opencode: option preset: unknown preset "bogus"/,
    );
  });

  it("exits 1 when the install itself fails", async () => {
    const project = await mkdtemp(join(tmpdir(), "tc-cli-install-bad-"));
    folders.push(project);
    await mkdir(join(project, ".claude"));
    await writeFile(join(project, ".claude", "settings.json"), "{ not json");
    const run = await runCli(["install", "claude-code", "--project-dir", project]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^todo-continuation install claude-code: .*not valid JSON/);
  });
});
