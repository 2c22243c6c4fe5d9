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
import { afterAll, describe, expect, it } from "vitest";
import { installGemini, uninstallGemini } from "./install.js";

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});
function temp(prefix: string) {
  const d = mkdtempSync(join(tmpdir(), prefix));
  made.push(d);
  return d;
}

function setup(settingsText?: string) {
  const home = temp("gem-inst-home-");
  const project = temp("gem-inst-proj-");
  if (settingsText !== undefined) {
    mkdirSync(join(project, ".gemini"));
    writeFileSync(join(project, ".gemini", "settings.json"), settingsText);
  }
  const lines: string[] = [];
  const options = {
    projectDir: project,
    env: { HOME: home },
    packageRoot: join(project, "node_modules", "todo-continuation"),
    out: (l: string) => lines.push(l),
  };
  return { home, project, lines, options };
}

describe("installGemini / uninstallGemini", () => {
  it("writes through a symlinked settings file (dotfiles), which stays a symlink", async () => {
    const { project, options } = setup();
    const dotfiles = temp("gem-inst-dotfiles-");
    const target = join(dotfiles, "gemini-settings.json");
    writeFileSync(target, '{\n  "ui": { "theme": "dark" }\n}\n');
    mkdirSync(join(project, ".gemini"));
    const link = join(project, ".gemini", "settings.json");
    symlinkSync(target, link);
    await installGemini(options);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    const installed = JSON.parse(readFileSync(target, "utf8"));
    expect(installed.ui).toEqual({ theme: "dark" });
    expect(installed.hooks).toBeDefined();
    await uninstallGemini(options);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(target, "utf8"))).toEqual({ ui: { theme: "dark" } });
  });

  it("writes a portable command for a package in the project, keeps a tab-indented CRLF file's layout, and restores it byte for byte", async () => {
    const original = '{\r\n\t"model": {\r\n\t\t"name": "gemini-2.5-pro"\r\n\t}\r\n}\r\n';
    const { project, home, lines, options } = setup(original);
    const result = await installGemini(options);
    expect(result.portable).toBe(true);
    expect(result.command).toBe(
      'node "$GEMINI_PROJECT_DIR/node_modules/todo-continuation/dist/hook/main.cjs" hook gemini',
    );
    const written = readFileSync(result.settingsPath, "utf8");
    expect(written).toContain('\r\n\t"hooks": {');
    const trusted = JSON.parse(readFileSync(join(home, ".gemini", "trusted_hooks.json"), "utf8"));
    expect(trusted[project]).toEqual([`todo-continuation:${result.command}`]);
    expect(lines.join("\n")).toContain("is not trusted yet");
    expect(lines.join("\n")).toContain("Todo tool: model gemini-2.5-pro has write_todos");

    const again = await installGemini(options);
    expect(again.changes).toEqual([]);
    expect(readFileSync(result.settingsPath, "utf8")).toBe(written);

    const removed = await uninstallGemini(options);
    expect(removed.command).toBe(result.command);
    expect(readFileSync(result.settingsPath, "utf8")).toBe(original);
    // Install created ~/.gemini and its trusted_hooks.json: both are gone again.
    expect(existsSync(join(home, ".gemini"))).toBe(false);
  });

  it("installs for the user under $GEMINI_CLI_HOME with an absolute command, and leaves hook trust alone", async () => {
    const { home, options, lines } = setup();
    const cliHome = temp("gem-cli-home-");
    const result = await installGemini({
      ...options,
      target: "user",
      env: { HOME: home, GEMINI_CLI_HOME: cliHome },
      packageRoot: "/opt/tc",
      nodePath: "/usr/bin/node",
      preset: "parley",
    });
    expect(result.settingsPath).toBe(join(cliHome, ".gemini", "settings.json"));
    expect(result.command).toBe(
      '"/usr/bin/node" "/opt/tc/dist/hook/main.cjs" hook gemini --preset parley',
    );
    expect(lines.join("\n")).not.toContain("trusted");
    expect(() => readFileSync(join(cliHome, ".gemini", "trusted_hooks.json"))).toThrow();
  });

  it("refuses a file with comments or bad JSON and an unknown preset, changing nothing", async () => {
    const text = '{\n  // my settings\n  "model": {}\n}\n';
    const { options } = setup(text);
    await expect(installGemini(options)).rejects.toThrow(/not valid JSON.*Nothing was changed/);
    await expect(installGemini({ ...options, preset: "fast" })).rejects.toThrow(
      /unknown preset "fast"/,
    );
    expect(readFileSync(join(options.projectDir, ".gemini", "settings.json"), "utf8")).toBe(text);
  });
});
