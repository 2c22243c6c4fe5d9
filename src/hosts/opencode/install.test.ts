import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { installerOptions, runInstaller } from "../installer/run.js";
import { installerRow } from "../installer/table.js";
import { installOpenCode, OPENCODE_PLUGIN_FILE, uninstallOpenCode } from "./install.js";
import { openCodeInstaller } from "./installer.js";

const row = installerRow("opencode") as NonNullable<ReturnType<typeof installerRow>>;
const parseOpenCodeInstallArgs = (argv: readonly string[], cwd: string) =>
  installerOptions(row, openCodeInstaller, argv, cwd);
const runOpenCodeInstallCommand = (
  action: "install" | "uninstall",
  argv: readonly string[],
  io: Parameters<typeof runInstaller>[3],
) => runInstaller(row, action, argv, io);

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A project folder and a package root whose built entry records how it was called. */
function fixture() {
  const root = mkdtempSync(join(tmpdir(), "tc-install-opencode-"));
  dirs.push(root);
  const project = join(root, "project");
  const pkg = join(root, "pkg");
  mkdirSync(project, { recursive: true });
  mkdirSync(join(pkg, "dist", "hosts", "opencode"), { recursive: true });
  writeFileSync(
    join(pkg, "dist", "hosts", "opencode", "index.js"),
    "export const TodoContinuation = async (input, options, installedIn) => ({ input, options, installedIn });\n",
  );
  const lines: string[] = [];
  const base = {
    projectDir: project,
    packageRoot: pkg,
    env: { HOME: join(root, "home") },
    out: (line: string) => void lines.push(line),
  };
  return { root, project, pkg, lines, base };
}

const pluginPath = (project: string) => join(project, ".opencode", "plugins", OPENCODE_PLUGIN_FILE);

describe("installOpenCode", () => {
  it("writes a plugin file that passes the install-time options to our plugin", async () => {
    const { project, pkg, base } = fixture();
    const result = await installOpenCode({
      ...base,
      pluginOptions: { preset: "omo", countdownMs: 0 },
    });
    expect(result.pluginPath).toBe(pluginPath(project));
    expect(result.changes).toEqual([`added ${pluginPath(project)}`]);
    expect(result.specifier).toBe(pathToFileURL(join(pkg, "dist/hosts/opencode/index.js")).href);
    expect(result.portable).toBe(false);
    const mod = (await import(pathToFileURL(result.pluginPath).href)) as Record<string, unknown>;
    expect(Object.keys(mod)).toEqual(["TodoContinuation"]);
    const plugin = mod.TodoContinuation as (input: unknown, extra?: unknown) => Promise<unknown>;
    expect(await plugin({ directory: project }, { toast: false })).toEqual({
      input: { directory: project },
      options: { preset: "omo", countdownMs: 0, toast: false },
      installedIn: "project",
    });
  });

  it("tells each copy its folder, and notes ours in the other folder (the host loads both)", async () => {
    const { root, project, base, lines } = fixture();
    const env = { ...base.env, XDG_CONFIG_HOME: join(root, "config") };
    await installOpenCode({ ...base, env });
    expect(lines.some((l) => l.startsWith("Note: todo-continuation's plugin is in both"))).toBe(
      false,
    );
    const user = await installOpenCode({ ...base, env, target: "user" });
    const mod = (await import(pathToFileURL(user.pluginPath).href)) as Record<string, unknown>;
    const plugin = mod.TodoContinuation as (input: unknown) => Promise<{ installedIn: string }>;
    expect((await plugin({})).installedIn).toBe("user");
    const note = lines.find((l) => l.startsWith("Note: todo-continuation's plugin is in both"));
    expect(note).toContain(join(project, ".opencode", "plugins"));
    expect(note).toContain("only the project's acts");
  });

  it("is idempotent and updates the file when the options change", async () => {
    const { project, base, lines } = fixture();
    await installOpenCode(base);
    const again = await installOpenCode(base);
    expect(again.changes).toEqual([]);
    expect(lines).toContain(
      `OpenCode plugin already installed at ${pluginPath(project)}; nothing changed.`,
    );
    const changed = await installOpenCode({ ...base, pluginOptions: { preset: "pi" } });
    expect(changed.changes).toEqual([`updated ${pluginPath(project)}`]);
    expect(readFileSync(pluginPath(project), "utf8")).toContain('{"preset":"pi"}');
  });

  it("imports the package by name when the project has it installed", async () => {
    const { project, base } = fixture();
    mkdirSync(join(project, "node_modules", "todo-continuation"), { recursive: true });
    writeFileSync(join(project, "node_modules", "todo-continuation", "package.json"), "{}");
    const result = await installOpenCode(base);
    expect(result.specifier).toBe("todo-continuation/opencode");
    expect(result.portable).toBe(true);
  });

  it("installs for the user under XDG_CONFIG_HOME, else ~/.config", async () => {
    const { root, base } = fixture();
    const xdg = join(root, "xdg");
    const viaXdg = await installOpenCode({
      ...base,
      target: "user",
      env: { ...base.env, XDG_CONFIG_HOME: xdg },
    });
    expect(viaXdg.pluginPath).toBe(join(xdg, "opencode", "plugins", OPENCODE_PLUGIN_FILE));
    const viaHome = await installOpenCode({ ...base, target: "user" });
    expect(viaHome.pluginPath).toBe(
      join(root, "home", ".config", "opencode", "plugins", OPENCODE_PLUGIN_FILE),
    );
  });

  it("refuses to overwrite a file it did not write, or to write bad options", async () => {
    const { project, base } = fixture();
    mkdirSync(join(project, ".opencode", "plugins"), { recursive: true });
    writeFileSync(pluginPath(project), "export const Mine = async () => ({});\n");
    await expect(installOpenCode(base)).rejects.toThrow(/was not written by todo-continuation/);
    expect(readFileSync(pluginPath(project), "utf8")).toContain("Mine");
    await expect(installOpenCode({ ...base, pluginOptions: { countdownMs: -5 } })).rejects.toThrow(
      /option "countdownMs" must be a whole number/,
    );
  });

  it("asks for a build when the package has no built entry", async () => {
    const { project, pkg, base } = fixture();
    rmSync(join(pkg, "dist"), { recursive: true });
    await expect(installOpenCode(base)).rejects.toThrow(/build the package first/);
    expect(() => readFileSync(pluginPath(project))).toThrow();
  });
});

