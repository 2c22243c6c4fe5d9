import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { installProbe } from "../hook-kit/install-ledger.js";
import { installerOptions } from "../installer/run.js";
import { installerRow } from "../installer/table.js";
import {
  claudeInstallLedgerPath,
  installClaudeCode,
  packageRootOf,
  settingsPath,
  uninstallClaudeCode,
} from "./install.js";
import { claudeCodeInstaller } from "./installer.js";

const parseInstallArgs = (argv: readonly string[], cwd: string) =>
  installerOptions(
    installerRow("claude-code") as NonNullable<ReturnType<typeof installerRow>>,
    claudeCodeInstaller,
    argv,
    cwd,
  );

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

// Installs keep their ledger in the user's Claude folder: never the real one.
process.env.HOME = temp("cc-install-home-");
delete process.env.CLAUDE_CONFIG_DIR;
afterEach(() => {
  installProbe.beforeWrite = null;
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
      "$CLAUDE_PROJECT_DIR/node_modules/todo-continuation/dist/hook/main.cjs",
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
    expect(result.command).toContain(
      'exec "/usr/bin/node" "/opt/todo-continuation/dist/hook/main.cjs" hook claude-code;',
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
    expect(result.command).toMatch(/hook claude-code --preset omo;/);
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

describe("installClaudeCode for the Claude Code version at hand", () => {
  const events = (path: string) => Object.keys(read(path).hooks);

  it("leaves out StopFailure for a version that does not know it, and says so", async () => {
    const dir = project();
    const lines: string[] = [];
    const result = await installClaudeCode({
      projectDir: dir,
      claudeVersion: "2.1.77",
      out: (l) => lines.push(l),
    });
    expect(events(result.settingsPath)).toEqual([
      "SessionStart",
      "UserPromptSubmit",
      "PostToolUse",
      "Stop",
    ]);
    expect(lines.join("\n")).toMatch(/Left out StopFailure: Claude Code 2\.1\.77 .*2\.1\.78/);
    // Updating Claude Code and installing again adds it.
    const later = await installClaudeCode({
      projectDir: dir,
      claudeVersion: "2.1.78",
      out: () => {},
    });
    expect(later.changes).toEqual(["added StopFailure hook"]);
    // Installing for an older one again takes it out.
    const back = await installClaudeCode({
      projectDir: dir,
      claudeVersion: "2.1.75",
      out: () => {},
    });
    expect(back.changes).toEqual(["removed StopFailure hook (no longer used)"]);
  });

  it("reads the version from the claude on PATH, and writes the safe set when there is none", async () => {
    const bin = temp("cc-bin-");
    writeFileSync(join(bin, "claude"), '#!/bin/sh\necho "2.1.332 (Claude Code)"\n', {
      mode: 0o755,
    });
    const dir = project();
    const found = await installClaudeCode({
      projectDir: dir,
      env: { PATH: `${bin}:${process.env.PATH}` },
      out: () => {},
    });
    expect(found.version).toBe("2.1.332");
    expect(events(found.settingsPath)).toContain("StopFailure");
    const lines: string[] = [];
    const none = await installClaudeCode({
      projectDir: project(),
      env: { PATH: temp("cc-empty-") },
      out: (l) => lines.push(l),
    });
    expect(none.version).toBeNull();
    expect(events(none.settingsPath)).not.toContain("StopFailure");
    expect(lines.join("\n")).toMatch(/version is unknown/);
  });

  it("refuses a version below the supported minimum, changing nothing", async () => {
    const dir = project({ permissions: { deny: ["Bash(rm:*)"] } });
    const before = readFileSync(join(dir, ".claude", "settings.json"), "utf8");
    await expect(
      installClaudeCode({ projectDir: dir, claudeVersion: "2.0.9", out: () => {} }),
    ).rejects.toThrow(/Claude Code 2\.0\.9 is older than 2\.1\.75/);
    await expect(
      installClaudeCode({ projectDir: dir, claudeVersion: "latest", out: () => {} }),
    ).rejects.toThrow(/--claude-version must look like/);
    expect(readFileSync(join(dir, ".claude", "settings.json"), "utf8")).toBe(before);
    expect(existsSync(join(dir, ".gitignore"))).toBe(false);
  });
});

describe("installClaudeCode keeps the user's file", () => {
  const tabbed =
    '{\n\t"permissions": {\n\t\t"deny": [\n\t\t\t"Bash(rm:*)"\n\t\t]\n\t},\n\t"model": "opus"\n}\n';

  it("keeps the indentation and final newline, and uninstall gives back the same bytes", async () => {
    for (const original of [
      tabbed,
      tabbed.slice(0, -1),
      '{"model":"opus"}',
      '{\r\n    "model": "opus"\r\n}\r\n',
    ]) {
      const dir = project();
      mkdirSync(join(dir, ".claude"));
      const path = join(dir, ".claude", "settings.json");
      writeFileSync(path, original);
      await installClaudeCode({ projectDir: dir, claudeVersion: "2.1.332", out: () => {} });
      const installed = readFileSync(path, "utf8");
      if (original.startsWith("{\n\t")) expect(installed).toMatch(/^\t"hooks": \{$/m);
      expect(installed.endsWith("\n")).toBe(original.endsWith("\n"));
      await uninstallClaudeCode({ projectDir: dir, out: () => {} });
      expect(readFileSync(path, "utf8")).toBe(original);
    }
  });

  it("writes through a symlinked settings file, which stays a symlink", async () => {
    const dir = project();
    const dotfiles = temp("cc-dotfiles-");
    const target = join(dotfiles, "claude-settings.json");
    writeFileSync(target, tabbed);
    mkdirSync(join(dir, ".claude"));
    const link = join(dir, ".claude", "settings.json");
    symlinkSync(target, link);
    await installClaudeCode({ projectDir: dir, claudeVersion: "2.1.332", out: () => {} });
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(read(target).hooks.Stop).toBeDefined();
    await uninstallClaudeCode({ projectDir: dir, out: () => {} });
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, "utf8")).toBe(tabbed);
  });

  it("adds the store's ignore line for a project install only, and uninstall takes it out", async () => {
    const dir = project();
    writeFileSync(join(dir, ".gitignore"), "node_modules/\n");
    await installClaudeCode({ projectDir: dir, claudeVersion: "2.1.332", out: () => {} });
    expect(readFileSync(join(dir, ".gitignore"), "utf8")).toContain("/.claude/todo-continuation/");
    await uninstallClaudeCode({ projectDir: dir, out: () => {} });
    expect(readFileSync(join(dir, ".gitignore"), "utf8")).toBe("node_modules/\n");
    const config = temp("cc-config-");
    await installClaudeCode({
      target: "user",
      projectDir: dir,
      env: { CLAUDE_CONFIG_DIR: config },
      claudeVersion: "2.1.332",
      out: () => {},
    });
    expect(readFileSync(join(dir, ".gitignore"), "utf8")).toBe("node_modules/\n");
  });
});

describe("install then uninstall gives back every byte", () => {
  /** The files the ledger (shared by this file's tests) has entries for. */
  const ledgered = (): string[] => {
    const path = claudeInstallLedgerPath(process.env);
    return existsSync(path) ? Object.keys(read(path).files) : [];
  };
  const options = (dir: string) => ({ projectDir: dir, claudeVersion: "2.1.332", out: () => {} });

  it("removes a settings file and folder install created, and the ledger once empty", async () => {
    const dir = project();
    const lines: string[] = [];
    await installClaudeCode(options(dir));
    const path = join(dir, ".claude", "settings.json");
    expect(ledgered()).toContain(path);
    await uninstallClaudeCode({ ...options(dir), out: (l) => lines.push(l) });
    expect(existsSync(join(dir, ".claude"))).toBe(false);
    expect(lines.join("\n")).toMatch(/removed .*settings\.json, which install had created/);
    expect(ledgered()).not.toContain(path);
  });

  it("restores the exact bytes of a file that held only its own settings, in any layout", async () => {
    for (const original of ["", "{}", "{ }\r\n", '{"model":"opus"}\n']) {
      const dir = project();
      mkdirSync(join(dir, ".claude"));
      const path = join(dir, ".claude", "settings.json");
      writeFileSync(path, original);
      await installClaudeCode(options(dir));
      await uninstallClaudeCode(options(dir));
      expect(readFileSync(path, "utf8")).toBe(original);
    }
  });

  it("keeps what the user added since, minus our hooks", async () => {
    const dir = project();
    await installClaudeCode(options(dir));
    const path = join(dir, ".claude", "settings.json");
    writeFileSync(path, JSON.stringify({ ...read(path), model: "opus" }));
    await uninstallClaudeCode(options(dir));
    expect(read(path)).toEqual({ model: "opus" });
  });

  it("a settings write that fails takes the .gitignore line out again and writes nothing", async () => {
    const dir = project();
    writeFileSync(join(dir, ".gitignore"), "node_modules/\n");
    installProbe.beforeWrite = () => {
      throw new Error("injected failure");
    };
    await expect(installClaudeCode(options(dir))).rejects.toThrow("injected failure");
    expect(readFileSync(join(dir, ".gitignore"), "utf8")).toBe("node_modules/\n");
    expect(existsSync(join(dir, ".claude"))).toBe(false);
    expect(ledgered()).not.toContain(join(dir, ".claude", "settings.json"));
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
