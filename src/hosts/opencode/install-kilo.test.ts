import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { installerOptions } from "../installer/run.js";
import { installerRow } from "../installer/table.js";
import { kiloDoctor, openCodeDoctor } from "./doctor.js";
import { installOpenCode, OPENCODE_PLUGIN_FILE, uninstallOpenCode } from "./install.js";
import { kiloInstaller } from "./installer.js";
import { pluginHost, pluginMarker } from "./plugin-hosts.js";

/** Kilo takes the OpenCode plugin from folders of its own; the rest is OpenCode's install. */

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function fixture() {
  const root = mkdtempSync(join(tmpdir(), "tc-install-kilo-"));
  dirs.push(root);
  const project = join(root, "project");
  const pkg = join(root, "pkg");
  const bin = join(root, "bin");
  mkdirSync(project, { recursive: true });
  mkdirSync(join(pkg, "dist", "hosts", "opencode"), { recursive: true });
  writeFileSync(
    join(pkg, "dist", "hosts", "opencode", "index.js"),
    "export const TodoContinuation = async () => ({});\n",
  );
  mkdirSync(bin);
  writeFileSync(join(bin, "kilo"), "#!/bin/sh\necho 7.7.7\n", { mode: 0o755 });
  const home = join(root, "home");
  const env = { HOME: home, PATH: `${bin}:${process.env.PATH ?? ""}` };
  const base = { host: "kilo" as const, projectDir: project, packageRoot: pkg, env, out: () => {} };
  return { root, project, home, env, base };
}

describe("install kilo", () => {
  it("writes the plugin file into .kilo/plugins, marked as Kilo's, and nothing for OpenCode", async () => {
    const { project, base } = fixture();
    const result = await installOpenCode(base);
    expect(result.pluginPath).toBe(join(project, ".kilo", "plugins", OPENCODE_PLUGIN_FILE));
    const text = readFileSync(result.pluginPath, "utf8");
    expect(text.split("\n")[0]).toBe(pluginMarker(pluginHost("kilo")));
    expect(text).toContain("`todo-continuation uninstall kilo` removes it");
    expect(existsSync(join(project, ".opencode"))).toBe(false);
    expect((await installOpenCode(base)).changes).toEqual([]);
  });

  it("installs for the user in $XDG_CONFIG_HOME/kilo, else ~/.config/kilo", async () => {
    const { root, home, base } = fixture();
    const user = await installOpenCode({ ...base, target: "user" });
    expect(user.pluginPath).toBe(join(home, ".config", "kilo", "plugins", OPENCODE_PLUGIN_FILE));
    const xdg = join(root, "xdg");
    const other = await installOpenCode({
      ...base,
      target: "user",
      env: { ...base.env, XDG_CONFIG_HOME: xdg },
    });
    expect(other.pluginPath).toBe(join(xdg, "kilo", "plugins", OPENCODE_PLUGIN_FILE));
  });

  it("uninstall kilo leaves OpenCode's plugin file, and the other way round", async () => {
    const { project, base } = fixture();
    const kilo = await installOpenCode(base);
    const opencode = await installOpenCode({ ...base, host: "opencode" });
    // A file written for one host is not the other's: neither removes it.
    writeFileSync(join(project, ".kilo", "plugin-copy.js"), "");
    const copied = join(project, ".kilo", "plugin", OPENCODE_PLUGIN_FILE);
    mkdirSync(join(copied, ".."), { recursive: true });
    writeFileSync(copied, readFileSync(opencode.pluginPath));
    const lines: string[] = [];
    await uninstallOpenCode({ ...base, out: (line) => void lines.push(line) });
    expect(existsSync(kilo.pluginPath)).toBe(false);
    expect(existsSync(copied)).toBe(true);
    expect(lines.join("\n")).toContain(`Left ${copied} alone`);
    expect(existsSync(opencode.pluginPath)).toBe(true);
  });

  it("the command line takes `kilo` as its first word and an unknown host is refused", () => {
    const row = installerRow("kilo") as NonNullable<ReturnType<typeof installerRow>>;
    const parsed = installerOptions(row, kiloInstaller, ["kilo", "--user"], "/p");
    expect(parsed).toMatchObject({ host: "kilo", target: "user" });
    expect(() => pluginHost("toString")).toThrow(/host must be one of opencode, kilo/);
  });
});

describe("kiloDoctor", () => {
  it("checks Kilo's version and the plugin file it loads; OpenCode's check ignores it", async () => {
    const { project, home, env, base } = fixture();
    await installOpenCode(base);
    const ctx = { cwd: project, home, env };
    const findings = await kiloDoctor(ctx);
    expect(findings.map((f) => [f.host, f.check, f.ok])).toEqual([
      ["kilo", "version", true],
      ["kilo", "loadable", true],
      ["kilo", "store", true],
    ]);
    expect(findings[0]?.message).toBe("Kilo 7.7.7 (needs 7.7.7 or newer)");
    expect(await openCodeDoctor(ctx)).toEqual([]);
  });
});
