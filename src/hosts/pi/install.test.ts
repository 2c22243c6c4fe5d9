import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { installerOptions } from "../installer/run.js";
import { installerRow } from "../installer/table.js";
import { installPi, isOurPiEntry, piSettingsPath, uninstallPi } from "./install.js";
import { piInstaller } from "./installer.js";

const parsePiInstallArgs = (argv: readonly string[], cwd: string) =>
  installerOptions(
    installerRow("pi") as NonNullable<ReturnType<typeof installerRow>>,
    piInstaller,
    argv,
    cwd,
  );

const made: string[] = [];
function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A package root with the built extension file, as an install would find it. */
function packageAt(root: string): string {
  const file = join(root, "dist", "hosts", "pi", "index.js");
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, "export default () => {};\n");
  writeFileSync(join(root, "package.json"), '{"name":"todo-continuation"}');
  return root;
}

const read = (path: string) => JSON.parse(readFileSync(path, "utf8"));

describe("installPi", () => {
  it("writes an entry relative to .pi/ that resolves to the project's node_modules copy", async () => {
    const project = temp("pi-install-");
    packageAt(join(project, "node_modules", "todo-continuation"));
    const result = await installPi({ projectDir: project, out: () => {}, env: {} });
    expect(result.settingsPath).toBe(join(project, ".pi", "settings.json"));
    expect(result.portable).toBe(true);
    const [entry] = read(result.settingsPath).extensions;
    expect(entry).toBe("../node_modules/todo-continuation/dist/hosts/pi/index.js");
    // pi resolves it against the settings file's folder: it must name the real file.
    expect(lstatSync(resolve(join(project, ".pi"), entry)).isFile()).toBe(true);
  });

  it("replaces the ./node_modules entry pi could not resolve, keeps the rest, and is idempotent", async () => {
    const project = temp("pi-install-");
    packageAt(join(project, "node_modules", "todo-continuation"));
    mkdirSync(join(project, ".pi"));
    const path = join(project, ".pi", "settings.json");
    const original = `{\n\t"extensions": [\n\t\t"./mine.ts",\n\t\t"./node_modules/todo-continuation/dist/hosts/pi/index.js"\n\t],\n\t"theme": "dark"\n}\n`;
    writeFileSync(path, original);
    const lines: string[] = [];
    await installPi({ projectDir: project, out: (l) => lines.push(l), env: {} });
    expect(read(path)).toEqual({
      extensions: ["./mine.ts", "../node_modules/todo-continuation/dist/hosts/pi/index.js"],
      theme: "dark",
    });
    expect(readFileSync(path, "utf8")).toMatch(/^\t"theme": "dark"$/m);
    expect(lines.join("\n")).toMatch(/replaced the extension entry/);
    const again = await installPi({ projectDir: project, out: () => {}, env: {} });
    expect(again.changes).toEqual([]);
    await uninstallPi({ projectDir: project, out: () => {}, env: {} });
    expect(read(path)).toEqual({ extensions: ["./mine.ts"], theme: "dark" });
  });

  it("gives back the original bytes after install and uninstall, through a symlink", async () => {
    const project = temp("pi-install-");
    const root = packageAt(temp("pi-package-"));
    const dotfiles = temp("pi-dotfiles-");
    const target = join(dotfiles, "pi.json");
    const original = '{\n    "theme": "light"\n}';
    writeFileSync(target, original);
    mkdirSync(join(project, ".pi"));
    symlinkSync(target, join(project, ".pi", "settings.json"));
    const result = await installPi({
      projectDir: project,
      packageRoot: root,
      out: () => {},
      env: {},
    });
    expect(result.portable).toBe(false);
    expect(read(target).extensions).toEqual([join(root, "dist", "hosts", "pi", "index.js")]);
    await uninstallPi({ projectDir: project, packageRoot: root, out: () => {}, env: {} });
    expect(lstatSync(join(project, ".pi", "settings.json")).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, "utf8")).toBe(original);
  });

  it("installs for the user under PI_CODING_AGENT_DIR with an absolute path", async () => {
    const agent = temp("pi-agent-");
    const root = packageAt(temp("pi-package-"));
    const result = await installPi({
      target: "user",
      packageRoot: root,
      env: { PI_CODING_AGENT_DIR: agent },
      out: () => {},
    });
    expect(result.settingsPath).toBe(join(agent, "settings.json"));
    expect(read(result.settingsPath).extensions).toEqual([
      join(root, "dist", "hosts", "pi", "index.js"),
    ]);
  });

  it("refuses a broken settings file and an unbuilt package without changing anything", async () => {
    const project = temp("pi-install-");
    mkdirSync(join(project, ".pi"));
    const path = join(project, ".pi", "settings.json");
    writeFileSync(path, '{"extensions": "x"}');
    const root = packageAt(temp("pi-package-"));
    await expect(
      installPi({ projectDir: project, packageRoot: root, out: () => {}, env: {} }),
    ).rejects.toThrow(/"extensions" must be a list/);
    await expect(
      installPi({
        projectDir: temp("pi-x-"),
        packageRoot: temp("pi-empty-"),
        out: () => {},
        env: {},
      }),
    ).rejects.toThrow(/build the package first/);
    expect(readFileSync(path, "utf8")).toBe('{"extensions": "x"}');
  });
});

describe("pi install arguments", () => {
  it("parses targets, refuses two, and names the files", () => {
    expect(parsePiInstallArgs(["pi", "--user"], "/w")).toMatchObject({ target: "user" });
    expect(parsePiInstallArgs(["--project-dir", "app"], "/w")).toMatchObject({
      target: "project",
      projectDir: "/w/app",
    });
    expect(() => parsePiInstallArgs(["--user", "--project"], "/w")).toThrow(/pass only one/);
    expect(piSettingsPath("user", "/p", { HOME: "/h" })).toBe("/h/.pi/agent/settings.json");
    expect(isOurPiEntry("/x/node_modules/todo-continuation/dist/hosts/pi/index.js")).toBe(true);
    expect(isOurPiEntry("./other/dist/hosts/pi/index.js")).toBe(false);
  });
});
