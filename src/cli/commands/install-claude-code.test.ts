import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  installClaudeCode,
  packageRootOf,
  parseInstallArgs,
  settingsPath,
  uninstallClaudeCode,
} from "./install-claude-code.js";

const made: string[] = [];
/** A temp folder removed when the file's tests end. */
function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function project(settings?: unknown) {
  const dir = temp("cc-install-");
  mkdirSync(join(dir, ".git"));
  if (settings !== undefined) {
    mkdirSync(join(dir, ".claude"));
    writeFileSync(join(dir, ".claude", "settings.json"), JSON.stringify(settings));
  }
  return dir;
}

const read = (path: string) => JSON.parse(readFileSync(path, "utf8"));
const foreign = {
  hooks: { Stop: [{ hooks: [{ type: "command", command: "./notify.sh" }] }] },
  permissions: { allow: ["Bash(ls)"] },
};

describe("installClaudeCode", () => {
  it("merges into project settings, keeps the rest, reports, and is idempotent", async () => {
    const dir = project(foreign);
    const lines: string[] = [];
    const first = await installClaudeCode({
      projectDir: dir,
      out: (l) => lines.push(l),
      packageRoot: join(dir, "node_modules", "todo-continuation"),
    });
    const settings = read(first.settingsPath);
    expect(first.settingsPath).toBe(join(dir, ".claude", "settings.json"));
    expect(settings.permissions).toEqual(foreign.permissions);
    expect(settings.hooks.Stop[0]).toEqual(foreign.hooks.Stop[0]);
    expect(settings.hooks.Stop[1].hooks[0].command).toBe(first.command);
    expect(first.portable).toBe(true);
    expect(first.command).toContain(
      "$CLAUDE_PROJECT_DIR/node_modules/todo-continuation/dist/cli/main.js",
    );
    expect(lines.join("\n")).toMatch(/added Stop hook/);
    expect(lines.join("\n")).toMatch(/\.gitignore/);
    const again: string[] = [];
    const second = await installClaudeCode({
      projectDir: dir,
      out: (l) => again.push(l),
      packageRoot: join(dir, "node_modules", "todo-continuation"),
    });
    expect(second.changes).toEqual([]);
    expect(again[0]).toMatch(/nothing changed/);
    expect(read(second.settingsPath)).toEqual(settings);
  });

  it("writes machine paths (and says so) when the package is not in the project", async () => {
    const dir = project();
    const lines: string[] = [];
    const result = await installClaudeCode({
      projectDir: dir,
      out: (l) => lines.push(l),
      packageRoot: "/opt/todo-continuation",
      nodePath: "/usr/bin/node",
    });
    expect(result.command).toBe(
      '"/usr/bin/node" "/opt/todo-continuation/dist/cli/main.js" hook claude-code',
    );
    expect(result.portable).toBe(false);
    expect(lines.join("\n")).toMatch(/paths on this machine/);
  });

  it("installs into user settings under CLAUDE_CONFIG_DIR", async () => {
    const config = temp("cc-config-");
    const result = await installClaudeCode({
      target: "user",
      env: { CLAUDE_CONFIG_DIR: config },
      out: () => {},
      preset: "omo",
    });
    expect(result.settingsPath).toBe(join(config, "settings.json"));
    expect(result.command).toMatch(/hook claude-code --preset omo$/);
  });

  it("refuses a broken settings file or preset without touching anything", async () => {
    const dir = project();
    mkdirSync(join(dir, ".claude"));
    const path = join(dir, ".claude", "settings.json");
    writeFileSync(path, "{ not json");
    await expect(installClaudeCode({ projectDir: dir, out: () => {} })).rejects.toThrow(
      /not valid JSON/,
    );
    expect(readFileSync(path, "utf8")).toBe("{ not json");
    writeFileSync(path, JSON.stringify({ hooks: [] }));
    await expect(installClaudeCode({ projectDir: dir, out: () => {} })).rejects.toThrow(
      /"hooks" must be an object/,
    );
    await expect(
      installClaudeCode({ projectDir: dir, out: () => {}, preset: "fast" }),
    ).rejects.toThrow(/unknown preset "fast"/);
    expect(read(path)).toEqual({ hooks: [] });
  });
});

describe("uninstallClaudeCode", () => {
  it("removes only ours and reports", async () => {
    const dir = project(foreign);
    await installClaudeCode({ projectDir: dir, out: () => {} });
    const lines: string[] = [];
    const result = await uninstallClaudeCode({ projectDir: dir, out: (l) => lines.push(l) });
    expect(read(result.settingsPath)).toEqual(foreign);
    expect(result.changes.length).toBeGreaterThan(0);
    expect(lines.join("\n")).toMatch(/removed Stop hook/);
    const again = await uninstallClaudeCode({ projectDir: dir, out: () => {} });
    expect(again.changes).toEqual([]);
  });

  it("says so when there is no settings file", async () => {
    const lines: string[] = [];
    await uninstallClaudeCode({ projectDir: project(), out: (l) => lines.push(l) });
    expect(lines[0]).toMatch(/no such file/);
  });
});

describe("install arguments and paths", () => {
  it("parses targets and refuses two at once", () => {
    expect(parseInstallArgs(["claude-code", "--user"], "/w")).toMatchObject({
      target: "user",
      projectDir: "/w",
    });
    expect(parseInstallArgs(["--local", "--project-dir", "app"], "/w")).toMatchObject({
      target: "local",
      projectDir: "/w/app",
    });
    expect(() => parseInstallArgs(["--user", "--project"], "/w")).toThrow(/pass only one/);
  });

  it("names the settings files and finds this package", () => {
    expect(settingsPath("local", "/p", {})).toBe("/p/.claude/settings.local.json");
    expect(settingsPath("user", "/p", { HOME: "/h" })).toBe("/h/.claude/settings.json");
    expect(JSON.parse(readFileSync(join(packageRootOf(), "package.json"), "utf8")).name).toBe(
      "todo-continuation",
    );
  });
});
