import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { installQwen, qwenSettingsPath, uninstallQwen } from "./install.js";

const root = mkdtempSync(join(tmpdir(), "tc-qwen-install-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function setup(name: string) {
  const project = join(root, name, "project");
  const home = join(root, name, "home");
  mkdirSync(join(project, ".git"), { recursive: true });
  mkdirSync(home, { recursive: true });
  const lines: string[] = [];
  const options = {
    projectDir: project,
    env: { HOME: home },
    entry: "/opt/tc/dist/cli/main.js",
    nodePath: "/usr/bin/node",
    out: (l: string) => {
      lines.push(l);
    },
  };
  return { project, home, lines, options };
}

describe("install qwen", () => {
  it("merges into the user's file, is idempotent, and uninstalls to the exact bytes", async () => {
    const { project, lines, options } = setup("merge");
    const path = join(project, ".qwen", "settings.json");
    mkdirSync(join(project, ".qwen"));
    const original =
      '{\n    "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "mine"}]}]},\n    "$version": 4\n}';
    writeFileSync(path, original);
    const first = await installQwen(options);
    expect(first.changes).toContain("added Stop hook");
    const settings = JSON.parse(readFileSync(path, "utf8"));
    expect(settings.hooks.Stop).toHaveLength(2);
    expect(settings.hooks.PostToolUse[0].matcher).toBe("^todo_write$");
    expect(settings.hooks.Stop[1].hooks[0].command).toContain("hook qwen");
    expect(lines.some((l) => l.includes("todo_write tool is off"))).toBe(true);
    const text = readFileSync(path, "utf8");
    expect((await installQwen(options)).changes).toEqual([]);
    expect(readFileSync(path, "utf8")).toBe(text);
    expect(readFileSync(join(project, ".gitignore"), "utf8")).toContain(
      "/.qwen/todo-continuation/",
    );
    const removed = await uninstallQwen(options);
    expect(removed.changes.some((c) => c.startsWith("restored"))).toBe(true);
    expect(readFileSync(path, "utf8")).toBe(original);
  });

  it("puts a user install under $QWEN_HOME and says nothing of todo_write when it is on", async () => {
    const { home, lines, options } = setup("user");
    const env = { HOME: home, QWEN_HOME: join(home, "qh") };
    const path = qwenSettingsPath("user", "/x", env);
    expect(path).toBe(join(home, "qh", "settings.json"));
    mkdirSync(join(home, "qh"));
    writeFileSync(path, JSON.stringify({ tools: { todoWrite: { enabled: true } } }));
    await installQwen({ ...options, env, target: "user" });
    expect(lines.some((l) => l.includes("todo_write tool is off"))).toBe(false);
    expect(JSON.parse(readFileSync(path, "utf8")).hooks.Stop[0].hooks[0].timeout).toBe(30);
  });

  it("writes a Stop timeout of 1000 s or more in milliseconds, as Qwen reads it", async () => {
    const { project, options } = setup("long");
    writeFileSync(
      join(project, "todo-continuation.config.json"),
      JSON.stringify({ verify: { command: "true", timeoutMs: 600_000 } }),
    );
    await installQwen(options);
    const settings = JSON.parse(readFileSync(join(project, ".qwen", "settings.json"), "utf8"));
    expect(settings.hooks.Stop[0].hooks[0].timeout).toBe(1_241_000);
  });
});
