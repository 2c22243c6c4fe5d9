import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runCli } from "./test-support/run-cli.js";

const version = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    version: string;
  }
).version;

describe("todo-continuation (the built CLI): help, version and bad usage", () => {
  it("prints its version", async () => {
    for (const flag of ["--version", "-v"]) {
      const run = await runCli([flag]);
      expect(run.code).toBe(0);
      expect(run.stdout.trim()).toBe(version);
    }
  });

  it("lists every command in its help", async () => {
    const run = await runCli(["--help"]);
    expect(run.code).toBe(0);
    for (const name of [
      "list",
      "show",
      "why",
      "log",
      "edit",
      "stop",
      "resume",
      "clear",
      "snapshot",
      "hook",
      "install",
      "uninstall",
      "doctor",
      "mcp",
      "migrate",
      "demo",
      "help",
    ]) {
      expect(run.stdout).toMatch(new RegExp(`^  ${name}\\b`, "m"));
    }
    expect(run.stdout).toContain("Exit codes:");
    expect((await runCli(["help"])).stdout).toBe(run.stdout);
  });

  it("prints one command's help three ways", async () => {
    const a = await runCli(["show", "--help"]);
    const b = await runCli(["help", "show"]);
    const c = await runCli(["install", "--help"]);
    expect(a.code).toBe(0);
    expect(a.stdout).toContain("todo-continuation show <scope>");
    expect(b.stdout).toBe(a.stdout);
    expect(c.stdout).toMatch(/todo-continuation install\s+<claude-code\|/);
  });

  it("exits 2 on bad usage, naming the problem and where to look", async () => {
    const cases: [string[], string][] = [
      [[], "no command given"],
      [["shwo"], "unknown command 'shwo' (did you mean 'show'?)"],
      [["show"], "missing argument"],
      [["list", "extra"], "unexpected argument: extra"],
      [["list", "--frobnicate"], "unknown option --frobnicate"],
      [["log", "tui", "--limit", "zero"], '--limit: expected a positive whole number, got "zero"'],
      [["list", "--preset", "turbo"], '--preset: unknown preset "turbo"'],
      [
        ["list", "--dir", "/tmp/x", "--database-url", "postgres://h/db"],
        "--dir and --database-url",
      ],
      [["list", "--dir", ""], "--dir: expected a folder path"],
      [["--dir", "", "list"], "--dir: expected a folder path"],
      [["list", "--preset", "x".repeat(100_000)], '--preset: unknown preset "xxxx'],
      [["list", `--${"y".repeat(100_000)}`], "unknown option --yyyy"],
      [["z".repeat(100_000)], "unknown command 'zzzz"],
      [["help", "nothing"], "no help for unknown command 'nothing'"],
      [["install"], "install: name the host"],
      [["install", "vscode"], 'unknown host "vscode"'],
      [["hook"], "hook: name the host"],
      [["hook", "opencode"], 'unknown host "opencode"'],
    ];
    for (const [args, message] of cases) {
      const run = await runCli(args);
      expect({ args, code: run.code }).toEqual({ args, code: 2 });
      expect(run.stderr).toContain(message);
      expect(run.stderr).toMatch(/Run 'todo-continuation( \w+)? --help' for usage\./);
      expect(run.stdout).toBe("");
      // One error line and the pointer to help: nothing repeated, nothing huge.
      expect(run.stderr.trim().split("\n")).toHaveLength(2);
      expect(run.stderr.length).toBeLessThan(300);
    }
  });
});