describe("uninstallOpenCode", () => {
  it("removes only our files, from both plugin folders", async () => {
    const { project, base } = fixture();
    await installOpenCode(base);
    const legacy = join(project, ".opencode", "plugin", OPENCODE_PLUGIN_FILE);
    mkdirSync(join(project, ".opencode", "plugin"), { recursive: true });
    writeFileSync(legacy, readFileSync(pluginPath(project)));
    const other = join(project, ".opencode", "plugins", "other.js");
    writeFileSync(other, "export const Other = async () => ({});\n");
    const result = await uninstallOpenCode(base);
    expect(result.changes).toEqual([`removed ${pluginPath(project)}`, `removed ${legacy}`]);
    expect(readFileSync(other, "utf8")).toContain("Other");
    expect((await uninstallOpenCode(base)).changes).toEqual([]);
  });

  it("leaves a same-named file it did not write", async () => {
    const { project, base, lines } = fixture();
    mkdirSync(join(project, ".opencode", "plugins"), { recursive: true });
    writeFileSync(pluginPath(project), "export const Mine = async () => ({});\n");
    expect((await uninstallOpenCode(base)).changes).toEqual([]);
    expect(lines[0]).toMatch(/^Left .* alone/);
    expect(readFileSync(pluginPath(project), "utf8")).toContain("Mine");
  });
});

describe("the opencode install command line", () => {
  it("parses targets and plugin options", () => {
    expect(
      parseOpenCodeInstallArgs(
        ["opencode", "--user", "--preset", "omo", "--countdown-ms", "1500", "--store-dir", "s"],
        "/w",
      ),
    ).toEqual({
      host: "opencode",
      target: "user",
      projectDir: "/w",
      pluginOptions: { preset: "omo", countdownMs: 1500, storeDir: "/w/s" },
      help: false,
    });
    expect(() => parseOpenCodeInstallArgs(["--project", "--user"], "/w")).toThrow(/pass only one/);
    expect(() => parseOpenCodeInstallArgs(["--countdown-ms", "2s"], "/w")).toThrow(
      '--countdown-ms must be a whole number of milliseconds, got "2s"',
    );
    expect(() => parseOpenCodeInstallArgs(["extra"], "/w")).toThrow(/unexpected argument "extra"/);
  });

  it("runs install and reports a bad option value with exit code 2, prefixed once", async () => {
    const { project, root } = fixture();
    const out: string[] = [];
    const err: string[] = [];
    const io = {
      stdout: { write: (t: string) => out.push(t) },
      stderr: { write: (t: string) => err.push(t) },
      stdin: process.stdin,
      env: { HOME: join(root, "home") },
      cwd: project,
      argv1: undefined,
    };
    expect(await runOpenCodeInstallCommand("install", ["opencode", "--preset", "nope"], io)).toBe(
      2,
    );
    expect(err.join("")).toMatch(
      /^todo-continuation install opencode: option preset: unknown preset "nope"/,
    );
    expect(await runOpenCodeInstallCommand("uninstall", ["opencode", "--help"], io)).toBe(0);
    expect(out.join("")).toContain("Usage: todo-continuation install opencode");
  });
});
